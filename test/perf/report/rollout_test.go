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

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

func shadowRun(podsPerSec, cpuSeconds float64, bound int) *harness.Run {
	return &harness.Run{Throughput: stats.Throughput{Average: podsPerSec}, CPUSeconds: cpuSeconds, Bound: bound}
}

func TestShadowCost(t *testing.T) {
	pairs := []harness.ShadowPair{
		{Without: shadowRun(200, 2, 400), With: shadowRun(180, 2.4, 400), ShadowCPUSeconds: 0.3},
		{Without: shadowRun(200, 2, 400), With: shadowRun(200, 2.2, 400), ShadowCPUSeconds: 0.2},
		{Without: shadowRun(200, 2, 400), With: shadowRun(100, 4, 400), ShadowCPUSeconds: 1},
		{Without: shadowRun(200, 2, 400), With: nil}, // cut short: left out
	}
	thr, cpu, sh, n := ShadowCost(pairs)
	if n != 3 || math.Abs(thr-0.9) > 1e-9 || math.Abs(cpu-1.2) > 1e-9 || math.Abs(sh-0.3) > 1e-9 {
		t.Errorf("ShadowCost = %.2f, %.2f, %.2f, %d; want the medians 0.90, 1.20, 0.30 of 3 pairs", thr, cpu, sh, n)
	}
	if _, _, _, n := ShadowCost(nil); n != 0 {
		t.Errorf("no pair: n = %d", n)
	}
}

func TestRolloutChecks(t *testing.T) {
	r := &Report{Rollouts: []*harness.RolloutRun{{
		Scheduler:   harness.Ours,
		ShadowPairs: []harness.ShadowPair{{Without: shadowRun(200, 2, 400), With: shadowRun(196, 2.2, 400), ShadowCPUSeconds: 0.3}},
		Blast: []*harness.BlastRun{
			{Percent: 10, StepSeconds: 600, Phase: "RolledBack", ToRollbackMillis: 10500, FirstFailureMillis: 1200, FailureToRollbackMillis: 9300,
				CreatedSinceChange: 250, Blast: harness.BlastCounts{WentPending: 12, Affected: 20}},
			{FirstFailureMillis: 300, FailureToRollbackMillis: -1, Blast: harness.BlastCounts{WentPending: 150, Affected: 300, PendingAtEnd: 150}},
		},
		Promote: &harness.PromoteRun{Phase: "Promoted", ToPromotedMillis: 21000, Changes: []harness.RolloutChange{
			{What: "change applied (step 1)", GapMillis: 60}, {What: "step 2: canary 50%", GapMillis: 140}, {What: "promoted", GapMillis: 50}}},
	}}}
	met := map[string]bool{}
	for _, c := range r.rolloutChecks() {
		met[c.what] = c.ok
	}
	for what, want := range map[string]bool{
		"rollout: throughput with a shadow step / without":                                 true,
		"rollout: CPU per pod with a shadow step / without":                                true,
		"rollout: bad change with canary 10% rolled back":                                  true,
		"rollout: bad change with a canary: rolled back within 15 s of its first failures": true,
		"rollout: good change: no false rollback":                                          true, // Promote alone: a report before goodRepeat
		"rollout: pods gone pending outside the canary's share":                            true,
		"rollout: canary's pods pending at the end / bound twice":                          true,
		"rollout: pods affected by the bad change, canary / at once":                       true,
		"rollout: good change promoted":                                                    true,
		"rollout: good change pods lost / bound twice":                                     true,
		"rollout: longest no-bind gap at a step change":                                    false, // 140 ms at the canary step
	} {
		if got, ok := met[what]; !ok || got != want {
			t.Errorf("%s: met %v (present %v), want %v", what, got, ok, want)
		}
	}
	var b strings.Builder
	r.writeRollout(&b)
	for _, want := range []string{"## Progressive rollout (rollout)", "| canary 10% (600 s step) |", "| 10500 | 1200 | 9300 | 0 | RolledBack |",
		"| at once |", "| – | 300 | – | – |  |", "| step 2: canary 50% | 0.0 | 140 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the section lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "rolled out 1 times") {
		t.Errorf("one run of the good change gets a summary of its runs:\n%s", b.String())
	}
}

// A canary rolled back too late after its first failures, or whose first
// failure was not seen, misses the 15 s target.
func TestRolloutFailureToRollback(t *testing.T) {
	for _, tc := range []struct {
		ms   float64
		want bool
	}{{0, true}, {15000, true}, {15001, false}, {-1, false}} {
		r := &Report{Rollouts: []*harness.RolloutRun{{Scheduler: harness.Ours,
			Blast: []*harness.BlastRun{{Percent: 10, Phase: "RolledBack", FailureToRollbackMillis: tc.ms}}}}}
		found := false
		for _, c := range r.rolloutChecks() {
			if c.what == "rollout: bad change with a canary: rolled back within 15 s of its first failures" {
				found = true
				if c.ok != tc.want {
					t.Errorf("%.0f ms: met %v, want %v (%s)", tc.ms, c.ok, tc.want, c.got)
				}
			}
		}
		if !found {
			t.Errorf("%.0f ms: no row", tc.ms)
		}
	}
}

func TestRolloutGoodRepeats(t *testing.T) {
	promoted := &harness.PromoteRun{Phase: "Promoted", ToPromotedMillis: 21000}
	r := &Report{Rollouts: []*harness.RolloutRun{{Scheduler: harness.Ours, Promote: promoted, Promotes: []*harness.PromoteRun{
		promoted, {Phase: "Promoted"}, {Phase: "RolledBack", Message: "unschedulable ratio 1.8 > 1.5"}, {Phase: "Promoted"},
		{Error: "rollout state not seen after 70s"},
	}}}}
	var row *targetRow
	for _, c := range r.rolloutChecks() {
		if c.what == "rollout: good change: no false rollback" {
			row = &c
		}
	}
	if row == nil || row.ok || row.got != "1 of 5 runs rolled back (false-rollback rate 25.0%), 3 promoted, 1 other" {
		t.Errorf("the false-rollback row: %+v", row)
	}
	var b strings.Builder
	r.writeRollout(&b)
	for _, want := range []string{
		"rolled out 5 times (rollout.goodRepeat), each on a fresh namespace: 3 promoted, 1 rolled back (false rollbacks), 1 other; false-rollback rate 25.0% (of the 4 runs",
		"- run 3: RolledBack (unschedulable ratio 1.8 > 1.5)\n", "- run 5: ; error: rollout state not seen after 70s\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the section lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "- run 1:") || strings.Contains(b.String(), "- run 2:") {
		t.Errorf("promoted runs listed:\n%s", b.String())
	}
}
