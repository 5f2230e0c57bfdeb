package scheduler

import (
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"
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
			c := podGroupCondition(tc.status)
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
			g.Expect(failedSchedulingMessage(st)).To(Equal(tc.wantMessage))
			if tc.wantNominee != "" {
				g.Expect(nominating.NominatedNodeName).To(Equal(tc.wantNominee))
			}
		})
	}
}

// TestMemberOrder: members of equal priority go by queue time (a
// review's: creation time), then name, whatever order they are listed in.
func TestMemberOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	member := func(name string, created time.Time) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: metav1.NewTime(created)},
			Spec:       v1.PodSpec{SchedulingGroup: &v1.PodSchedulingGroup{PodGroupName: ptr.To("pg")}},
		}
	}
	for _, tc := range []struct {
		name    string
		members []*v1.Pod
		want    []string
	}{
		{name: "same second: by name", members: []*v1.Pod{member("c", t0), member("a", t0), member("b", t0)}, want: []string{"a", "b", "c"}},
		{name: "older first", members: []*v1.Pod{member("a", t0.Add(time.Second)), member("b", t0)}, want: []string{"b", "a"}},
		{
			name:    "time, then name",
			members: []*v1.Pod{member("z", t0), member("y", t0.Add(2*time.Second)), member("x", t0.Add(2*time.Second)), member("w", t0.Add(time.Second))},
			want:    []string{"z", "w", "x", "y"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			pgi := &framework.QueuedPodGroupInfo{PodGroupInfo: &framework.PodGroupInfo{
				Namespace: "ns", Name: "pg", Type: fwk.PodGroupKeyType,
				PodGroup: &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg"}},
			}}
			for _, p := range tc.members {
				g.Expect(addMember(pgi, p)).To(Succeed())
			}
			var got []string
			for _, p := range pgi.QueuedPodInfos[pgKey(pgi.PodGroupInfo)] {
				got = append(got, p.Pod.Name)
			}
			g.Expect(got).To(Equal(tc.want))
			var unscheduled []string
			for _, p := range pgi.GetUnscheduledPods() {
				unscheduled = append(unscheduled, p.Name)
			}
			g.Expect(unscheduled).To(Equal(tc.want), "the pods PlacementFeasible counts, in the same order")
		})
	}
}
