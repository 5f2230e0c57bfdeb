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

	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

func TestAnalyze(t *testing.T) {
	counts := func(attempts, unsched, errs int64, p99 time.Duration, latencies int) scheduler.GenerationCounts {
		return scheduler.GenerationCounts{Attempts: attempts, Unschedulable: unsched, Errors: errs, Bound: attempts - unsched - errs, LatencyP99: p99, LatencySamples: latencies}
	}
	tests := []struct {
		name     string
		analysis *v1alpha1.RolloutAnalysis
		shadow   bool
		window   scheduler.RolloutWindow
		verdict  string
		failed   string
	}{{
		name:    "canary as good as serving",
		window:  scheduler.RolloutWindow{Candidate: counts(20, 0, 0, 40*time.Millisecond, 20), Serving: counts(180, 0, 0, 30*time.Millisecond, 180)},
		verdict: verdictPass,
	}, {
		name:    "canary leaves its pods unschedulable",
		window:  scheduler.RolloutWindow{Candidate: counts(20, 20, 0, 0, 0), Serving: counts(180, 0, 0, 30*time.Millisecond, 180)},
		verdict: verdictFail,
		failed:  "UnschedulableRatio 11.00 > 1.50: new generation 20 of 20 attempts unschedulable, serving 0 of 180",
	}, {
		name:     "one unschedulable canary attempt within the bound",
		analysis: &v1alpha1.RolloutAnalysis{MaxUnschedulableRatio: ptr.To(3.0)},
		window:   scheduler.RolloutWindow{Candidate: counts(20, 1, 0, 40*time.Millisecond, 19), Serving: counts(20, 0, 0, 30*time.Millisecond, 20)},
		verdict:  verdictPass,
	}, {
		name:    "slow canary",
		window:  scheduler.RolloutWindow{Candidate: counts(20, 0, 0, 4*time.Second, 20), Serving: counts(180, 0, 0, 30*time.Millisecond, 180)},
		verdict: verdictFail,
		failed:  "LatencyP99Ratio 40.00 > 2.00: new generation p99 4s, serving 30ms",
	}, {
		name:    "latencies under 100ms are not a ratio",
		window:  scheduler.RolloutWindow{Candidate: counts(20, 0, 0, 90*time.Millisecond, 20), Serving: counts(180, 0, 0, 5*time.Millisecond, 180)},
		verdict: verdictPass,
	}, {
		name:    "errors fail a step short of samples",
		window:  scheduler.RolloutWindow{Candidate: counts(2, 0, 1, 0, 1), Serving: counts(180, 0, 0, 30*time.Millisecond, 180)},
		verdict: verdictFail,
		failed:  "Errors 1 > 0: the new generation's plugins, extenders or binds failed 1 times (serving: 0)",
	}, {
		name:    "too few samples",
		window:  scheduler.RolloutWindow{Candidate: counts(3, 3, 0, 0, 0), Serving: counts(30, 0, 0, 30*time.Millisecond, 30)},
		verdict: verdictInsufficient,
	}, {
		name:    "shadow agrees",
		shadow:  true,
		window:  scheduler.RolloutWindow{Shadow: scheduler.ShadowCounts{Judged: 50, ServingPlaced: 50, FeasibleWhereServingPlaced: 48, SameNode: 30}},
		verdict: verdictPass,
	}, {
		name:    "shadow disagrees",
		shadow:  true,
		window:  scheduler.RolloutWindow{Shadow: scheduler.ShadowCounts{Judged: 50, ServingPlaced: 40, FeasibleWhereServingPlaced: 20, WouldNotPlace: 20}},
		verdict: verdictFail,
		failed:  "ShadowAgreement 0.50 < 0.90: the new generation finds 20 of the 40 pods the serving one placed feasible on the same node",
	}, {
		name:    "shadow short of samples",
		shadow:  true,
		window:  scheduler.RolloutWindow{Shadow: scheduler.ShadowCounts{Judged: 4, ServingPlaced: 4}},
		verdict: verdictInsufficient,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := analyze(tt.analysis, tt.shadow, tt.window)
			if got.verdict != tt.verdict {
				t.Fatalf("verdict %s, want %s (metrics %+v)", got.verdict, tt.verdict, got.metrics)
			}
			if got.failed != tt.failed && tt.verdict == verdictFail {
				t.Errorf("failed:\n got %q\nwant %q", got.failed, tt.failed)
			}
		})
	}
}

func TestDecideStep(t *testing.T) {
	steps := func(n int) []v1alpha1.RolloutStep {
		out := make([]v1alpha1.RolloutStep, n)
		for i := range out {
			out[i] = v1alpha1.RolloutStep{Canary: &v1alpha1.CanaryStep{Percent: 10}}
		}
		return out
	}
	failedUnschedulable := analysis{verdict: verdictFail, failed: "UnschedulableRatio 11.00 > 1.50"}
	tests := []struct {
		name       string
		spec       v1alpha1.Rollout
		step       int
		extensions int32
		analysis   analysis
		want       stepDecision
	}{{
		name:     "a step that passed leads to the next",
		spec:     v1alpha1.Rollout{Steps: steps(3)},
		analysis: analysis{verdict: verdictPass},
		want:     stepDecision{stepNext, "step 1 passed its analysis"},
	}, {
		name:     "the last step that passed promotes",
		spec:     v1alpha1.Rollout{Steps: steps(3)},
		step:     2,
		analysis: analysis{verdict: verdictPass},
		want:     stepDecision{stepPromote, "step 3 passed its analysis"},
	}, {
		name:     "a failed step rolls back",
		spec:     v1alpha1.Rollout{Steps: steps(2)},
		step:     1,
		analysis: failedUnschedulable,
		want:     stepDecision{stepRollBack, "UnschedulableRatio 11.00 > 1.50"},
	}, {
		name:     "a failed step holds the rollout with onFailure Pause",
		spec:     v1alpha1.Rollout{Steps: steps(2), OnFailure: v1alpha1.RolloutPause},
		analysis: failedUnschedulable,
		want:     stepDecision{stepHold, "paused at step 1: UnschedulableRatio 11.00 > 1.50"},
	}, {
		name:       "too few samples extend the step",
		spec:       v1alpha1.Rollout{Steps: steps(2)},
		extensions: 1,
		analysis:   analysis{verdict: verdictInsufficient},
		want:       stepDecision{stepExtend, "step 1 extended (2 of 3): fewer than 10 samples"},
	}, {
		name:       "too few samples after the last extension fail the step",
		spec:       v1alpha1.Rollout{Steps: steps(2)},
		extensions: 3,
		analysis:   analysis{verdict: verdictInsufficient},
		want:       stepDecision{stepRollBack, "fewer than 10 samples after 3 extensions of step 1 (onInsufficientSamples: Fail)"},
	}, {
		name:     "too few samples after the last extension hold with onFailure Pause",
		spec:     v1alpha1.Rollout{Steps: steps(2), OnFailure: v1alpha1.RolloutPause, Analysis: &v1alpha1.RolloutAnalysis{MaxExtensions: ptr.To[int32](0)}},
		analysis: analysis{verdict: verdictInsufficient},
		want:     stepDecision{stepHold, "paused at step 1: fewer than 10 samples after 0 extensions of step 1 (onInsufficientSamples: Fail)"},
	}, {
		name:     "too few samples pass with onInsufficientSamples Pass",
		spec:     v1alpha1.Rollout{Steps: steps(1), Analysis: &v1alpha1.RolloutAnalysis{MaxExtensions: ptr.To[int32](0), OnInsufficientSamples: "Pass"}},
		analysis: analysis{verdict: verdictInsufficient},
		want:     stepDecision{stepPromote, "step 1 passed with fewer than 10 samples (onInsufficientSamples: Pass)"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideStep(&tt.spec, tt.step, tt.extensions, tt.analysis); got != tt.want {
				t.Errorf("decideStep = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		45 * time.Second: "45s", 3 * time.Minute: "3m", 200 * time.Second: "3m20s", 2 * time.Hour: "2h", 150 * time.Minute: "2h30m",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
