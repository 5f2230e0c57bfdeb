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
			{Percent: 10, Phase: "RolledBack", ToRollbackMillis: 10500, Blast: harness.BlastCounts{WentPending: 12, Affected: 20}},
			{Blast: harness.BlastCounts{WentPending: 150, Affected: 300, PendingAtEnd: 150}},
		},
		Promote: &harness.PromoteRun{Phase: "Promoted", ToPromotedMillis: 21000, Changes: []harness.RolloutChange{
			{What: "change applied (step 1)", GapMillis: 60}, {What: "step 2: canary 50%", GapMillis: 140}, {What: "promoted", GapMillis: 50}}},
	}}}
	met := map[string]bool{}
	for _, c := range r.rolloutChecks() {
		met[c.what] = c.ok
	}
	for what, want := range map[string]bool{
		"rollout: throughput with a shadow step / without":           true,
		"rollout: CPU per pod with a shadow step / without":          true,
		"rollout: bad change with canary 10% rolled back":            true,
		"rollout: pods gone pending outside the canary's share":      true,
		"rollout: canary's pods pending at the end / bound twice":    true,
		"rollout: pods affected by the bad change, canary / at once": true,
		"rollout: good change promoted":                              true,
		"rollout: good change pods lost / bound twice":               true,
		"rollout: longest no-bind gap at a step change":              false, // 140 ms at the canary step
	} {
		if got, ok := met[what]; !ok || got != want {
			t.Errorf("%s: met %v (present %v), want %v", what, got, ok, want)
		}
	}
	var b strings.Builder
	r.writeRollout(&b)
	for _, want := range []string{"## Progressive rollout (rollout)", "| canary 10% |", "| at once |", "| step 2: canary 50% | 0.0 | 140 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the section lacks %q:\n%s", want, b.String())
		}
	}
}
