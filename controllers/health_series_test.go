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
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// series renders metrics as `name{label=value,...} value` lines (labels
// in name order, as exposed), sorted.
func series(t *testing.T, ms []prometheus.Metric) []string {
	t.Helper()
	var out []string
	for _, m := range ms {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		name := m.Desc().String()
		name = name[strings.Index(name, `fqName: "`)+len(`fqName: "`):]
		name = name[:strings.Index(name, `"`)]
		var labels []string
		for _, l := range d.GetLabel() {
			labels = append(labels, l.GetName()+"="+l.GetValue())
		}
		out = append(out, name+"{"+strings.Join(labels, ",")+"} "+strconv.FormatFloat(d.GetGauge().GetValue(), 'g', -1, 64))
	}
	sort.Strings(out)
	return out
}

func TestProfileHealth(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cond := func(typ string, status metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: "Any"}
	}
	cases := []struct {
		name    string
		profile v1alpha1.SchedulerProfile
		want    []string
	}{{
		name:    "not reconciled yet: no condition, generation 0",
		profile: v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "new"}},
		want: []string{
			"profile_scheduler_profile_candidate_generation{profile=new} 0",
			"profile_scheduler_profile_info{profile=new,scheduler_name=new} 1",
			"profile_scheduler_profile_serving_generation{profile=new} 0",
			"profile_scheduler_profile_slow_cycle_seconds{profile=new} 0",
		},
	}, {
		name: "refused, stuck on a slow cycle for 90 s, its last rollout rolled back",
		profile: v1alpha1.SchedulerProfile{
			ObjectMeta: metav1.ObjectMeta{Name: "pack"},
			Spec:       v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("bin-packing")},
			Status: v1alpha1.SchedulerProfileStatus{
				ActiveGeneration: 3,
				Conditions:       []metav1.Condition{cond(v1alpha1.ConditionReady, metav1.ConditionFalse), cond(v1alpha1.ConditionStalled, metav1.ConditionTrue)},
				Loop:             &v1alpha1.LoopStatus{SlowCycleSince: &metav1.Time{Time: now.Add(-90 * time.Second)}},
				Rollout:          &v1alpha1.RolloutStatus{Generation: 4, Phase: v1alpha1.RolloutRolledBack},
			},
		},
		want: []string{
			"profile_scheduler_profile_candidate_generation{profile=pack} 0",
			"profile_scheduler_profile_condition{condition=Ready,profile=pack,status=False} 1",
			"profile_scheduler_profile_condition{condition=Ready,profile=pack,status=True} 0",
			"profile_scheduler_profile_condition{condition=Ready,profile=pack,status=Unknown} 0",
			"profile_scheduler_profile_condition{condition=Stalled,profile=pack,status=False} 0",
			"profile_scheduler_profile_condition{condition=Stalled,profile=pack,status=True} 1",
			"profile_scheduler_profile_condition{condition=Stalled,profile=pack,status=Unknown} 0",
			"profile_scheduler_profile_info{profile=pack,scheduler_name=bin-packing} 1",
			"profile_scheduler_profile_rollout_phase{phase=Aborted,profile=pack} 0",
			"profile_scheduler_profile_rollout_phase{phase=Paused,profile=pack} 0",
			"profile_scheduler_profile_rollout_phase{phase=Progressing,profile=pack} 0",
			"profile_scheduler_profile_rollout_phase{phase=Promoted,profile=pack} 0",
			"profile_scheduler_profile_rollout_phase{phase=RolledBack,profile=pack} 1",
			"profile_scheduler_profile_serving_generation{profile=pack} 3",
			"profile_scheduler_profile_slow_cycle_seconds{profile=pack} 90",
		},
	}, {
		name: "rolling out generation 5 beside generation 4",
		profile: v1alpha1.SchedulerProfile{
			ObjectMeta: metav1.ObjectMeta{Name: "spread"},
			Status: v1alpha1.SchedulerProfileStatus{
				ActiveGeneration: 4,
				Conditions:       []metav1.Condition{cond(v1alpha1.ConditionReconciling, metav1.ConditionTrue)},
				Rollout:          &v1alpha1.RolloutStatus{Generation: 5, Phase: v1alpha1.RolloutProgressing},
			},
		},
		want: []string{
			"profile_scheduler_profile_candidate_generation{profile=spread} 5",
			"profile_scheduler_profile_condition{condition=Reconciling,profile=spread,status=False} 0",
			"profile_scheduler_profile_condition{condition=Reconciling,profile=spread,status=True} 1",
			"profile_scheduler_profile_condition{condition=Reconciling,profile=spread,status=Unknown} 0",
			"profile_scheduler_profile_info{profile=spread,scheduler_name=spread} 1",
			"profile_scheduler_profile_rollout_phase{phase=Aborted,profile=spread} 0",
			"profile_scheduler_profile_rollout_phase{phase=Paused,profile=spread} 0",
			"profile_scheduler_profile_rollout_phase{phase=Progressing,profile=spread} 1",
			"profile_scheduler_profile_rollout_phase{phase=Promoted,profile=spread} 0",
			"profile_scheduler_profile_rollout_phase{phase=RolledBack,profile=spread} 0",
			"profile_scheduler_profile_serving_generation{profile=spread} 4",
			"profile_scheduler_profile_slow_cycle_seconds{profile=spread} 0",
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(series(t, profileHealth(&tc.profile, now))).To(Equal(tc.want))
		})
	}
}

// A hundred profiles, each with every condition and a rollout, and ten
// routes make 18 series a profile and 9 a route: the health metrics grow
// with objects, never with pods.
func TestHealthCardinality(t *testing.T) {
	g := NewWithT(t)
	conds := []metav1.Condition{
		{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue},
		{Type: v1alpha1.ConditionReconciling, Status: metav1.ConditionFalse},
		{Type: v1alpha1.ConditionStalled, Status: metav1.ConditionFalse},
	}
	n := 0
	for i := range 100 {
		sp := v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("profile-%d", i)},
			Status: v1alpha1.SchedulerProfileStatus{Conditions: conds, Rollout: &v1alpha1.RolloutStatus{Phase: v1alpha1.RolloutPromoted}}}
		n += len(profileHealth(&sp, time.Now()))
	}
	for i := range 10 {
		pr := v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("route-%d", i)}, Status: v1alpha1.ProfileRouteStatus{Conditions: conds}}
		n += len(routeHealth(&pr))
	}
	g.Expect(n).To(Equal(100*18 + 10*9))
}
