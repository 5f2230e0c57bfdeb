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

func TestFirstFailure(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	// "a" falls in bucket 20, the UUID in 80.
	in, out := "a", "8f2c1e7a-3b4d-4c5e-9f60-123456789abc"
	pods := []PodState{
		{Name: "before", UID: in, Created: at(0), Unschedulable: at(0.5)},                     // created before the change
		{Name: "outside", UID: out, Created: at(1.5), Unschedulable: at(1.6)},                 // outside the share
		{Name: "bound", UID: in, Node: "n1", Created: at(1.2), Bound: at(1.3)},                // never failed
		{Name: "second", UID: in, Created: at(3), Unschedulable: at(3.2), Bound: at(9)},       // failed, bound after the rollback
		{Name: "first", UID: in, Created: at(2), Unschedulable: at(2.4)},                      // the first failure
		{Name: "at-change", UID: out, Created: at(1), Unschedulable: at(1.1), Bound: at(8.5)}, // created at the change, outside
	}
	if got, want := FirstFailure(pods, at(1), 30), at(2.4); !got.Equal(want) {
		t.Errorf("with a canary of 30%%: first failure at %s, want %s", got, want)
	}
	// At once every pod is the bad generation's, from the change on.
	if got, want := FirstFailure(pods, at(1), 0), at(1.1); !got.Equal(want) {
		t.Errorf("at once: first failure at %s, want %s", got, want)
	}
	// A share no failing pod falls in, and no pod at all.
	if got := FirstFailure(pods, at(1), 10); !got.IsZero() {
		t.Errorf("with a canary of 10%%: first failure at %s, want none", got)
	}
	if got := FirstFailure(nil, at(1), 30); !got.IsZero() {
		t.Errorf("no pod: first failure at %s, want none", got)
	}
}

func TestCountGood(t *testing.T) {
	runs := []*PromoteRun{
		{Phase: v1alpha1.RolloutPromoted},
		{Phase: v1alpha1.RolloutRolledBack, Message: "unschedulable ratio 2.1 > 1.5"},
		{Phase: v1alpha1.RolloutPromoted, Error: "2 pods lost"}, // promoted: a verdict all the same
		{Phase: v1alpha1.RolloutAborted},
		{Error: "rollout state not seen after 70s"}, // no verdict
		nil, // never made
		{Phase: v1alpha1.RolloutPromoted},
	}
	got := CountGood(runs)
	want := GoodOutcomes{Runs: 6, Promoted: 3, RolledBack: 1, Other: 2, FalseRollbackRate: 0.25}
	if got != want {
		t.Errorf("CountGood = %+v, want %+v", got, want)
	}
	if got := CountGood([]*PromoteRun{{Error: "x"}}); got.FalseRollbackRate != -1 || got.Other != 1 {
		t.Errorf("no verdict: %+v, want a rate of -1 and 1 other", got)
	}
	if got := CountGood(nil); got != (GoodOutcomes{FalseRollbackRate: -1}) {
		t.Errorf("no run: %+v", got)
	}
}
