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

package harness

import (
	"testing"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// The FNV-1a test vectors (draft-eastlake-fnv): the bucket is the hash
// modulo 100, as the scheduler picks a canary's pods.
func TestCanaryBucket(t *testing.T) {
	for key, want := range map[string]int{"": 61, "a": 20, "foobar": 20, "8f2c1e7a-3b4d-4c5e-9f60-123456789abc": 80} {
		if got := CanaryBucket(key); got != want {
			t.Errorf("CanaryBucket(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestCountBlast(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	// "a" falls in bucket 20, the UUID in 80.
	in, out := "a", "8f2c1e7a-3b4d-4c5e-9f60-123456789abc"
	pods := []PodState{
		{Name: "before", UID: in, Node: "n1", Created: at(0), Bound: at(0.5)},                                // bound before the change
		{Name: "canary-bound", UID: in, Node: "n1", Created: at(2), Bound: at(3)},                            // the bad generation bound it
		{Name: "canary-pending", UID: in, Node: "n2", Created: at(4), Unschedulable: at(4.1), Bound: at(13)}, // pending, bound after the rollback
		{Name: "serving-bound", UID: out, Node: "n2", Created: at(5), Bound: at(5.2)},                        // the serving generation's
		{Name: "still-pending", UID: in, Created: at(6), Unschedulable: at(6.1)},                             // never bound
		{Name: "outside", UID: out, Node: "n3", Created: at(7), Unschedulable: at(7.1), Bound: at(7.5)},      // pending outside the share
		{Name: "after", UID: in, Node: "n1", Created: at(12), Bound: at(12.5), Rebinds: 1},                   // after the rollback, bound twice
	}
	got := CountBlast(pods, at(1), at(11), 30)
	want := BlastCounts{WentPending: 3, OutsideCanary: 1, BoundByBad: 1, Affected: 4, PendingAtEnd: 1, DoubleBound: 1}
	if got != want {
		t.Errorf("with a canary of 30%%: %+v, want %+v", got, want)
	}
	// At once, every pod bound after the change is the bad generation's.
	got = CountBlast(pods, at(1), at(1000), 0)
	want = BlastCounts{WentPending: 3, BoundByBad: 5, Affected: 6, PendingAtEnd: 1, DoubleBound: 1}
	if got != want {
		t.Errorf("at once: %+v, want %+v", got, want)
	}
	if r := recovered(pods, at(11)); r != -1 {
		t.Errorf("recovered with a pod still pending = %v, want -1", r)
	}
	if r := recovered(pods[:4], at(11)); r != 2000 {
		t.Errorf("recovered = %v ms, want 2000", r)
	}
}

func TestRolloutChanges(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	st := func(gen int64, phase string, step int32, kind string, percent int32) v1alpha1.RolloutStatus {
		return v1alpha1.RolloutStatus{Generation: gen, Phase: phase, Step: step, StepKind: kind, Percent: percent}
	}
	seen := []RolloutSeen{
		{At: at(-5), Status: st(1, v1alpha1.RolloutPromoted, 0, "", 0)}, // an earlier rollout
		{At: at(0.2), Status: st(2, v1alpha1.RolloutProgressing, 1, v1alpha1.StepShadow, 0)},
		{At: at(10.3), Status: st(2, v1alpha1.RolloutProgressing, 2, v1alpha1.StepCanary, 50)},
		{At: at(20.4), Status: st(2, v1alpha1.RolloutPromoted, 0, "", 0)},
	}
	times, whats := rolloutChanges(seen, 2, at(0))
	wantWhats := []string{"change applied (step 1)", "step 2: canary 50%", "promoted"}
	wantTimes := []time.Time{at(0), at(10.3), at(20.4)}
	if len(whats) != len(wantWhats) {
		t.Fatalf("changes %v, want %v", whats, wantWhats)
	}
	for i := range whats {
		if whats[i] != wantWhats[i] || !times[i].Equal(wantTimes[i]) {
			t.Errorf("change %d: %s at %s, want %s at %s", i, whats[i], times[i], wantWhats[i], wantTimes[i])
		}
	}
}
