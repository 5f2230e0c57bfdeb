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

package controllers

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// groupQuestion is a review of a PodGroup (spec.podGroupName): what the
// pod-group cycle would decide for the group.
type groupQuestion struct{}

func (groupQuestion) request(sr *v1alpha1.SchedulingReview, _ metav1.Time, req *review.Request) *Refusal {
	req.PodNamespace, req.PodGroupName = sr.Namespace, sr.Spec.PodGroupName
	return nil
}

func (groupQuestion) answer(sr *v1alpha1.SchedulingReview, r *review.Answer, st *v1alpha1.SchedulingReviewStatus) string {
	st.Group = groupResult(r.Group, sr.Namespace)
	return "pod group " + st.Group.PodGroup + ": " + groupSummary(st.Group)
}

func (groupQuestion) notFound(_ *v1alpha1.SchedulingReview, err error) string {
	return "spec.podGroupName: " + err.Error()
}

// groupResult is a group's review as status gives it to a review of
// namespace.
func groupResult(g *review.GroupAnswer, namespace string) *v1alpha1.GroupReviewResult {
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
	case review.GroupWaiting:
		return "waiting, not attempted (" + g.Message + ")"
	case review.GroupNothingPending:
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
