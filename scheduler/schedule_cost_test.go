//go:build !race

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

package scheduler_test

import (
	"encoding/json"
	"os"
	"runtime"
	"testing"
)

// costBaselineFile holds what a plain pod of one profile costs the whole
// scheduler (BenchmarkSchedulePods' path), measured at the commit that
// wrote it. Refresh it, after a change meant to cost more, with
//
//	COST_BASELINE_WRITE=1 go test ./scheduler/ -run TestSchedulingCost
const costBaselineFile = "testdata/schedule-cost-baseline.json"

// costTolerance is how much more a pod may cost than the baseline before
// the test fails: the spread of the allocation counts from run to run is
// about 3% (allocations) and 2% (bytes).
const costTolerance = 1.08

type scheduleCost struct {
	// AllocsPerPod and BytesPerPod are the heap allocations of the whole
	// process per pod scheduled and bound: the handlers, the queue, the
	// loop, both cycles, and the fake clientset's share.
	AllocsPerPod float64 `json:"allocsPerPod"`
	BytesPerPod  float64 `json:"bytesPerPod"`
}

// TestSchedulingCost keeps a plain profile's pods from costing more as
// features are added around the scheduling cycle: the allocations per
// pod on BenchmarkSchedulePods' path, with the profile's own loop and
// with one loop, against the committed baseline, and the profile's own
// loop against one loop (one profile pays nothing for loops of its own).
// Allocation counts are what a noisy machine cannot blur; make bench
// measures the time side by side with kube-scheduler.
func TestSchedulingCost(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 800 pods through the scheduler")
	}
	measure := func(loops bool) scheduleCost {
		var before, after runtime.MemStats
		schedulePods(t, loops, costPods, func() {
			runtime.GC()
			runtime.ReadMemStats(&before)
		})
		runtime.ReadMemStats(&after)
		return scheduleCost{
			AllocsPerPod: float64(after.Mallocs-before.Mallocs) / costPods,
			BytesPerPod:  float64(after.TotalAlloc-before.TotalAlloc) / costPods,
		}
	}
	own, one := measure(true), measure(false)
	t.Logf("per pod: own loop %.0f allocs, %.0f B; one loop %.0f allocs, %.0f B", own.AllocsPerPod, own.BytesPerPod, one.AllocsPerPod, one.BytesPerPod)

	if os.Getenv("COST_BASELINE_WRITE") != "" {
		data, err := json.MarshalIndent(own, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(costBaselineFile, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(costBaselineFile)
	if err != nil {
		t.Fatal(err)
	}
	var base scheduleCost
	if err := json.Unmarshal(data, &base); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  scheduleCost
	}{{"own loop", own}, {"one loop", one}} {
		if c.got.AllocsPerPod > base.AllocsPerPod*costTolerance {
			t.Errorf("%s: a pod costs %.0f allocations, the baseline %.0f (at most %.0f%% more)", c.name, c.got.AllocsPerPod, base.AllocsPerPod, 100*(costTolerance-1))
		}
		if c.got.BytesPerPod > base.BytesPerPod*costTolerance {
			t.Errorf("%s: a pod allocates %.0f B, the baseline %.0f B (at most %.0f%% more)", c.name, c.got.BytesPerPod, base.BytesPerPod, 100*(costTolerance-1))
		}
	}
	if own.AllocsPerPod > one.AllocsPerPod*costTolerance {
		t.Errorf("a profile's own loop costs %.0f allocations per pod, one loop %.0f: one profile pays for loops", own.AllocsPerPod, one.AllocsPerPod)
	}
}

// costPods is how many pods TestSchedulingCost schedules per measure.
const costPods = 400
