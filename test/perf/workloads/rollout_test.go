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

package workloads

import (
	"strings"
	"testing"
	"time"
)

func TestRolloutCase(t *testing.T) {
	c := embeddedCase(t, "rollout")
	for _, scale := range []string{ScaleDefault, "small"} {
		vals, err := c.Values(scale, nil)
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.Rollout.Values(vals)
		if err != nil {
			t.Fatal(err)
		}
		if v.Step != MinStepSeconds*time.Second || v.CanaryPercent != 10 || v.PromotePercent != 50 {
			t.Errorf("%s: step %s, canary %d%%, promote canary %d%%; want the shortest step, 10%% and 50%%", scale, v.Step, v.CanaryPercent, v.PromotePercent)
		}
		// The bad change's canary lasts 10 minutes (rolled back early by
		// the analysis' looks); the good change runs once unless asked.
		if v.BlastStep != 10*time.Minute || v.GoodRepeat != 1 {
			t.Errorf("%s: bad change's step %s, good change %d times; want 10m0s and 1", scale, v.BlastStep, v.GoodRepeat)
		}
		// The load of the longest part (two steps and the time after)
		// fits one pool's half of the pods: 40 pods of 100m per node.
		perPool := float64(v.Rate) / 2 * (2*v.Step + v.After + 10*time.Second).Seconds()
		if perPool > float64(40*v.PoolNodes) {
			t.Errorf("%s: %.0f pods per pool do not fit %d nodes", scale, perPool, v.PoolNodes)
		}
	}
}

// rollout.goodRepeat, set as BENCH_SET does (after the case's own
// validation): 1 to MaxGoodRepeat, refused naming it.
func TestRolloutGoodRepeat(t *testing.T) {
	c := embeddedCase(t, "rollout")
	for _, tc := range []struct {
		set     int
		want    int
		wantErr string
	}{
		{20, 20, ""},
		{1, 1, ""},
		{MaxGoodRepeat, MaxGoodRepeat, ""},
		{0, 0, "rollout.goodRepeat must be 1 to 100, got 0"},
		{-3, 0, "rollout.goodRepeat must be 1 to 100, got -3"},
		{MaxGoodRepeat + 1, 0, "rollout.goodRepeat must be 1 to 100, got 101"},
	} {
		vals, err := c.Values(ScaleSmall, map[string]int{"goodRepeat": tc.set})
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.Rollout.Values(vals)
		switch {
		case tc.wantErr == "" && (err != nil || v.GoodRepeat != tc.want):
			t.Errorf("goodRepeat=%d: %d runs, error %v; want %d", tc.set, v.GoodRepeat, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("goodRepeat=%d: error %v, want one saying %q", tc.set, err, tc.wantErr)
		}
	}
	// Unset: once.
	if v, err := (&Rollout{}).Values(nil); err != nil || v.GoodRepeat != 1 {
		t.Errorf("unset: %d runs, error %v; want 1", v.GoodRepeat, err)
	}
}

func TestRolloutValidation(t *testing.T) {
	base := "name: x\nparams: {rate: 5, nodes: 3}\nprofile: {}\ntimeoutSeconds: 10\nsteps:\n" +
		"- createNodes: {count: $nodes, prefix: node, template: node-default.yaml}\n" +
		"- createPods: {count: 1, prefix: m, template: pod-default.yaml, measure: true, rate: $rate}\n" +
		"rollout:\n  nodeTemplate: node-default.yaml\n  podTemplate: pod-default.yaml\n" +
		"  shadowChange: {}\n  goodChange: {}\n  badChange: {}\n  poolNodes: 2\n  rate: 5\n  canaryPercent: 10\n  promotePercent: 50\n" +
		"  minSamples: 1\n  warmupMillis: 0\n  afterSeconds: 1\n  drainSeconds: 5\n"
	for _, tc := range []struct{ extra, wantErr string }{
		{"  stepSeconds: 10\n", ""},
		{"  stepSeconds: 5\n", "rollout.stepSeconds must be 10 to 86400"},
		{"  stepSeconds: $step\n", "rollout.stepSeconds: unknown parameter $step"},
		{"  stepSeconds: 10\n  nodeTemplate: nope.yaml\n", "nodeTemplate"},
		{"  stepSeconds: 10\n  goodRepeat: 20\n", ""},
		{"  stepSeconds: 10\n  goodRepeat: 0\n", "rollout.goodRepeat must be 1 to 100, got 0"},
		{"  stepSeconds: 10\n  goodRepeat: 101\n", "rollout.goodRepeat must be 1 to 100, got 101"},
		{"  stepSeconds: 10\n  goodRepeat: $runs\n", "rollout.goodRepeat: unknown parameter $runs"},
	} {
		doc := base + tc.extra
		if strings.Contains(tc.extra, "nodeTemplate") {
			doc = strings.Replace(base, "  nodeTemplate: node-default.yaml\n", "", 1) + tc.extra
		}
		expectLoad(t, doc, tc.extra, tc.wantErr)
	}
}
