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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

func TestRouteStatus(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	active := routing.Verdict{Reason: v1alpha1.ReasonActive, SchedulerName: "bin-packing", ProfileServing: true, MatchedNamespaces: []string{"a", "b"}}
	type conds struct{ ready, reconciling, stalled, reason string }
	for _, tc := range []struct {
		name     string
		prev     v1alpha1.ProfileRouteStatus
		outcome  routeOutcome
		want     conds
		observed int64
		message  string
	}{{
		name:     "in force: Ready",
		outcome:  routeOutcome{Generation: 2, Verdict: active, InForce: true, Revision: "r1"},
		want:     conds{"True", "False", "False", v1alpha1.ReasonActive},
		observed: 2,
		message:  `get schedulerName "bin-packing"`,
	}, {
		name:     "stored but not in force: Reconciling, observedGeneration stays",
		prev:     v1alpha1.ProfileRouteStatus{ObservedGeneration: 1},
		outcome:  routeOutcome{Generation: 2, Verdict: active, Revision: "r1"},
		want:     conds{"False", "True", "False", v1alpha1.ReasonAdmissionPolicyNotInForce},
		observed: 1,
	}, {
		name: "hold with a profile that does not serve: Ready, and says pods wait",
		outcome: routeOutcome{Generation: 1, InForce: true, Revision: "r1",
			Verdict: routing.Verdict{Reason: v1alpha1.ReasonActive, SchedulerName: "bin-packing"}},
		want:     conds{"True", "False", "False", v1alpha1.ReasonActive},
		observed: 1,
		message:  "routed pods wait for it (whenProfileNotServing: Hold)",
	}, {
		name: "conflict: Stalled with the message",
		outcome: routeOutcome{Generation: 3, InForce: true, Revision: "r1",
			Verdict: routing.Verdict{Reason: v1alpha1.ReasonRouteConflict, Message: `the older ProfileRoute "x"`}},
		want:     conds{"False", "False", "True", v1alpha1.ReasonRouteConflict},
		observed: 3,
		message:  `generation 3 routes no pod: the older ProfileRoute "x"`,
	}, {
		name:     "stored but not run after a while: Stalled, saying what to check",
		outcome:  routeOutcome{Generation: 2, Verdict: active, NotInForce: true, Revision: "r1"},
		want:     conds{"False", "False", "True", v1alpha1.ReasonAdmissionPolicyNotInForce},
		observed: 2,
		message:  "admission plugin",
	}, {
		name:     "no MutatingAdmissionPolicy v1: Stalled, whatever the verdict",
		outcome:  routeOutcome{Generation: 1, Verdict: active, Unavailable: "not served"},
		want:     conds{"False", "False", "True", v1alpha1.ReasonAdmissionPolicyUnavailable},
		observed: 1,
		message:  "not served",
	}, {
		name:     "was in force, a probe shows another revision (the policy or binding changed): Stalled, saying what came back",
		outcome:  routeOutcome{Generation: 1, Verdict: active, PolicyName: "rel-routes", NotInForce: true, Revision: "r1", Seen: "r0"},
		want:     conds{"False", "False", "True", v1alpha1.ReasonAdmissionPolicyNotInForce},
		observed: 1,
		message:  "it came back with revision r0): check that the routes MutatingAdmissionPolicy and its binding rel-routes exist",
	}, {
		name: "table write refused: Stalled, quoting it",
		outcome: routeOutcome{Generation: 4, Verdict: active, InForce: true, Refusal: &policyRefusal{
			reason: v1alpha1.ReasonRoutingTableRefused, message: "kube-apiserver refused writing RoutingTable rel-routes: forbidden"}},
		want:     conds{"False", "False", "True", v1alpha1.ReasonRoutingTableRefused},
		observed: 4,
		message:  "refused writing RoutingTable rel-routes: forbidden",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			st := routeStatus(tc.prev, tc.outcome, now)
			get := func(typ string) *metav1.Condition {
				c := meta.FindStatusCondition(st.Conditions, typ)
				g.Expect(c).NotTo(BeNil(), typ)
				g.Expect(c.ObservedGeneration).To(Equal(tc.outcome.Generation))
				return c
			}
			ready := get(v1alpha1.ConditionReady)
			g.Expect(conds{string(ready.Status), string(get(v1alpha1.ConditionReconciling).Status),
				string(get(v1alpha1.ConditionStalled).Status), ready.Reason}).To(Equal(tc.want))
			g.Expect(ready.Message).To(ContainSubstring(tc.message))
			g.Expect(st.ObservedGeneration).To(Equal(tc.observed))
			g.Expect(tc.prev.Conditions).To(BeEmpty(), "the previous status is not changed")
		})
	}
}

func TestRouteStatusBoundsNamespaces(t *testing.T) {
	g := NewWithT(t)
	names := make([]string, 120)
	for i := range names {
		names[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	st := routeStatus(v1alpha1.ProfileRouteStatus{}, routeOutcome{Generation: 1, InForce: true,
		Verdict: routing.Verdict{Reason: v1alpha1.ReasonActive, MatchedNamespaces: names}}, metav1.Now())
	g.Expect(st.MatchedNamespaces.Count).To(BeEquivalentTo(120))
	g.Expect(st.MatchedNamespaces.Names).To(HaveLen(v1alpha1.MaxMatchedNamespaces))
}
