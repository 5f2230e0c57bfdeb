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

package review

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The metrics reviews produce. The frameworks they build are counted
// where they are built (scheduler.Scheduler.BuildFramework:
// profile_scheduler_review_framework_builds_total and
// _review_frameworks_open).
var (
	// reviewSnapshots counts the review snapshots made (snapshots.go):
	// one per review answered at the same time and one for the shadows,
	// unless restoring one failed.
	reviewSnapshots = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "profile_scheduler",
		Name:      "review_snapshots_total",
		Help:      "Snapshots of the cache made for SchedulingReviews and rollouts' shadows, kept for the next ones: one per review answered at the same time, at most --review-concurrency, and one for the shadows; more means restoring one failed.",
	})

	// scenarioRunDuration observes each run of a review's scenario (one
	// per count a minimize search tries).
	scenarioRunDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: "profile_scheduler",
		Name:      "review_scenario_run_duration_seconds",
		Help:      "Time to run a SchedulingReview's scenario once: its snapshot and framework built, every pod placed (a minimize search runs several).",
		Buckets:   []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	})
)

var registerOnce sync.Once

// registerMetrics registers this package's metrics on controller-runtime's
// registry (served on the manager's /metrics), once.
func registerMetrics() {
	registerOnce.Do(func() {
		ctrlmetrics.Registry.MustRegister(reviewSnapshots, scenarioRunDuration)
	})
}
