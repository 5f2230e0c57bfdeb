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

package scheduler

import (
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// The verdicts a review reports are computed by the functions the live
// cycle writes them with: the PodGroup condition and each member's
// failure status.

func TestPodGroupCondition(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  *fwk.Status
		want    metav1.ConditionStatus
		reason  string
		message string
	}{
		{name: "fits", status: nil, want: metav1.ConditionTrue, reason: "Scheduled", message: ""},
		{
			name:    "minCount cannot be met, preemption did not help",
			status:  fwk.NewStatus(fwk.Unschedulable, "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining", "pod group preemption: no victims").WithError(errPodGroupUnschedulable),
			want:    metav1.ConditionFalse,
			reason:  "Unschedulable",
			message: "pod group is unschedulable, minCount (4) cannot be satisfied: 3 scheduled, 0 remaining, pod group preemption: no victims",
		},
		{name: "error", status: fwk.AsStatus(errors.New("boom")), want: metav1.ConditionFalse, reason: "SchedulerError", message: "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			c := PodGroupCondition(tc.status)
			g.Expect(c.Type).To(Equal("PodGroupInitiallyScheduled"))
			g.Expect(c.Status).To(Equal(tc.want))
			g.Expect(c.Reason).To(Equal(tc.reason))
			g.Expect(c.Message).To(Equal(tc.message))
		})
	}
}

func TestPodGroupMemberFailure(t *testing.T) {
	placed := algorithmResult{status: nil, scheduleResult: scheduleResult{suggestedHost: "n1"}}
	fitErr := fwk.NewStatus(fwk.Unschedulable, "0/2 nodes are available: 2 Insufficient cpu.")
	nominated := &fwk.NominatingInfo{NominatedNodeName: "n2", NominatingMode: fwk.ModeOverride}
	notPlaced := algorithmResult{status: fitErr}
	rejected := fwk.NewStatus(fwk.Unschedulable, "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining").WithError(errPodGroupUnschedulable)
	for _, tc := range []struct {
		name        string
		result      podGroupAlgorithmResult
		member      algorithmResult
		wantBind    bool
		wantMessage string
		wantNominee string
	}{
		{name: "group fits, member placed: it binds", result: podGroupAlgorithmResult{}, member: placed, wantBind: true},
		{name: "member not placed keeps its own status", result: podGroupAlgorithmResult{status: rejected}, member: notPlaced, wantMessage: fitErr.Message()},
		{
			name:        "placed member of a group that does not fit gets the group's message",
			result:      podGroupAlgorithmResult{status: rejected},
			member:      placed,
			wantMessage: "pod group is unschedulable, pod group is unschedulable, minCount (2) cannot be satisfied: 1 scheduled, 0 remaining",
		},
		{
			name:        "waiting on preemption: the group's status and the member's nomination",
			result:      podGroupAlgorithmResult{status: rejected, waitingOnPreemption: true},
			member:      algorithmResult{scheduleResult: scheduleResult{suggestedHost: "n1", nominatingInfo: nominated}},
			wantMessage: rejected.Message(),
			wantNominee: "n2",
		},
		{name: "group error", result: podGroupAlgorithmResult{status: fwk.AsStatus(errors.New("boom"))}, member: placed, wantMessage: "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			r := tc.result
			r.podResults = []algorithmResult{tc.member}
			st, nominating := podGroupMemberFailure(&r, 0)
			if tc.wantBind {
				g.Expect(st).To(BeNil())
				return
			}
			g.Expect(st).NotTo(BeNil())
			g.Expect(FailedSchedulingMessage(st)).To(Equal(tc.wantMessage))
			if tc.wantNominee != "" {
				g.Expect(nominating.NominatedNodeName).To(Equal(tc.wantNominee))
			}
		})
	}
}
