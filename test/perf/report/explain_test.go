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

package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

func thrRun(avg, cpu float64) *harness.Run {
	return &harness.Run{Case: "explain", Scheduler: harness.Ours, Mode: harness.ModeThroughput, MeasuredPods: 400, Bound: 400,
		Throughput: stats.Throughput{Average: avg, P50: avg, P90: avg, P99: avg}, CPUSeconds: cpu}
}

func TestExplainRatio(t *testing.T) {
	pairs := []harness.ExplainPair{
		{Without: thrRun(100, 1), With: thrRun(90, 1)},
		{Without: thrRun(200, 1), With: thrRun(200, 1)},
		{Without: thrRun(150, 1), With: thrRun(147, 1)},
		// Not compared: one run missing, one failed, one with no throughput.
		{Without: thrRun(100, 1)},
		{Without: thrRun(100, 1), With: &harness.Run{Error: "boom", Throughput: stats.Throughput{Average: 1000}}},
		{Without: thrRun(0, 1), With: thrRun(50, 1)},
	}
	v, lo, hi, n := ExplainRatio(pairs)
	if n != 3 {
		t.Fatalf("compared %d pairs, want 3", n)
	}
	// Medians: with 147 (of 90, 147, 200), without 150 (of 100, 150, 200).
	if math.Abs(v-147.0/150) > 1e-9 || math.Abs(lo-0.9) > 1e-9 || math.Abs(hi-1) > 1e-9 {
		t.Errorf("ratio %v (%v–%v), want %v (0.9–1)", v, lo, hi, 147.0/150)
	}
	if v, _, _, n := ExplainRatio(pairs[3:]); n != 0 || !math.IsNaN(v) {
		t.Errorf("no comparable pair gave %v over %d pairs", v, n)
	}
}

func explainReport(with float64) *Report {
	return &Report{
		Started:  time.Unix(0, 0),
		Settings: harness.Settings{QPS: 5000, Burst: 5000, Parallelism: 16},
		Explains: []*harness.ExplainRun{{
			Scheduler: harness.Ours,
			Rate:      10,
			Sizes: []harness.ReviewLatency{
				{Nodes: 500, Reviews: harness.ReviewCounts{Created: 50, Complete: 50}, Millis: stats.Summary{N: 50, P50: 12, P90: 20, P99: 31, Max: 31},
					CPUMillisPerReview: harness.ReviewCPU{APIServer: 10.66, Etcd: 1.2, Scheduler: 3.04}},
				{Nodes: 5000, Reviews: harness.ReviewCounts{Created: 50, Complete: 49, Failed: 1, FirstFailure: "review-3: EvaluationFailed: x"},
					Millis: stats.Summary{N: 50, P50: 80, P90: 110, P99: 140, Max: 150}},
			},
			Pairs: []harness.ExplainPair{{
				Without: thrRun(200, 0.8), With: thrRun(with, 1.0),
				Reviews: harness.ReviewCounts{Created: 20, Complete: 20}, Millis: stats.Summary{P50: 15, P99: 40},
			}},
		}},
	}
}

func TestExplainMarkdown(t *testing.T) {
	md := markdown(t, explainReport(194))
	for _, want := range []string{
		"## SchedulingReview (explain)",
		"upstream kube-scheduler has no SchedulingReview",
		"| 500 | 50 | 50 / 0 / 0 | 12 / 20 / 31 / 31 | 10.7 / 1.2 / 3.0 |",
		"| 5000 | 50 | 49 / 1 / 0 | 80 / 110 / 140 / 150 | 0.0 / 0.0 / 0.0 |",
		"| 1 | 400 | 200.0 (200/200/200) | 194.0 (194/194/194) | 0.97 | 2.00 / 2.50 | 20 / 20 / 0 | 15 / 40 |",
		"- 5000 nodes: failed review review-3: EvaluationFailed: x",
		"| explain: create→Complete p50 / p99, 500 nodes | reported | 12 / 31 ms (50 of 50 complete) | yes |",
		"| explain: create→Complete p50 / p99, 5000 nodes | reported | 80 / 140 ms (49 of 50 complete) | **no** |",
		"| explain: throughput with 10 reviews/s / without | >= 0.95 | 0.97 | yes |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	md = markdown(t, explainReport(180))
	if want := "| explain: throughput with 10 reviews/s / without | >= 0.95 | 0.90 | **no** |"; !strings.Contains(md, want) {
		t.Errorf("report lacks %q:\n%s", want, md)
	}
}

func profiled(cpu, scenario, controller, perPod, locks, held float64, heldWaits int64) *harness.OperatorProfile {
	return &harness.OperatorProfile{CPUSeconds: cpu, ScenarioCPUSeconds: scenario, ReviewControllerCPUSeconds: controller, LiveCPUMillisPerPod: perPod,
		Locks: harness.LockSplit{Contentions: 10, DelaySeconds: locks, ReviewHeldContentions: heldWaits, ReviewHeldDelaySeconds: held,
			CycleWaits: 2, CycleWaitSeconds: locks / 4}}
}

func scenarioReport(withPerPod float64, heldWaits int64) *Report {
	rep := explainReport(194)
	withRun := thrRun(150, 3)
	withRun.LatencyMillis = stats.Summary{P99: 900}
	withoutRun := thrRun(200, 2)
	withoutRun.LatencyMillis = stats.Summary{P99: 600}
	rep.Explains[0].ScenarioPairs = []harness.ScenarioPair{
		{
			Without: withoutRun, With: withRun,
			WithoutProfile: profiled(2.1, 0, 0, 5, 0.004, 0, 0),
			WithProfile:    profiled(3.2, 1.1, 0.05, withPerPod, 0.0125, 0.002*float64(heldWaits), heldWaits),
			Scenarios:      harness.ReviewCounts{Created: 12, Complete: 12}, Millis: stats.Summary{P50: 180, P99: 260},
		},
		// Not compared: the run with failed.
		{Without: thrRun(200, 2), With: &harness.Run{Error: "boom"}, WithoutProfile: profiled(2, 0, 0, 5, 0, 0, 0),
			WithProfile: &harness.OperatorProfile{Error: "CPU profile: connection refused"}},
	}
	return rep
}

func TestScenarioPairsMarkdown(t *testing.T) {
	md := markdown(t, scenarioReport(5.1, 0))
	for _, want := range []string{
		"A capacity scenario beside the scheduling cycle",
		"| 1 | 400 | 200.0 / 150.0 (0.75) | 600.0 / 900.0 (1.50) | 5.0 / 5.1 (1.02) | 1.10 / 0.05 | 12 / 12 / 0, 180 / 260 | 4.0 / 12.5, 0.0 | 1.0 / 3.1 |",
		"| 2 | 400 | 200.0 / 0.0 (–) | 0.0 / 0.0 (–) | 5.0 / – (–) | – | 0 / 0 / 0, 0 / 0 | 0.0 / –, – | 0.0 / – |",
		"- scenario pair 2, with: CPU profile: connection refused",
		"| explain: live cycle's CPU per pod with a drain scenario beside / without | <= 1.05 | 1.02 | yes |",
		"| explain: throughput / p99 latency with a drain scenario beside / without | reported | 0.75 / 1.50 | yes |",
		"| explain: lock waits on locks a scenario held (mutex profile) | none | 0.0 ms in 0 waits (of 12.5 ms of lock waits); the cycle's lock waits 3.1 ms with, 1.0 without; 1 pairs | yes |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	md = markdown(t, scenarioReport(5.5, 3))
	for _, want := range []string{
		"| explain: live cycle's CPU per pod with a drain scenario beside / without | <= 1.05 | 1.10 | **no** |",
		"| explain: lock waits on locks a scenario held (mutex profile) | none | 6.0 ms in 3 waits (of 12.5 ms of lock waits); the cycle's lock waits 3.1 ms with, 1.0 without; 1 pairs | **no** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestScenarioRatios(t *testing.T) {
	pair := func(thrWo, thrW, perPodWo, perPodW float64) harness.ScenarioPair {
		return harness.ScenarioPair{Without: thrRun(thrWo, 1), With: thrRun(thrW, 1),
			WithoutProfile: profiled(1, 0, 0, perPodWo, 0, 0, 0), WithProfile: profiled(1, 0.5, 0, perPodW, 0, 0, 0)}
	}
	noProfile := pair(80, 60, 4, 4)
	noProfile.WithProfile = &harness.OperatorProfile{Error: "x"}
	thr, _, cpu := ScenarioRatios([]harness.ScenarioPair{pair(100, 90, 4, 4.4), pair(200, 190, 5, 5), pair(150, 150, 6, 6.3), noProfile})
	// Medians (nearest rank): with 90 (of 60, 90, 150, 190), without 100
	// (of 80, 100, 150, 200).
	if thr.N != 4 || math.Abs(thr.V-0.9) > 1e-9 || math.Abs(thr.Lo-0.75) > 1e-9 || math.Abs(thr.Hi-1) > 1e-9 {
		t.Errorf("throughput %+v, want 0.9 (0.75–1) over 4 pairs", thr)
	}
	// Medians: with 5 (of 4.4, 5, 6.3), without 5 (of 4, 5, 6).
	if cpu.N != 3 || math.Abs(cpu.V-1) > 1e-9 || math.Abs(cpu.Lo-1) > 1e-9 || math.Abs(cpu.Hi-1.1) > 1e-9 {
		t.Errorf("CPU %+v, want 1 (1–1.1) over 3 pairs", cpu)
	}
}
