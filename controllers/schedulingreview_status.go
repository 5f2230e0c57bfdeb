package controllers

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// maxWhatIfPods bounds the pods listed in status.whatIf.pods.
const maxWhatIfPods = 500

// maxRejectionGroups bounds status.result.rejected: the smallest groups
// beyond it are counted in one last group (extenders may give every node a
// reason of its own).
const maxRejectionGroups = 20

// reviewOutcome is what answering a review decided: a failure, or the
// scheduler's review and the profile it used.
type reviewOutcome struct {
	failure    *Refusal
	review     *scheduler.Review
	draft      bool
	profile    string
	generation int64
}

func failed(reason, message string) reviewOutcome {
	return reviewOutcome{failure: &Refusal{Reason: reason, Message: message}}
}

// reviewStatus is the status of sr once answered with o.
func reviewStatus(sr *v1alpha1.SchedulingReview, o reviewOutcome, now metav1.Time) v1alpha1.SchedulingReviewStatus {
	st := v1alpha1.SchedulingReviewStatus{
		ObservedGeneration: sr.Generation,
		Profile:            o.profile,
		ProfileGeneration:  o.generation,
		Draft:              o.draft,
		CompletionTime:     &now,
	}
	if o.failure != nil {
		setCondition(&st.Conditions, sr.Generation, v1alpha1.ConditionFailed, metav1.ConditionTrue, o.failure.Reason, o.failure.Message, now)
		return st
	}
	r := o.review
	st.SchedulerName = r.SchedulerName
	st.SnapshotNodes = int32(r.SnapshotNodes)
	msg := "evaluated on " + plural(r.SnapshotNodes, "node")
	if r.Pod != nil {
		st.Result = podResult(r.Pod, sr.Namespace, maxNodes(sr))
		switch {
		case st.Result.TiedNodes > 1:
			msg += "; the pod would go to one of " + strconv.Itoa(int(st.Result.TiedNodes)) + " nodes with the best score, at random, such as " + st.Result.SelectedNode
		case st.Result.SelectedNode != "":
			msg += "; the pod would go to " + st.Result.SelectedNode
		default:
			msg += "; no node fits"
		}
	}
	if r.Scenario != nil {
		st.Scenario = scenarioResult(r.Scenario, sr.Namespace, sr.Spec.Scenario.ReportBy)
		msg += "; " + scenarioMessage(st.Scenario)
	}
	if sr.Spec.PendingPods && r.Scenario == nil {
		st.WhatIf = whatIfResult(r.WhatIf, sr.Namespace)
		msg += "; " + strconv.Itoa(int(st.WhatIf.Placed)) + " of " + plural(int(st.WhatIf.PendingPods), "pending pod") + " would be placed"
		// --- pod groups
		if st.WhatIf.PendingGroups > 0 {
			msg += ", " + strconv.Itoa(int(st.WhatIf.PlacedGroups)) + " of " + plural(int(st.WhatIf.PendingGroups), "pod group")
		}
		// --- end pod groups
	}
	// --- pod groups
	if r.Group != nil {
		st.Group = groupResult(r.Group, sr.Namespace)
		msg += "; pod group " + st.Group.PodGroup + ": " + groupSummary(st.Group)
		if sr.Spec.PodName != "" {
			st.Result = memberResult(sr.Namespace, sr.Spec.PodName, st.Group)
		}
	}
	// --- end pod groups
	setCondition(&st.Conditions, sr.Generation, v1alpha1.ConditionComplete, metav1.ConditionTrue, v1alpha1.ReasonAnswered, msg, now)
	return st
}

// maxNodes is spec.maxNodes, 10 when unset.
func maxNodes(sr *v1alpha1.SchedulingReview) int {
	if sr.Spec.MaxNodes == nil {
		return 10
	}
	return int(*sr.Spec.MaxNodes)
}

// podResult bounds a pod's review for status: the first maxNodes feasible
// nodes in rank order, their scores a column per plugin, and rejected
// nodes grouped by plugin and reason, largest group first, each naming at
// most maxNodes nodes. Pods are named for a review of namespace: those
// of other namespaces (victims, an overcommitted node's pods) are
// counted.
func podResult(p *scheduler.PodReview, namespace string, maxNodes int) *v1alpha1.PodReviewResult {
	out := &v1alpha1.PodReviewResult{
		Pod:           p.Pod.Namespace + "/" + p.Pod.Name,
		Route:         p.Pod.Annotations[v1alpha1.RouteAnnotation],
		SelectedNode:  p.SelectedNode,
		Message:       p.Message,
		FeasibleNodes: int32(len(p.Feasible)),
		TiedNodes:     int32(p.Tied),
		BoundNode:     p.BoundNode,
	}
	if o := p.Overcommitted; o != nil {
		out.Overcommitted = o.Describe(namespace)
	}
	listed := p.Feasible
	if len(listed) > maxNodes {
		listed = listed[:maxNodes]
		out.UnlistedFeasibleNodes = int32(len(p.Feasible) - maxNodes)
	}
	column := map[string]int{}
	for i, n := range listed {
		out.Nodes = append(out.Nodes, v1alpha1.NodeScore{Node: n.Name, Rank: int32(i + 1), TotalScore: n.Total, NotSampled: !n.Sampled})
		for _, sc := range n.Scores {
			c, ok := column[sc.Name]
			if !ok {
				c = len(out.Scores)
				column[sc.Name] = c
				ps := v1alpha1.PluginScores{Plugin: sc.Name, Extender: sc.Extender, Weight: sc.Weight, Weighted: make([]int64, len(listed))}
				if !sc.Extender {
					ps.Raw, ps.Normalized = make([]int64, len(listed)), make([]int64, len(listed))
				}
				out.Scores = append(out.Scores, ps)
			}
			ps := &out.Scores[c]
			ps.Weighted[i] = sc.Weighted
			if ps.Raw != nil {
				ps.Raw[i], ps.Normalized[i] = sc.Raw, sc.Normalized
			}
		}
	}
	out.Rejected = groupRejections(p.Rejected, maxNodes)
	if p.NumFeasibleNodesToFind > 0 {
		out.Sampling = &v1alpha1.Sampling{
			NumFeasibleNodesToFind: int32(p.NumFeasibleNodesToFind),
			StartNode:              p.StartNode,
			AllNodes:               p.NumFeasibleNodesToFind >= len(p.Feasible)+len(p.Rejected),
		}
	}
	out.Preemption = preemptionResult(p.Preemption, namespace)
	return out
}

// preemptionResult is preemption's dry run for a review of namespace:
// the victims of namespace by name, the others counted.
func preemptionResult(pr *scheduler.PreemptionReview, namespace string) *v1alpha1.PreemptionResult {
	if pr == nil {
		return nil
	}
	out := &v1alpha1.PreemptionResult{Node: pr.Node, Message: pr.Message, NotEvaluated: pr.NotEvaluated}
	for _, v := range pr.Victims {
		if strings.HasPrefix(v, namespace+"/") {
			out.Victims = append(out.Victims, v)
		} else {
			out.OtherNamespaceVictims++
		}
	}
	return out
}

func groupRejections(rejected []scheduler.NodeRejection, maxNodes int) []v1alpha1.RejectedNodes {
	type key struct {
		plugin, reason string
		unresolvable   bool
	}
	groups := map[key]*v1alpha1.RejectedNodes{}
	var order []key
	for _, r := range rejected {
		k := key{r.Plugin, strings.Join(r.Reasons, "; "), r.Unresolvable}
		g := groups[k]
		if g == nil {
			g = &v1alpha1.RejectedNodes{Plugin: k.plugin, Reason: k.reason, Unresolvable: k.unresolvable}
			groups[k] = g
			order = append(order, k)
		}
		g.Count++
		if len(g.Nodes) < maxNodes {
			g.Nodes = append(g.Nodes, r.Node)
		}
	}
	out := make([]v1alpha1.RejectedNodes, 0, len(order))
	for _, k := range order {
		out = append(out, *groups[k])
	}
	slices.SortStableFunc(out, func(a, b v1alpha1.RejectedNodes) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Plugin, b.Plugin); c != 0 {
			return c
		}
		return cmp.Compare(a.Reason, b.Reason)
	})
	if len(out) > maxRejectionGroups {
		rest := v1alpha1.RejectedNodes{Reason: "(" + strconv.Itoa(len(out)-maxRejectionGroups+1) + " other reasons)"}
		for _, g := range out[maxRejectionGroups-1:] {
			rest.Count += g.Count
			for _, n := range g.Nodes {
				if len(rest.Nodes) < maxNodes {
					rest.Nodes = append(rest.Nodes, n)
				}
			}
		}
		out = append(out[:maxRejectionGroups-1], rest)
	}
	return out
}

// --- pod groups

// groupResult is a group's review as status gives it to a review of
// namespace.
func groupResult(g *scheduler.GroupReview, namespace string) *v1alpha1.GroupReviewResult {
	out := &v1alpha1.GroupReviewResult{PodGroup: g.Namespace + "/" + g.Name, MinCount: g.MinCount, Verdict: g.Reason, Message: g.Message}
	byNode := map[string][]string{}
	var order []string
	for _, m := range g.Members {
		if !m.Scheduled {
			out.Pending++
			if g.Placed() && m.Node != "" {
				out.Placed++
			}
		}
		if len(out.Members) < maxWhatIfPods {
			out.Members = append(out.Members, v1alpha1.GroupMemberResult{Pod: m.Name, Node: m.Node, Scheduled: m.Scheduled, NominatedNode: m.NominatedNode, Message: m.Message})
		}
		if m.Node != "" && !m.Scheduled {
			if byNode[m.Node] == nil {
				order = append(order, m.Node)
			}
			byNode[m.Node] = append(byNode[m.Node], m.Name)
		}
	}
	for _, n := range order {
		out.Nodes = append(out.Nodes, v1alpha1.GroupNodeResult{Node: n, Pods: byNode[n]})
	}
	slices.SortStableFunc(out.Nodes, func(a, b v1alpha1.GroupNodeResult) int {
		if c := cmp.Compare(len(b.Pods), len(a.Pods)); c != 0 {
			return c
		}
		return cmp.Compare(a.Node, b.Node)
	})
	out.Preemption = preemptionResult(g.Preemption, namespace)
	return out
}

// groupSummary says in a few words what the cycle would do with a group.
func groupSummary(g *v1alpha1.GroupReviewResult) string {
	switch g.Verdict {
	case "Scheduled":
		return "all " + plural(int(g.Pending), "pending member") + " would be placed"
	case scheduler.GroupWaiting:
		return "waiting, not attempted (" + g.Message + ")"
	case scheduler.GroupNothingPending:
		return "no member is pending"
	}
	return g.Verdict + " (" + g.Message + ")"
}

// memberResult is status.result of a review of a member: its outcome in
// its group's cycle.
func memberResult(namespace, name string, g *v1alpha1.GroupReviewResult) *v1alpha1.PodReviewResult {
	out := &v1alpha1.PodReviewResult{Pod: namespace + "/" + name}
	for _, m := range g.Members {
		if m.Pod != name {
			continue
		}
		if g.Verdict == "Scheduled" || m.Scheduled {
			out.SelectedNode = m.Node
		} else {
			out.Message = m.Message
		}
	}
	return out
}

// --- end pod groups

// whatIfResult counts every pod and lists those of namespace (a review
// shows its own namespace's pods only), at most maxWhatIfPods.
func whatIfResult(pods []scheduler.WhatIfPod, namespace string) *v1alpha1.WhatIfResult {
	out := &v1alpha1.WhatIfResult{PendingPods: int32(len(pods))}
	// --- pod groups: a group is placed when its members are (all or none).
	groups := sets.New[string]()
	// --- end pod groups
	for _, p := range pods {
		if p.Node != "" {
			out.Placed++
		}
		// --- pod groups
		if p.Group != "" {
			key := p.Namespace + "/" + p.Group
			if !groups.Has(key) {
				groups.Insert(key)
				out.PendingGroups++
				if p.Node != "" {
					out.PlacedGroups++
				}
			}
		}
		// --- end pod groups
		if p.Namespace != namespace || len(out.Pods) == maxWhatIfPods {
			continue
		}
		out.Pods = append(out.Pods, v1alpha1.WhatIfPod{Pod: p.Namespace + "/" + p.Name, Node: p.Node, Message: p.Message, PodGroup: p.Group})
	}
	return out
}

// finishedAt is when the review got its Complete or Failed condition.
func finishedAt(sr *v1alpha1.SchedulingReview) time.Time {
	if sr.Status.CompletionTime != nil {
		return sr.Status.CompletionTime.Time
	}
	for _, c := range sr.Status.Conditions {
		if c.Type == v1alpha1.ConditionComplete || c.Type == v1alpha1.ConditionFailed {
			return c.LastTransitionTime.Time
		}
	}
	return sr.CreationTimestamp.Time
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
