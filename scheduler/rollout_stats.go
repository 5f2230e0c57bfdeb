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
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// What a generation did while its profile is rolled out: its outcomes and
// latencies over a window, which a rollout's analysis compares with the
// other generation's (Scheduler.Window).

// GenerationCounts are a generation's outcomes over a window.
type GenerationCounts struct {
	// Attempts are bound, unschedulable or failed with an error. Errors
	// also count the panics of its plugins in parallel workers, within
	// an attempt counted otherwise.
	Attempts, Bound, Unschedulable, Errors int64
	// LatencyP99 from a pod's first attempt to its bind, over the
	// LatencySamples last pods bound in the window.
	LatencyP99     time.Duration
	LatencySamples int
}

// RolloutWindow is a window of a rollout step.
type RolloutWindow struct {
	Serving, Candidate GenerationCounts
	Shadow             ShadowCounts
	// Matched counts the attempts a canary step's selector matched.
	Matched int64
}

// generationStats counts a generation's outcomes since its window began,
// while a rollout runs (role set): outside a rollout the scheduling cycle
// pays a nil check and one lock, and keeps no latencies.
type generationStats struct {
	// mu guards every field below; a leaf lock.
	mu        sync.Mutex
	counts    GenerationCounts
	latencies []time.Duration
	next      int
	// role is serving or candidate while the generation's profile is
	// rolled out, empty otherwise; profile is its schedulerName.
	role, profile string
}

// maxLatencySamples bounds the latencies kept per window (the last ones).
const maxLatencySamples = 4096

// outcome of one attempt.
type outcome int

const (
	outcomeBound outcome = iota
	outcomeUnschedulable
	outcomeError
)

func (g *generationStats) record(o outcome, latency time.Duration) {
	if g == nil {
		return
	}
	g.mu.Lock()
	role, profile := g.role, g.profile
	if role == "" {
		g.mu.Unlock()
		return
	}
	g.counts.Attempts++
	switch o {
	case outcomeBound:
		g.counts.Bound++
		if len(g.latencies) < maxLatencySamples {
			g.latencies = append(g.latencies, latency)
		} else {
			g.latencies[g.next] = latency
			g.next = (g.next + 1) % maxLatencySamples
		}
	case outcomeUnschedulable:
		g.counts.Unschedulable++
	case outcomeError:
		g.counts.Errors++
	}
	g.mu.Unlock()
	observeGeneration(profile, role, o, latency)
}

// panicked counts a plugin's panic in a parallel worker of an attempt
// counted by its outcome.
func (g *generationStats) panicked() {
	g.mu.Lock()
	role, profile := g.role, g.profile
	if role != "" {
		g.counts.Errors++
	}
	g.mu.Unlock()
	if role != "" {
		rolloutAttempts.WithLabelValues(profile, role, "panic").Inc()
	}
}

// setRole starts counting the generation as role of profile's rollout in
// a new window, or stops counting it (role empty) and drops its counts.
func (g *generationStats) setRole(profile, role string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.profile, g.role = profile, role
	g.counts, g.latencies, g.next = GenerationCounts{}, nil, 0
}

// window returns the counts since the window began, and starts a new one
// when reset.
func (g *generationStats) window(reset bool) GenerationCounts {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.counts
	c.LatencySamples = len(g.latencies)
	if n := len(g.latencies); n > 0 {
		sorted := slices.Clone(g.latencies)
		slices.Sort(sorted)
		c.LatencyP99 = sorted[min(n-1, (n*99+99)/100-1)]
	}
	if reset {
		g.counts, g.latencies, g.next = GenerationCounts{}, nil, 0
	}
	return c
}

// Metrics of the generations of a profile being rolled out.
var (
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
)

// rolloutCollectors are the metrics declared here (registerMetrics).
func rolloutCollectors() []prometheus.Collector {
	return []prometheus.Collector{rolloutCandidatePercent, rolloutAttempts, rolloutLatency}
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

// ShadowCounts count what the candidate judged in a shadow window.
type ShadowCounts struct {
	Judged, SameNode, FeasibleWhereServingPlaced, ServingPlaced, WouldPlace, WouldNotPlace int64
	// Skipped: pods (and groups) offered while the shadow's queue was
	// full.
	Skipped int64
	// Groups count the pod groups judged, apart from pods: a group's
	// members are judged together, all or nothing.
	Groups ShadowGroupCounts
	// Disagreements are the first pods judged otherwise.
	Disagreements []ShadowDisagreement
}

// ShadowGroupCounts count the pod groups a shadow judged: those the
// serving generation placed (every member), of them those the candidate
// places too, those it places nowhere, and those the serving generation
// could not place that the candidate would.
type ShadowGroupCounts struct {
	Judged, ServingPlaced, PlacedWhereServingPlaced, WouldPlace, WouldNotPlace int64
}

// ShadowDisagreement is a pod the candidate judged otherwise.
type ShadowDisagreement struct {
	Pod, ServingNode, NewNode, Plugin string
}
