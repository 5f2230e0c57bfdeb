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
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

func TestLookAt(t *testing.T) {
	counts := func(attempts, unsched, errs int64) scheduler.GenerationCounts {
		return scheduler.GenerationCounts{Attempts: attempts, Unschedulable: unsched, Errors: errs, Bound: attempts - unsched - errs}
	}
	tests := []struct {
		name     string
		analysis *v1alpha1.RolloutAnalysis
		shadow   bool
		window   scheduler.RolloutWindow
		looks    int
		verdict  string
		failed   string
	}{{
		name:    "an error past maxErrors is certain at the first look",
		window:  scheduler.RolloutWindow{Candidate: counts(1, 0, 1), Serving: counts(10, 0, 0)},
		looks:   60,
		verdict: verdictFail,
		failed:  "Errors 1 > 0",
	}, {
		name:    "ten canary attempts, all unschedulable, against none of the serving one's: certain",
		window:  scheduler.RolloutWindow{Candidate: counts(10, 10, 0), Serving: counts(90, 0, 0)},
		looks:   60,
		verdict: verdictFail,
		failed:  "UnschedulableRatio",
	}, {
		name:    "fewer than minSamples attempts: nothing is certain",
		window:  scheduler.RolloutWindow{Candidate: counts(9, 9, 0), Serving: counts(90, 0, 0)},
		looks:   60,
		verdict: verdictPending,
	}, {
		name:    "past the bound by its point estimate, not at the edge of its interval: the step's end judges",
		window:  scheduler.RolloutWindow{Candidate: counts(20, 3, 0), Serving: counts(180, 5, 0)},
		looks:   60,
		verdict: verdictPending,
	}, {
		name:    "a canary as good as serving",
		window:  scheduler.RolloutWindow{Candidate: counts(200, 10, 0), Serving: counts(1800, 90, 0)},
		looks:   60,
		verdict: verdictPending,
	}, {
		name:    "a shadow that finds none of the serving generation's nodes feasible",
		shadow:  true,
		window:  scheduler.RolloutWindow{Shadow: scheduler.ShadowCounts{Judged: 20, ServingPlaced: 20}},
		looks:   60,
		verdict: verdictFail,
		failed:  "ShadowAgreement",
	}, {
		name:     "a shadow just under its bound: the step's end judges",
		shadow:   true,
		analysis: &v1alpha1.RolloutAnalysis{MinShadowAgreement: ptr.To(0.9)},
		window:   scheduler.RolloutWindow{Shadow: scheduler.ShadowCounts{Judged: 20, ServingPlaced: 20, FeasibleWhereServingPlaced: 17}},
		looks:    60,
		verdict:  verdictPending,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := lookAt(tt.analysis, tt.shadow, tt.window, tt.looks)
			if a.verdict != tt.verdict {
				t.Fatalf("verdict %s (%s), want %s", a.verdict, a.failed, tt.verdict)
			}
			if !strings.Contains(a.failed, tt.failed) {
				t.Errorf("failed %q, want it to name %q", a.failed, tt.failed)
			}
			for _, m := range a.metrics {
				if m.Verdict != verdictFail && m.Verdict != verdictPending {
					t.Errorf("metric %s judged %s while the step runs: only Fail or Pending", m.Metric, m.Verdict)
				}
			}
		})
	}
}

// TestLooksDoNotAddFalseRollbacks measures the sequential rule: a
// canary exactly as good as serving, and one exactly at the bound, each
// looked at sixty times as its window fills, are failed by some look in
// at most interimAlpha of the runs, however many looks there are.
func TestLooksDoNotAddFalseRollbacks(t *testing.T) {
	const runs, looks, perLook = 2000, 60, 10
	rng := rand.New(rand.NewSource(1))
	b := boundsOf(nil)
	// At the bound: (c+floor)/(s+floor) = maxUnschedulableRatio.
	const servingRate = 0.05
	atBound := b.maxUnschedulableRatio*(servingRate+unschedulableFloor) - unschedulableFloor
	for _, tc := range []struct {
		name          string
		candidateRate float64
	}{{"as good as serving", servingRate}, {"exactly at the bound", atBound}} {
		failedRuns := 0
		for range runs {
			var c, s scheduler.GenerationCounts
			for range looks {
				for range perLook {
					c.Attempts++
					if rng.Float64() < tc.candidateRate {
						c.Unschedulable++
					}
				}
				for range 9 * perLook {
					s.Attempts++
					if rng.Float64() < servingRate {
						s.Unschedulable++
					}
				}
				if lookAt(nil, false, scheduler.RolloutWindow{Candidate: c, Serving: s}, looks).verdict == verdictFail {
					failedRuns++
					break
				}
			}
		}
		rate := float64(failedRuns) / runs
		t.Logf("%s (unschedulable %.3f against %.3f): %d of %d runs failed by a look (%.3f)", tc.name, tc.candidateRate, servingRate, failedRuns, runs, rate)
		if rate > interimAlpha {
			t.Errorf("%s: %.3f of the runs failed by a look, want at most %.2f", tc.name, rate, interimAlpha)
		}
	}
}

func TestWilson(t *testing.T) {
	z := zScore(0.025)
	if math.Abs(z-1.96) > 0.01 {
		t.Fatalf("zScore(0.025) = %.4f, want 1.96", z)
	}
	// Wilson's interval for 0 of 10 at 95%: [0, 0.278].
	if low, high := wilson(0, 10, z); low != 0 || math.Abs(high-0.2775) > 0.001 {
		t.Errorf("wilson(0, 10) = [%.4f, %.4f], want [0, 0.2775]", low, high)
	}
	if low, high := wilson(0, 0, z); low != 0 || high != 1 {
		t.Errorf("wilson(0, 0) = [%.4f, %.4f], want [0, 1]", low, high)
	}
	if n := looksIn(10*time.Minute, 10*time.Second); n != 60 {
		t.Errorf("looksIn(10m, 10s) = %d, want 60", n)
	}
}
