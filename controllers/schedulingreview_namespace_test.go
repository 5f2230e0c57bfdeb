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
	"encoding/json"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// TestReviewNamesOnlyItsNamespace: a review answers a tenant allowed to
// create reviews in its own namespace, so no field of its status names a
// pod of another namespace; those are counted. The namespace "finance"
// and its pod names must appear nowhere in the status of a review of
// "team", whichever field could carry them.
func TestReviewNamesOnlyItsNamespace(t *testing.T) {
	pod := func(ns, name, scheduler string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1.PodSpec{SchedulerName: scheduler}}
	}
	web := pod("team", "web", "bin-packing")
	preemption := &review.Preemption{Node: "n1", Victims: []string{"finance/payroll-db-0", "team/batch-1", "finance/payroll-db-1"}}
	for _, tc := range []struct {
		name   string
		spec   v1alpha1.SchedulingReviewSpec
		review review.Answer
		// want are substrings of the status's JSON: the own pods named,
		// the others counted.
		want []string
	}{
		{
			name:   "explain: preemption victims",
			spec:   v1alpha1.SchedulingReviewSpec{PodName: "web"},
			review: review.Answer{Pod: &review.PodAnswer{Pod: web, Message: "0/1 nodes are available", Preemption: preemption}},
			want:   []string{`"victims":["team/batch-1"]`, `"otherNamespaceVictims":2`},
		},
		{
			name: "explain of a bound pod: the overcommitted node's pods",
			spec: v1alpha1.SchedulingReviewSpec{PodName: "web"},
			review: review.Answer{Pod: &review.PodAnswer{Pod: web, SelectedNode: "n1", BoundNode: "n1", Overcommitted: &scheduler.Overcommit{
				Over: "cpu 5 > 4",
				Pods: []*v1.Pod{pod("finance", "payroll-db-0", "default-scheduler"), web, pod("finance", "payroll-db-1", "default-scheduler")},
			}}},
			want: []string{`"overcommitted":"cpu 5 \u003e 4; bound pods: team/web (bin-packing), 2 pods of other namespaces"`},
		},
		{
			name: "a pod group: workload-aware preemption's victims",
			spec: v1alpha1.SchedulingReviewSpec{PodGroupName: "train"},
			review: review.Answer{Group: &review.GroupAnswer{Namespace: "team", Name: "train", Reason: "Unschedulable", Message: "m",
				Members: []review.GroupMember{{Name: "train-0", Message: "no"}}, Preemption: preemption}},
			want: []string{`"victims":["team/batch-1"]`, `"otherNamespaceVictims":2`},
		},
		{
			name: "what-if: the pending pods",
			spec: v1alpha1.SchedulingReviewSpec{PendingPods: true},
			review: review.Answer{WhatIf: []review.WhatIfPod{
				{Namespace: "finance", Name: "payroll-db-0", Node: "n1", Group: "payroll-db"},
				{Namespace: "team", Name: "web", Node: "n2"},
				{Namespace: "finance", Name: "payroll-db-1", Message: "no"},
			}},
			want: []string{`"pendingPods":3`, `"pod":"team/web"`},
		},
		{
			name: "a scenario: drained, pending and added pods, and groups",
			spec: v1alpha1.SchedulingReviewSpec{PendingPods: true, Scenario: &v1alpha1.ReviewScenario{}},
			review: review.Answer{Scenario: &review.ScenarioAnswer{
				Pods: []review.ScenarioPod{
					{WhatIfPod: review.WhatIfPod{Namespace: "finance", Name: "payroll-db-0", Node: "n2"}, Source: review.SourceEvicted, FromNode: "n1"},
					{WhatIfPod: review.WhatIfPod{Namespace: "finance", Name: "payroll-db-1", Message: "no", Group: "payroll-db"}, Source: review.SourcePending},
					{WhatIfPod: review.WhatIfPod{Namespace: "team", Name: "web", Node: "n2"}, Source: review.SourceEvicted, FromNode: "n1"},
				},
				Groups: []review.GroupOutcome{{Namespace: "finance", Name: "payroll-db", MinCount: 2, Members: 2}, {Namespace: "team", Name: "extra", MinCount: 1, Members: 1, Placed: 1}},
			}},
			want: []string{`"pods":3`, `"evicted":2`, `"pod":"team/web"`, `"group":"team/extra"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			sr := &v1alpha1.SchedulingReview{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "r"}, Spec: tc.spec}
			st := reviewStatus(sr, reviewOutcome{review: &tc.review, profile: "bin-packing"}, metav1.Now())
			raw, err := json.Marshal(st)
			g.Expect(err).NotTo(HaveOccurred())
			for _, leak := range []string{"finance", "payroll"} {
				g.Expect(strings.Contains(string(raw), leak)).To(BeFalse(), "the status names %q: %s", leak, raw)
			}
			for _, w := range tc.want {
				g.Expect(string(raw)).To(ContainSubstring(w))
			}
		})
	}
}
