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
	"context"
	"fmt"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// BlastVerdictWait bounds the wait for the bad change's canary to be
// rolled back (waitBlastVerdict): that long past the first failure of a
// pod of its share (four times the 15 s target), twice that past the
// change while none has failed. The step itself may last much longer
// (rollout.blastStepSeconds, 10 minutes in the rollout case): the
// analysis looks while it runs, so a rollback comes long before its end
// or the run ends with an error.
const BlastVerdictWait = 60 * time.Second

// blastVerdictPoll is how often the wait looks for the first failure.
const blastVerdictPoll = time.Second

// waitBlastVerdict waits for the rollout of gen, the bad change with a
// canary of percent applied at applied, to end: at most limit after the
// change, BlastVerdictWait after the first failure of a pod of the
// canary's share (FirstFailure over rec's pods of pool b, the pool the
// change breaks) and 2×BlastVerdictWait after the change while none has
// failed. Past a bound it returns an error saying which.
func (r *Runner) waitBlastVerdict(ctx context.Context, ps *ProfileScheduler, rec *Recorder, gen int64, applied time.Time, percent int, limit time.Duration) (RolloutSeen, error) {
	end := applied.Add(limit)
	deadline := applied.Add(min(limit, 2*BlastVerdictWait))
	var first time.Time
	for {
		seen, err := ps.Watcher().WaitRollout(ctx, blastVerdictPoll, rolloutEnded(gen))
		if err == nil || ctx.Err() != nil {
			return seen, err
		}
		if first.IsZero() {
			if first = FirstFailure(rec.Pods(loadB), applied, percent); !first.IsZero() {
				deadline = first.Add(BlastVerdictWait)
				if deadline.After(end) {
					deadline = end
				}
			}
		}
		if !time.Now().Before(deadline) {
			if first.IsZero() {
				return seen, fmt.Errorf("the bad change with a canary of %d%%: no pod of its share seen unschedulable and the rollout not ended %s after the change: %w",
					percent, deadline.Sub(applied).Round(time.Second), err)
			}
			return seen, fmt.Errorf("the bad change with a canary of %d%%: not rolled back %s after its first failure (%s after the change): %w",
				percent, deadline.Sub(first).Round(time.Second), first.Sub(applied).Round(time.Millisecond), err)
		}
	}
}

// FirstFailure is when the first pod of a bad generation's share created
// from applied on was seen unschedulable (PodState.Unschedulable): with
// percent > 0 the pods of its canary share (CanaryBucket under percent),
// with 0 every pod. Zero when none was.
func FirstFailure(pods []PodState, applied time.Time, percent int) time.Time {
	var first time.Time
	for _, p := range pods {
		if p.Unschedulable.IsZero() || p.Created.Before(applied) {
			continue
		}
		if percent > 0 && CanaryBucket(p.UID) >= percent {
			continue
		}
		if first.IsZero() || p.Unschedulable.Before(first) {
			first = p.Unschedulable
		}
	}
	return first
}

// GoodOutcomes count how the runs of the good change ended.
type GoodOutcomes struct {
	Runs     int `json:"runs"`
	Promoted int `json:"promoted"`
	// RolledBack runs are false rollbacks: the change is good.
	RolledBack int `json:"rolledBack"`
	// Other runs ended otherwise (aborted, superseded, not ended in time,
	// or an error before the change).
	Other int `json:"other"`
	// FalseRollbackRate is RolledBack over the runs that reached a
	// verdict (Promoted + RolledBack); -1 when none did.
	FalseRollbackRate float64 `json:"falseRollbackRate"`
}

// CountGood counts how runs ended, by status.rollout.phase seen.
func CountGood(runs []*PromoteRun) GoodOutcomes {
	g := GoodOutcomes{FalseRollbackRate: -1}
	for _, p := range runs {
		if p == nil {
			continue
		}
		g.Runs++
		switch p.Phase {
		case v1alpha1.RolloutPromoted:
			g.Promoted++
		case v1alpha1.RolloutRolledBack:
			g.RolledBack++
		default:
			g.Other++
		}
	}
	if judged := g.Promoted + g.RolledBack; judged > 0 {
		g.FalseRollbackRate = float64(g.RolledBack) / float64(judged)
	}
	return g
}
