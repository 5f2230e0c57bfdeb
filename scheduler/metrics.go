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
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// metricsPrefix selects the upstream scheduler metrics in the legacy
// registry (which also holds client-go and process metrics that
// controller-runtime already exports).
const metricsPrefix = "scheduler_"

// operatorMetricsNamespace prefixes the metrics of this project.
const operatorMetricsNamespace = "profile_scheduler"

var (
	// profileSwaps counts frameworks swapped in, per schedulerName.
	profileSwaps = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "profile_swaps_total",
		Help:      "Frameworks built and swapped in, by profile (schedulerName).",
	}, []string{"profile"})

	// profileSwapDuration observes how long Apply takes, per
	// schedulerName and result (swapped, failed).
	profileSwapDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "profile_swap_duration_seconds",
		Help:      "Time to build a profile's framework and swap it in, by profile and result.",
		Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"profile", "result"})

	// bindChecksRefused counts the pods the check before binding refused
	// (bindcheck.go), per profile and refusing plugin (NodeGone when the
	// node left the cache).
	bindChecksRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_checks_refused_total",
		Help:      "Pods not bound because their node no longer had room for them just before the bind, by profile and refusing plugin.",
	}, []string{"profile", "plugin"})

	// bindCheckSettles counts the pods checked a second time, after a
	// settle, because they take their node's last room while another
	// scheduler binds.
	bindCheckSettles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_check_settles_total",
		Help:      "Pods checked again after a settle, before binding, because they take their node's last room while another scheduler binds, by profile.",
	}, []string{"profile"})

	// bindCheckDuration observes each check before binding, per profile
	// (its count is the number of checks).
	bindCheckDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_check_duration_seconds",
		Help:      "Time to check a pod against its node just before binding it, by profile.",
		Buckets:   []float64{.00001, .000025, .00005, .0001, .00025, .0005, .001, .0025, .01, .025, .05, .1, .25, .5, 1},
	}, []string{"profile"})

	// loopsRunning counts the scheduling loops that run: one per served
	// profile, or one in all with profile loops off.
	loopsRunning = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "scheduling_loops",
		Help:      "Scheduling loops running: one per served profile, or one for all profiles with --profile-loops=false.",
	})

	// loopBusySeconds and loopWaitSeconds split a loop's time between
	// scheduling cycles and waiting for a pod, per loop (its profile's
	// schedulerName; "" for the one loop of every profile).
	loopBusySeconds = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "scheduling_loop_busy_seconds_total",
		Help:      "Time a scheduling loop spent in scheduling cycles, by loop (the profile's schedulerName; empty for the one loop of every profile).",
	}, []string{"loop"})
	loopWaitSeconds = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "scheduling_loop_wait_seconds_total",
		Help:      "Time a scheduling loop waited for a pod to schedule, by loop (the profile's schedulerName; empty for the one loop of every profile).",
	}, []string{"loop"})

	// loopAssumeConflicts counts the pods that lost their node's room to
	// another profile's loop at assume and were scheduled again at once.
	loopAssumeConflicts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "scheduling_loop_assume_conflicts_total",
		Help:      "Pods whose node's room another profile's loop took between their cycle's snapshot and their assume, scheduled again at once, by profile.",
	}, []string{"profile"})

	// reviewFrameworkBuilds counts the frameworks built for reviews
	// (BuildFramework, host.go): one per live profile generation reviewed,
	// one per draft review, one per run of a scenario.
	reviewFrameworkBuilds = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "review_framework_builds_total",
		Help:      "Frameworks built for SchedulingReviews (one per profile generation reviewed, per draft review, per scenario run).",
	})

	// reviewFrameworksOpen counts the review frameworks not closed yet.
	reviewFrameworksOpen = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "review_frameworks_open",
		Help:      "Frameworks built for SchedulingReviews and not closed yet.",
	})

	// rolloutCandidatePercent is, per profile, the share of pods its
	// rollout's candidate schedules: 0 in a shadow step, -1 when no
	// rollout runs.
	rolloutCandidatePercent = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "rollout_candidate_percent",
		Help:      "Share of a profile's pods its rollout's new generation schedules: 0 in a shadow step, -1 when no rollout runs.",
	}, []string{"profile"})

	// rolloutAttempts counts, while a profile is rolled out, the
	// scheduling attempts of each of its generations by result.
	rolloutAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "rollout_generation_attempts_total",
		Help:      "Scheduling attempts of each generation of a profile being rolled out (generation: serving or candidate), by result (scheduled, unschedulable, error; panic counts a plugin's panic within an attempt).",
	}, []string{"profile", "generation", "result"})

	// rolloutLatency observes, while a profile is rolled out, each
	// generation's time from a pod's first attempt to its bind.
	rolloutLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "rollout_generation_scheduling_duration_seconds",
		Help:      "Time from a pod's first scheduling attempt to its bind, for each generation of a profile being rolled out (serving or candidate).",
		Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"profile", "generation"})

	// activeProfiles reads the live profile maps of the schedulers of
	// this process when scraped.
	activeProfiles = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "active_profiles",
		Help:      "Profiles (schedulerNames) served now.",
	}, countServedProfiles)
)

// live holds the schedulers of this process from New until their shutdown
// (one in the operator; tests run several).
var live = struct {
	sync.Mutex
	schedulers map[*Scheduler]struct{}
}{schedulers: map[*Scheduler]struct{}{}}

func trackLive(s *Scheduler) {
	live.Lock()
	defer live.Unlock()
	live.schedulers[s] = struct{}{}
}

func untrackLive(s *Scheduler) {
	live.Lock()
	defer live.Unlock()
	delete(live.schedulers, s)
}

// countServedProfiles is the value of active_profiles: the size of each
// live scheduler's published profile map.
func countServedProfiles() float64 {
	live.Lock()
	defer live.Unlock()
	n := 0
	for s := range live.schedulers {
		n += len(*s.profiles.Load())
	}
	return float64(n)
}

// observeSwap records one Apply of schedulerName that began at start.
func observeSwap(schedulerName string, start time.Time, err error) {
	result := "swapped"
	if err != nil {
		result = "failed"
	} else {
		profileSwaps.WithLabelValues(schedulerName).Inc()
	}
	profileSwapDuration.WithLabelValues(schedulerName, result).Observe(time.Since(start).Seconds())
}

var registerMetrics sync.Once

// registerMetricsOnControllerRuntime registers this package's metrics on
// controller-runtime's registry (served on the manager's /metrics), and
// makes the upstream scheduler metrics, which upstream registers on
// component-base's legacy registry, visible there too.
func registerMetricsOnControllerRuntime() {
	registerMetrics.Do(func() {
		ctrlmetrics.Registry.MustRegister(rolloutCandidatePercent, rolloutAttempts, rolloutLatency, profileSwaps, profileSwapDuration, activeProfiles, bindChecksRefused, bindCheckSettles, bindCheckDuration, nodeOvercommits, overcommittedNodes,
			reviewFrameworkBuilds, reviewFrameworksOpen, loopsRunning, loopBusySeconds, loopWaitSeconds, loopAssumeConflicts,
			arbiterDecisions, arbiterDecisionDuration, arbiterHolds, arbiterHoldsExpired)
		_ = ctrlmetrics.Registry.Register(legacyBridge{gatherer: legacyregistry.DefaultGatherer, prefix: metricsPrefix})
	})
}

// legacyBridge re-exports gathered metric families as an unchecked
// collector: it describes nothing, and on Collect hands over every gathered
// sample as is.
type legacyBridge struct {
	gatherer prometheus.Gatherer
	prefix   string
}

func (legacyBridge) Describe(chan<- *prometheus.Desc) {}

func (b legacyBridge) Collect(ch chan<- prometheus.Metric) {
	families, err := b.gatherer.Gather()
	if err != nil && len(families) == 0 {
		return
	}
	for _, mf := range families {
		if !strings.HasPrefix(mf.GetName(), b.prefix) {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := make([]string, 0, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName())
			}
			ch <- gatheredMetric{desc: prometheus.NewDesc(mf.GetName(), mf.GetHelp(), labels, nil), metric: m}
		}
	}
}

// gatheredMetric is one already-gathered sample.
type gatheredMetric struct {
	desc   *prometheus.Desc
	metric *dto.Metric
}

func (g gatheredMetric) Desc() *prometheus.Desc { return g.desc }

func (g gatheredMetric) Write(out *dto.Metric) error {
	out.Label = g.metric.Label
	out.Counter = g.metric.Counter
	out.Gauge = g.metric.Gauge
	out.Histogram = g.metric.Histogram
	out.Summary = g.metric.Summary
	out.Untyped = g.metric.Untyped
	out.TimestampMs = g.metric.TimestampMs
	return nil
}

// observeGeneration exports one attempt of a generation being rolled out.
func observeGeneration(profile, role string, o outcome, latency time.Duration) {
	switch o {
	case outcomeBound:
		rolloutAttempts.WithLabelValues(profile, role, "scheduled").Inc()
		rolloutLatency.WithLabelValues(profile, role).Observe(latency.Seconds())
	case outcomeUnschedulable:
		rolloutAttempts.WithLabelValues(profile, role, "unschedulable").Inc()
	case outcomeError:
		rolloutAttempts.WithLabelValues(profile, role, "error").Inc()
	}
}

// forgetProfileSeries removes the series of a removed profile from every
// metric of this package labelled by profile (or by its loop), so that a
// deleted profile leaves no series behind at the next scrape. Upstream's
// scheduler_* series labelled by profile are upstream's and stay, as in
// kube-scheduler.
func forgetProfileSeries(name string) {
	byProfile := prometheus.Labels{"profile": name}
	for _, v := range []*prometheus.MetricVec{
		profileSwaps.MetricVec, profileSwapDuration.MetricVec, bindChecksRefused.MetricVec, bindCheckSettles.MetricVec,
		bindCheckDuration.MetricVec, loopAssumeConflicts.MetricVec, rolloutCandidatePercent.MetricVec,
		rolloutAttempts.MetricVec, rolloutLatency.MetricVec,
		ExtenderCalls.MetricVec, ExtenderErrors.MetricVec, ExtenderCallDuration.MetricVec,
	} {
		v.DeletePartialMatch(byProfile)
	}
	byLoop := prometheus.Labels{"loop": name}
	loopBusySeconds.DeletePartialMatch(byLoop)
	loopWaitSeconds.DeletePartialMatch(byLoop)
}
