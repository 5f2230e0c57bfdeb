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
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// Health as metrics: at each scrape, the leader reads the SchedulerProfiles
// and ProfileRoutes from its cache and reports what their status says, in
// kube-state-metrics' shape. Nothing is kept between scrapes, so a deleted
// object's series are gone at the next scrape, and a standby replica (whose
// status would lag the leader's) reports none. Cardinality: per profile,
// three series per condition (Ready, Reconciling, Stalled: nine), one
// info series, two generations, one slow cycle and five rollout phases
// once rolled out: at most 18; per route, three per condition (nine);
// never per pod.
var (
	profileConditionDesc = prometheus.NewDesc("profile_scheduler_profile_condition",
		"Condition of a SchedulerProfile, by profile (object name), condition (Ready, Reconciling, Stalled) and status (True, False, Unknown): 1 for the status the condition has, 0 for the other two.",
		[]string{"profile", "condition", "status"}, nil)
	profileInfoDesc = prometheus.NewDesc("profile_scheduler_profile_info",
		"A SchedulerProfile and the schedulerName it claims (the profile label of the upstream scheduler metrics), always 1.",
		[]string{"profile", "scheduler_name"}, nil)
	profileServingGenerationDesc = prometheus.NewDesc("profile_scheduler_profile_serving_generation",
		"Generation of a SchedulerProfile that serves pods (status.activeGeneration), 0 when none does.",
		[]string{"profile"}, nil)
	profileCandidateGenerationDesc = prometheus.NewDesc("profile_scheduler_profile_candidate_generation",
		"Generation of a SchedulerProfile being rolled out (shadow or canary), 0 when no rollout is in progress.",
		[]string{"profile"}, nil)
	profileRolloutPhaseDesc = prometheus.NewDesc("profile_scheduler_profile_rollout_phase",
		"Phase of a SchedulerProfile's last rollout (status.rollout.phase: Progressing, Paused, Promoted, RolledBack, Aborted): 1 for its phase, 0 for the others; no series for a profile never rolled out.",
		[]string{"profile", "phase"}, nil)
	profileSlowCycleDesc = prometheus.NewDesc("profile_scheduler_profile_slow_cycle_seconds",
		"How long the scheduling cycle a SchedulerProfile's loop is stuck on has run (from status.loop.slowCycleSince, refreshed every 30 s), 0 when none has run for a second or more.",
		[]string{"profile"}, nil)
	routeConditionDesc = prometheus.NewDesc("profile_scheduler_route_condition",
		"Condition of a ProfileRoute, by route (object name), condition (Ready, Reconciling, Stalled) and status (True, False, Unknown): 1 for the status the condition has, 0 for the other two.",
		[]string{"route", "condition", "status"}, nil)
)

// healthListTimeout bounds the cache reads of one scrape.
const healthListTimeout = 5 * time.Second

var (
	conditionStatuses = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}
	rolloutPhases     = []string{v1alpha1.RolloutProgressing, v1alpha1.RolloutPaused, v1alpha1.RolloutPromoted, v1alpha1.RolloutRolledBack, v1alpha1.RolloutAborted}
)

// healthCollector reports the health of the objects its reader holds
// while leading says this replica leads.
type healthCollector struct {
	mu      sync.Mutex
	reader  client.Reader
	leading <-chan struct{}
}

// health is the one collector of the process, registered once; Setup
// points it at the manager it sets up (tests start several in turn).
var (
	health         = &healthCollector{}
	registerHealth sync.Once
)

// use makes the collector read from reader once leading is closed (nil:
// at once, as without leader election).
func (c *healthCollector) use(reader client.Reader, leading <-chan struct{}) {
	registerHealth.Do(func() { ctrlmetrics.Registry.MustRegister(health) })
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reader, c.leading = reader, leading
}

// Describe sends the descriptors of every health metric.
func (c *healthCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{profileConditionDesc, profileInfoDesc, profileServingGenerationDesc, profileCandidateGenerationDesc, profileRolloutPhaseDesc, profileSlowCycleDesc, routeConditionDesc} {
		ch <- d
	}
}

// Collect reads the profiles and routes and sends their series. A read
// that fails leaves its series out of this scrape.
func (c *healthCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	reader, leading := c.reader, c.leading
	c.mu.Unlock()
	if reader == nil || !closed(leading) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), healthListTimeout)
	defer cancel()
	var profiles v1alpha1.SchedulerProfileList
	if err := reader.List(ctx, &profiles); err == nil {
		for i := range profiles.Items {
			for _, m := range profileHealth(&profiles.Items[i], time.Now()) {
				ch <- m
			}
		}
	}
	var routes v1alpha1.ProfileRouteList
	if err := reader.List(ctx, &routes); err == nil {
		for i := range routes.Items {
			for _, m := range routeHealth(&routes.Items[i]) {
				ch <- m
			}
		}
	}
}

// closed reports whether ch is nil or closed.
func closed(ch <-chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// profileHealth is the series of one profile, from its status, at now.
func profileHealth(sp *v1alpha1.SchedulerProfile, now time.Time) []prometheus.Metric {
	st := sp.Status
	candidate := int64(0)
	if r := st.Rollout; r != nil && (r.Phase == v1alpha1.RolloutProgressing || r.Phase == v1alpha1.RolloutPaused) {
		candidate = r.Generation
	}
	slow := 0.0
	if l := st.Loop; l != nil && l.SlowCycleSince != nil {
		slow = max(0, now.Sub(l.SlowCycleSince.Time).Seconds())
	}
	out := conditionSeries(profileConditionDesc, sp.Name, st.Conditions)
	out = append(out,
		prometheus.MustNewConstMetric(profileInfoDesc, prometheus.GaugeValue, 1, sp.Name, sp.EffectiveSchedulerName()),
		prometheus.MustNewConstMetric(profileServingGenerationDesc, prometheus.GaugeValue, float64(st.ActiveGeneration), sp.Name),
		prometheus.MustNewConstMetric(profileCandidateGenerationDesc, prometheus.GaugeValue, float64(candidate), sp.Name),
		prometheus.MustNewConstMetric(profileSlowCycleDesc, prometheus.GaugeValue, slow, sp.Name))
	if st.Rollout != nil {
		for _, phase := range rolloutPhases {
			v := 0.0
			if st.Rollout.Phase == phase {
				v = 1
			}
			out = append(out, prometheus.MustNewConstMetric(profileRolloutPhaseDesc, prometheus.GaugeValue, v, sp.Name, phase))
		}
	}
	return out
}

// routeHealth is the series of one route, from its status.
func routeHealth(pr *v1alpha1.ProfileRoute) []prometheus.Metric {
	return conditionSeries(routeConditionDesc, pr.Name, pr.Status.Conditions)
}

// conditionSeries is, per kstatus condition the object has, one series per
// status: 1 for the condition's, 0 for the others. A condition the object
// does not have yet has no series.
func conditionSeries(desc *prometheus.Desc, name string, conditions []metav1.Condition) []prometheus.Metric {
	var out []prometheus.Metric
	for _, t := range []string{v1alpha1.ConditionReady, v1alpha1.ConditionReconciling, v1alpha1.ConditionStalled} {
		cond := meta.FindStatusCondition(conditions, t)
		if cond == nil {
			continue
		}
		for _, s := range conditionStatuses {
			v := 0.0
			if cond.Status == s {
				v = 1
			}
			out = append(out, prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, name, t, string(s)))
		}
	}
	return out
}
