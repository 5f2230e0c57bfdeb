/*
Copyright 2026 The profile-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// profileLine says what evaluated the review.
func profileLine(sr *v1alpha1.SchedulingReview) string {
	st := sr.Status
	switch {
	case st.Draft:
		return fmt.Sprintf("draft (schedulerName %s)", st.SchedulerName)
	case st.Profile != "":
		return fmt.Sprintf("%s (generation %d, schedulerName %s)", st.Profile, st.ProfileGeneration, st.SchedulerName)
	}
	return "schedulerName " + st.SchedulerName
}

// renderExplain prints an explain answer: a summary, then one row per node
// (the listed feasible nodes in rank order, the winner marked *, then the
// rejected ones with the plugin and reason), with each score plugin's
// weighted score and the total; wide (-o wide) adds each plugin's raw
// score, before NormalizeScore and the weight, in parentheses.
func renderExplain(w io.Writer, sr *v1alpha1.SchedulingReview, wide bool) error {
	if sr.Status.Group != nil {
		return renderGroup(w, sr)
	}
	res := sr.Status.Result
	if res == nil {
		return fmt.Errorf("review %s/%s has no result", sr.Namespace, sr.Name)
	}
	fmt.Fprintf(w, "Pod:       %s\n", res.Pod)
	if res.Route != "" {
		fmt.Fprintf(w, "Route:     %s (ProfileRoute that gave the pod its schedulerName)\n", res.Route)
	}
	if res.BoundNode != "" {
		fmt.Fprintf(w, "Bound to:  %s (evaluated below as if pending again)\n", res.BoundNode)
	}
	if res.Overcommitted != "" {
		fmt.Fprintf(w, "WARNING:   node %s is overcommitted, its pods request more than it has: %s\n", res.BoundNode, res.Overcommitted)
	}
	fmt.Fprintf(w, "Profile:   %s\n", profileLine(sr))
	fmt.Fprintf(w, "Nodes:     %d in the snapshot, %d feasible\n", sr.Status.SnapshotNodes, res.FeasibleNodes)
	switch {
	case res.TiedNodes > 1:
		var tied []string
		for _, n := range res.Nodes {
			if n.TotalScore == res.Nodes[0].TotalScore && n.Node != res.SelectedNode {
				tied = append(tied, n.Node)
			}
		}
		if more := int(res.TiedNodes) - 1 - len(tied); more > 0 {
			tied = append(tied, fmt.Sprintf("%d more", more))
		}
		fmt.Fprintf(w, "Result:    %s, tied with %s: the scheduler picks one of them at random\n", res.SelectedNode, strings.Join(tied, ", "))
	case res.SelectedNode != "":
		fmt.Fprintf(w, "Result:    %s\n", res.SelectedNode)
	default:
		fmt.Fprintf(w, "Result:    unschedulable: %s\n", res.Message)
	}
	if p := res.Preemption; p != nil {
		switch {
		case p.Node != "":
			fmt.Fprintf(w, "Preemption: would nominate %s, evicting %s\n", p.Node, victims(p))
		case p.Message != "":
			fmt.Fprintf(w, "Preemption: %s\n", strings.TrimPrefix(p.Message, "preemption: "))
		}
		if p.NotEvaluated != "" {
			fmt.Fprintf(w, "Not evaluated: %s\n", p.NotEvaluated)
		}
	}
	if s := res.Sampling; s != nil && !s.AllNodes {
		fmt.Fprintf(w, "Sampling:  the scheduler stops at %d feasible nodes (percentageOfNodesToScore), starting at %s; nodes marked ~ it would not reach\n", s.NumFeasibleNodesToFind, s.StartNode)
	}
	fmt.Fprintln(w)

	var plugins []string
	for _, col := range res.Scores {
		name := col.Plugin
		if wide && len(col.Raw) > 0 {
			name += " (RAW)"
		}
		plugins = append(plugins, name)
	}
	tw := printers.GetNewTabWriter(w)
	header := append([]string{"NODE", "FILTER"}, plugins...)
	fmt.Fprintln(tw, strings.Join(append(header, "TOTAL"), "\t"))
	for i, n := range res.Nodes {
		name := n.Node
		switch {
		case n.Node == res.SelectedNode:
			name += " *"
		case n.NotSampled:
			name += " ~"
		}
		row := []string{name, "passed"}
		for _, col := range res.Scores {
			if i < len(col.Weighted) {
				cell := strconv.FormatInt(col.Weighted[i], 10)
				if wide && i < len(col.Raw) {
					cell += " (" + strconv.FormatInt(col.Raw[i], 10) + ")"
				}
				row = append(row, cell)
			} else {
				row = append(row, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(append(row, strconv.FormatInt(n.TotalScore, 10)), "\t"))
	}
	dashes := func(row []string) string {
		for range plugins {
			row = append(row, "-")
		}
		return strings.Join(append(row, "-"), "\t")
	}
	if res.UnlistedFeasibleNodes > 0 {
		fmt.Fprintln(tw, dashes([]string{fmt.Sprintf("(%d more)", res.UnlistedFeasibleNodes), "passed"}))
	}
	for _, g := range res.Rejected {
		verdict := g.Reason
		if g.Plugin != "" {
			verdict = g.Plugin + ": " + g.Reason
		}
		for _, n := range g.Nodes {
			fmt.Fprintln(tw, dashes([]string{n, verdict}))
		}
		if more := int(g.Count) - len(g.Nodes); more > 0 {
			fmt.Fprintln(tw, dashes([]string{fmt.Sprintf("(%d more)", more), verdict}))
		}
	}
	return tw.Flush()
}

// renderWhatIf prints a what-if answer: how many pending pods would be
// placed, then where each pod of the namespace would go, or why not; wide
// adds the pod group each pod is placed with.
func renderWhatIf(w io.Writer, sr *v1alpha1.SchedulingReview, wide bool) error {
	res := sr.Status.WhatIf
	if res == nil {
		return fmt.Errorf("review %s/%s has no what-if result", sr.Namespace, sr.Name)
	}
	groups := ""
	if res.PendingGroups > 0 {
		groups = fmt.Sprintf(" and %d of %s (all or nothing)", res.PlacedGroups, plural(int(res.PendingGroups), "pod group"))
	}
	fmt.Fprintf(w, "%d of %s%s would be placed (%s, %s)\n", res.Placed, plural(int(res.PendingPods), "pending pod"), groups, profileLine(sr), plural(int(sr.Status.SnapshotNodes), "node"))
	if len(res.Pods) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := printers.GetNewTabWriter(w)
	if wide {
		fmt.Fprintln(tw, "POD\tNODE\tPODGROUP\tREASON")
	} else {
		fmt.Fprintln(tw, "POD\tNODE\tREASON")
	}
	for _, p := range res.Pods {
		node := p.Node
		if node == "" {
			node = "<none>"
		}
		if wide {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Pod, node, orNone(p.PodGroup), p.Message)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Pod, node, p.Message)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if others := int(res.PendingPods) - len(res.Pods); others > 0 {
		fmt.Fprintf(w, "(%s of other namespaces, or beyond the first %d, not listed)\n", plural(others, "pending pod"), len(res.Pods))
	}
	return nil
}

// renderGroup prints the pod-group cycle's answer: the group's verdict and
// the PodGroup condition's message, then each member's node or reason in
// the order the cycle places them, and the members each node would take.
func renderGroup(w io.Writer, sr *v1alpha1.SchedulingReview) error {
	g := sr.Status.Group
	if res := sr.Status.Result; res != nil {
		fmt.Fprintf(w, "Pod:       %s belongs to pod group %s: the pod-group cycle places it with its group\n", res.Pod, g.PodGroup)
	}
	fmt.Fprintf(w, "Pod group: %s (minCount %d)\n", g.PodGroup, g.MinCount)
	fmt.Fprintf(w, "Profile:   %s\n", profileLine(sr))
	fmt.Fprintf(w, "Nodes:     %d in the snapshot\n", sr.Status.SnapshotNodes)
	switch g.Verdict {
	case "Scheduled":
		fmt.Fprintf(w, "Result:    Scheduled: all %d pending members would be placed\n", g.Pending)
	case "Waiting":
		fmt.Fprintf(w, "Result:    Waiting, not attempted: %s\n", g.Message)
	case "NothingPending":
		fmt.Fprintln(w, "Result:    no member is pending")
	default:
		fmt.Fprintf(w, "Result:    %s: %s\n", g.Verdict, g.Message)
		fmt.Fprintf(w, "Placed:    none of %d pending members (all or nothing)\n", g.Pending)
	}
	if p := g.Preemption; p != nil {
		switch {
		case len(p.Victims) > 0 || p.OtherNamespaceVictims > 0:
			fmt.Fprintf(w, "Preemption: would evict %s\n", victims(p))
		case p.Message != "":
			fmt.Fprintf(w, "Preemption: %s\n", strings.TrimPrefix(p.Message, "pod group preemption: "))
		}
		if p.NotEvaluated != "" {
			fmt.Fprintf(w, "Not evaluated: %s\n", p.NotEvaluated)
		}
	}
	if len(g.Members) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := printers.GetNewTabWriter(w)
	fmt.Fprintln(tw, "MEMBER\tNODE\tREASON")
	for _, m := range g.Members {
		node, reason := m.Node, m.Message
		switch {
		case m.Scheduled:
			reason = "already scheduled"
		case node == "":
			node = "<none>"
		case reason != "" && g.Verdict != "Scheduled":
			node += " (not bound)"
		}
		if m.NominatedNode != "" {
			reason += " (nominated to " + m.NominatedNode + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Pod, node, reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(g.Nodes) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = printers.GetNewTabWriter(w)
	fmt.Fprintln(tw, "NODE\tMEMBERS")
	for _, n := range g.Nodes {
		fmt.Fprintf(tw, "%s\t%s\n", n.Node, strings.Join(n.Pods, ", "))
	}
	return tw.Flush()
}

// victims lists the victims of the review's namespace by name, then
// counts those of other namespaces, which a review does not name.
func victims(p *v1alpha1.PreemptionResult) string {
	out := slices.Clone(p.Victims)
	if n := int(p.OtherNamespaceVictims); n > 0 {
		out = append(out, plural(n, "pod")+" of other namespaces")
	}
	return strings.Join(out, ", ")
}

// orNone is s, or <none> when it is empty, as kubectl prints an empty cell.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// plural is "1 noun" or "n nouns".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
