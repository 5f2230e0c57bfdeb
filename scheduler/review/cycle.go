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

package review

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// cycle is one review: a review framework on a review snapshot (a slot of
// a pool), which the review holds until end.
type cycle struct {
	*reviewFramework
	// owned: the framework is the review's own (a draft's), closed at end.
	owned bool
	// slot is the review snapshot the cycle holds until end, from pool;
	// nil for a scenario's run, which has a snapshot of its own and never
	// ends.
	slot *slot
	pool *pool
	// algorithm picks nodes on the review's snapshot; its start index is
	// the live cycle's next one when the review began, and placing moves
	// it on per pod as the live cycle does.
	algorithm *scheduler.Algorithm
	mutating  bool
	// scoredNodes bounds the feasible nodes listed with their scores
	// (Request.ScoredNodes); 0: all of them.
	scoredNodes int
	// placing: only each pod's node, or its message, is wanted (place):
	// the rejected nodes and the sampled ones are not listed.
	placing bool
	// assumed are the pods placed on the snapshot (assume), in order;
	// end takes them off again.
	assumed []*v1.Pod
	// ended: end ran (a scenario ends its cycle once it has planned,
	// before its runs; the review's own end then does nothing).
	ended bool
}

// assume puts a placed pod on the review's snapshot, for the pods after
// it to see; end takes it off again.
func (rc *cycle) assume(pi *framework.PodInfo) error {
	if err := rc.snapshot.AssumePod(pi); err != nil {
		return err
	}
	rc.assumed = append(rc.assumed, pi.Pod)
	return nil
}

// forget takes the last pod assume placed with pod's UID off the snapshot.
func (rc *cycle) forget(logger klog.Logger, pod *v1.Pod) error {
	if err := rc.snapshot.ForgetPod(logger, pod); err != nil {
		return err
	}
	for i := len(rc.assumed) - 1; i >= 0; i-- {
		if rc.assumed[i].UID == pod.UID {
			rc.assumed = slices.Delete(rc.assumed, i, i+1)
			break
		}
	}
	return nil
}

// startReviewCycle takes a review snapshot of p (one no other review or
// shadow holds; p's lock is held only to take it, and a new one is made
// when every one is held), brings it up to date
// with the cache and returns a cycle on it with the review framework of
// gen on that snapshot, built now if this is its first review there, or
// with a framework built for draft.
//
// The cache's lock is held for UpdateSnapshot only, as a scheduling cycle
// holds it: for the nodes that changed since the snapshot's last update,
// not for a copy of the whole cluster, and never across a framework
// build.
func (rs *Reviews) startReviewCycle(ctx context.Context, p *pool, draft *scheduler.Profile, gen *scheduler.Generation) (*cycle, error) {
	sl := p.take()
	snapshot := sl.snapshotOf()
	rc := &cycle{owned: draft != nil, slot: sl, pool: p}
	var err error
	if draft != nil {
		rc.reviewFramework, err = rs.newReviewFramework(ctx, *draft, snapshot)
	} else {
		rc.reviewFramework, err = rs.liveReviewFramework(ctx, gen, sl)
	}
	if err != nil {
		p.give(sl)
		return nil, err
	}
	if err := rs.host.UpdateSnapshot(ctx, snapshot); err != nil {
		rc.end()
		return nil, fmt.Errorf("taking a snapshot of the cache: %w", err)
	}
	rc.algorithm = rs.host.Algorithm(snapshot)
	return rc, nil
}

// end gives the review snapshot back to its pool, with the pods the
// review placed and a bound pod it took off its node put back, and
// closes a draft's framework.
func (rc *cycle) end() {
	if rc.ended {
		return
	}
	rc.ended = true
	// The pods placed, last first (the snapshot's LIFO contract).
	for i := len(rc.assumed) - 1; i >= 0; i-- {
		if err := rc.snapshot.ForgetPod(klog.Background(), rc.assumed[i]); err != nil {
			klog.Background().Error(err, "Taking a placed pod off the review snapshot failed")
			rc.slot.snapshot = nil
			break
		}
	}
	rc.assumed = nil
	if rc.mutating {
		if err := rc.snapshot.EndMutations(); err != nil {
			// The next review on this slot starts from a new snapshot (and
			// builds the review frameworks it needs on it).
			klog.Background().Error(err, "Restoring the review snapshot failed")
			rc.slot.snapshot = nil
		}
	}
	if rc.owned {
		rc.reviewFramework.close()
	}
	rc.pool.give(rc.slot)
}

// startIndex is where the review's next search of the nodes starts.
func (rc *cycle) startIndex() int { return rc.algorithm.StartIndex() }

// removePod takes a bound pod off its node in the review's snapshot.
func (rc *cycle) removePod(logger klog.Logger, pod *v1.Pod) error {
	if !rc.mutating {
		if err := rc.snapshot.StartMutations(); err != nil {
			return err
		}
		rc.mutating = true
	}
	if _, err := rc.snapshot.Get(pod.Spec.NodeName); err != nil {
		return nil
	}
	return rc.snapshot.RemovePod(logger, pod, pod.Spec.NodeName)
}
