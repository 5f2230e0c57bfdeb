package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/stats"
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
