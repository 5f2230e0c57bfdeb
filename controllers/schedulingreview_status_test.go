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
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

func TestPodResultBoundsAndGroups(t *testing.T) {
	g := NewWithT(t)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}}
	var feasible []review.NodeResult
	for i, n := range []string{"a", "b", "c", "d"} {
		feasible = append(feasible, review.NodeResult{Name: n, Total: int64(100 - i), Sampled: i < 3, Scores: []review.ScoreDetail{
			{Name: "NodeResourcesFit", Raw: 50, Normalized: 50, Weight: 2, Weighted: 100 - int64(i)},
			{Name: "http://extender", Extender: true, Weighted: 7},
		}})
	}
	var rejected []review.NodeRejection
	for i := range 5 {
		rejected = append(rejected, review.NodeRejection{Node: "cpu-" + string(rune('0'+i)), Plugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}})
	}
	rejected = append(rejected, review.NodeRejection{Node: "t", Plugin: "TaintToleration", Reasons: []string{"node(s) had untolerated taint(s)"}, Unresolvable: true})

	got := podResult(&review.PodAnswer{Pod: pod, SelectedNode: "a", Feasible: feasible, Rejected: rejected, NumFeasibleNodesToFind: 3, StartNode: "b"}, "ns", 2)
	g.Expect(got.Pod).To(Equal("ns/web"))
	g.Expect(got.FeasibleNodes).To(BeEquivalentTo(4))
	g.Expect(got.Nodes).To(HaveLen(2))
	g.Expect(got.UnlistedFeasibleNodes).To(BeEquivalentTo(2))
	g.Expect(got.Nodes).To(Equal([]v1alpha1.NodeScore{{Node: "a", Rank: 1, TotalScore: 100}, {Node: "b", Rank: 2, TotalScore: 99}}))
	g.Expect(got.Scores).To(Equal([]v1alpha1.PluginScores{
		{Plugin: "NodeResourcesFit", Weight: 2, Raw: []int64{50, 50}, Normalized: []int64{50, 50}, Weighted: []int64{100, 99}},
		{Plugin: "http://extender", Extender: true, Weighted: []int64{7, 7}},
	}))
	g.Expect(got.Rejected).To(Equal([]v1alpha1.RejectedNodes{
		{Plugin: "NodeResourcesFit", Reason: "Insufficient cpu", Count: 5, Nodes: []string{"cpu-0", "cpu-1"}},
		{Plugin: "TaintToleration", Reason: "node(s) had untolerated taint(s)", Unresolvable: true, Count: 1, Nodes: []string{"t"}},
	}))
	g.Expect(got.Sampling).To(Equal(&v1alpha1.Sampling{NumFeasibleNodesToFind: 3, StartNode: "b"}))
	g.Expect(got.Route).To(BeEmpty(), "a pod no route rewrote")

	routed := pod.DeepCopy()
	routed.Annotations = map[string]string{v1alpha1.RouteAnnotation: "batch"}
	g.Expect(podResult(&review.PodAnswer{Pod: routed}, "ns", 2).Route).To(Equal("batch"))

	a := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Spec: v1.PodSpec{SchedulerName: "x"}}
	over := podResult(&review.PodAnswer{Pod: pod, BoundNode: "n1", Overcommitted: &scheduler.Overcommit{Over: "cpu 5 > 4", Pods: []*v1.Pod{a}}}, "ns", 2)
	g.Expect(over.BoundNode).To(Equal("n1"))
	g.Expect(over.Overcommitted).To(Equal("cpu 5 > 4; bound pods: ns/a (x)"))
}

func TestRejectionGroupsAreBounded(t *testing.T) {
	g := NewWithT(t)
	var rejected []review.NodeRejection
	for i := range 5000 {
		rejected = append(rejected, review.NodeRejection{Node: fmt.Sprintf("n%04d", i), Plugin: "http://extender", Reasons: []string{fmt.Sprintf("no GPU on n%04d", i)}})
	}
	got := groupRejections(rejected, 3)
	g.Expect(got).To(HaveLen(maxRejectionGroups))
	last := got[maxRejectionGroups-1]
	g.Expect(last.Reason).To(Equal("(4981 other reasons)"))
	g.Expect(last.Count).To(BeEquivalentTo(4981))
	g.Expect(last.Nodes).To(HaveLen(3))
	var total int32
	for _, grp := range got {
		total += grp.Count
	}
	g.Expect(total).To(BeEquivalentTo(5000))
}

func TestReviewStatus(t *testing.T) {
	now := metav1.Now()
	sr := &v1alpha1.SchedulingReview{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Generation: 2}, Spec: v1alpha1.SchedulingReviewSpec{PendingPods: true}}
	for name, tc := range map[string]struct {
		outcome    reviewOutcome
		condition  string
		reason     string
		message    string
		wantWhatIf *v1alpha1.WhatIfResult
	}{
		"failed": {
			outcome:   failed(v1alpha1.ReasonPodNotFound, "spec.podName: no pod"),
			condition: v1alpha1.ConditionFailed, reason: v1alpha1.ReasonPodNotFound, message: "spec.podName: no pod",
		},
		"what-if lists the review's namespace only": {
			outcome: reviewOutcome{review: &review.Answer{SchedulerName: "s", SnapshotNodes: 3, WhatIf: []review.WhatIfPod{
				{Namespace: "ns", Name: "a", Node: "n1"},
				{Namespace: "other", Name: "b", Node: "n2"},
				{Namespace: "ns", Name: "c", Message: "0/3 nodes are available"},
			}}, profile: "p", generation: 4},
			condition: v1alpha1.ConditionComplete, reason: v1alpha1.ReasonAnswered,
			message: "evaluated on 3 nodes; 2 of 3 pending pods would be placed",
			wantWhatIf: &v1alpha1.WhatIfResult{PendingPods: 3, Placed: 2, Pods: []v1alpha1.WhatIfPod{
				{Pod: "ns/a", Node: "n1"}, {Pod: "ns/c", Message: "0/3 nodes are available"},
			}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			st := reviewStatus(sr, tc.outcome, now)
			g.Expect(st.ObservedGeneration).To(BeEquivalentTo(2))
			g.Expect(st.Conditions).To(HaveLen(1))
			c := st.Conditions[0]
			g.Expect(c.Type).To(Equal(tc.condition))
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(c.Reason).To(Equal(tc.reason))
			g.Expect(c.Message).To(Equal(tc.message))
			g.Expect(c.ObservedGeneration).To(BeEquivalentTo(2))
			g.Expect(st.WhatIf).To(Equal(tc.wantWhatIf))
			g.Expect(st.CompletionTime).To(Equal(&now))
		})
	}
}

func TestGroupStatus(t *testing.T) {
	members := []review.GroupMember{
		{Name: "w-0", Node: "a", Message: "pod group is unschedulable, minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"},
		{Name: "w-1", Node: "b", Message: "pod group is unschedulable, minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"},
		{Name: "w-2", Node: "b", Message: "pod group is unschedulable, minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"},
		{Name: "w-3", Message: "0/2 nodes are available: 2 Insufficient cpu."},
		{Name: "w-9", Node: "c", Scheduled: true},
	}
	for _, tc := range []struct {
		name       string
		review     review.GroupAnswer
		placed     int32
		nodes      []v1alpha1.GroupNodeResult
		summary    string
		member     string
		memberNode string
		memberMsg  string
		victims    []string
	}{
		{
			name:    "unschedulable: nodes list where the algorithm put them, nothing is placed",
			review:  review.GroupAnswer{Namespace: "ns", Name: "train", MinCount: 4, Reason: "Unschedulable", Message: "m", Members: members, Preemption: &review.Preemption{Victims: []string{"ns/low"}}},
			nodes:   []v1alpha1.GroupNodeResult{{Node: "b", Pods: []string{"w-1", "w-2"}}, {Node: "a", Pods: []string{"w-0"}}},
			summary: "Unschedulable (m)",
			member:  "w-3", memberMsg: "0/2 nodes are available: 2 Insufficient cpu.",
			victims: []string{"ns/low"},
		},
		{
			name:   "scheduled: every pending member is placed",
			review: review.GroupAnswer{Namespace: "ns", Name: "train", Reason: "Scheduled", Members: []review.GroupMember{{Name: "w-0", Node: "a"}, {Name: "w-1", Node: "a"}, {Name: "w-9", Node: "c", Scheduled: true}}},
			placed: 2, nodes: []v1alpha1.GroupNodeResult{{Node: "a", Pods: []string{"w-0", "w-1"}}},
			summary: "all 2 pending members would be placed",
			member:  "w-1", memberNode: "a",
		},
		{
			name:    "waiting",
			review:  review.GroupAnswer{Namespace: "ns", Name: "train", Reason: review.GroupWaiting, Message: "GangScheduling: waiting", Members: []review.GroupMember{{Name: "w-0", Message: "GangScheduling: waiting"}}},
			summary: "waiting, not attempted (GangScheduling: waiting)",
			member:  "w-0", memberMsg: "GangScheduling: waiting",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got := groupResult(&tc.review, "ns")
			g.Expect(got.PodGroup).To(Equal("ns/train"))
			g.Expect(got.Verdict).To(Equal(tc.review.Reason))
			g.Expect(got.Message).To(Equal(tc.review.Message))
			g.Expect(got.Placed).To(Equal(tc.placed))
			g.Expect(got.Nodes).To(Equal(tc.nodes))
			g.Expect(groupSummary(got)).To(Equal(tc.summary))
			if tc.victims != nil {
				g.Expect(got.Preemption.Victims).To(Equal(tc.victims))
			}
			m := memberResult("ns", tc.member, got)
			g.Expect(m.SelectedNode).To(Equal(tc.memberNode))
			g.Expect(m.Message).To(Equal(tc.memberMsg))
		})
	}
}

func TestWhatIfCountsGroups(t *testing.T) {
	g := NewWithT(t)
	got := whatIfResult([]review.WhatIfPod{
		{Namespace: "ns", Name: "a-0", Node: "n1", Group: "a"},
		{Namespace: "ns", Name: "a-1", Node: "n1", Group: "a"},
		{Namespace: "ns", Name: "b-0", Group: "b", Message: "no"},
		{Namespace: "ns", Name: "b-1", Group: "b", Message: "no"},
		{Namespace: "other", Name: "a-0", Node: "n2", Group: "a"},
		{Namespace: "ns", Name: "solo", Node: "n2"},
	}, "ns")
	g.Expect(got.PendingPods).To(BeEquivalentTo(6))
	g.Expect(got.Placed).To(BeEquivalentTo(4))
	g.Expect(got.PendingGroups).To(BeEquivalentTo(3), "ns/a, ns/b and other/a")
	g.Expect(got.PlacedGroups).To(BeEquivalentTo(2))
	g.Expect(got.Pods[0].PodGroup).To(Equal("a"))
}
