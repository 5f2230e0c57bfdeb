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
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// refusedGenerations counts SchedulerProfile generations refused, per
// profile and reason (the Ready condition's reason). The reconciler counts
// a generation once, however often it is reconciled.
var refusedGenerations = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "profile_scheduler",
	Name:      "refused_generations_total",
	Help:      "SchedulerProfile generations refused, by profile (object name) and reason.",
}, []string{"profile", "reason"})

// rolloutOutcomes counts the rollouts that ended, per profile and
// outcome (promoted, rolled_back, aborted, superseded).
var rolloutOutcomes = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "profile_scheduler",
	Name:      "rollout_outcomes_total",
	Help:      "Rollouts of SchedulerProfile generations that ended, by profile (object name) and outcome (promoted, rolled_back, aborted, superseded).",
}, []string{"profile", "outcome"})

// rolloutStepGauge is, per profile, the step of its rollout in progress
// (1-based), 0 when none is.
var rolloutStepGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Namespace: "profile_scheduler",
	Name:      "rollout_step",
	Help:      "Step of the rollout in progress of a SchedulerProfile (1-based), 0 when none is.",
}, []string{"profile"})

var registerMetrics sync.Once

// registerMetricsOnControllerRuntime registers the controllers' metrics on
// controller-runtime's registry (served on the manager's /metrics), once.
func registerMetricsOnControllerRuntime() {
	registerMetrics.Do(func() {
		ctrlmetrics.Registry.MustRegister(refusedGenerations, rolloutOutcomes, rolloutStepGauge)
	})
}

// forgetProfileSeries removes the series of a deleted profile, so that no
// alert keeps firing on a profile that is gone.
func forgetProfileSeries(profile string) {
	match := prometheus.Labels{"profile": profile}
	refusedGenerations.DeletePartialMatch(match)
	rolloutOutcomes.DeletePartialMatch(match)
	rolloutStepGauge.DeletePartialMatch(match)
}
