package scheduler

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// reviewCycle is one review: a review framework on the reviews' snapshot,
// which the review holds (reviews.mu) until end.
type reviewCycle struct {
	*reviewFramework
	// owned: the framework is the review's own (a draft's), closed at end.
	owned bool
	// algorithm picks nodes on the review's snapshot; its start index is
	// the live cycle's next one when the review began, and placing moves
	// it on per pod as the live cycle does.
	algorithm *algorithm
	mutating  bool
	// scoredNodes bounds the feasible nodes listed with their scores
	// (ReviewRequest.ScoredNodes); 0: all of them.
	scoredNodes int
	// placing: only each pod's node, or its message, is wanted (place):
	// the rejected nodes and the sampled ones are not listed.
	placing bool
	// assumed are the pods placed on the snapshot (assume), in order;
	// end takes them off again.
	assumed []*v1.Pod
}

// assume puts a placed pod on the review's snapshot, for the pods after
// it to see; end takes it off again.
func (rc *reviewCycle) assume(pi *framework.PodInfo) error {
	if err := rc.snapshot.AssumePod(pi); err != nil {
		return err
	}
	rc.assumed = append(rc.assumed, pi.Pod)
	return nil
}

// forget takes the last pod assume placed with pod's UID off the snapshot.
func (rc *reviewCycle) forget(logger klog.Logger, pod *v1.Pod) error {
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

// startReviewCycle takes the snapshot reviews share (reviews take turns
// on it until end), brings it up to date with the cache and returns a
// cycle on it with the review framework of lp's generation, built now if
// this is its first review, or with a framework built for draft.
//
// The cache's lock is held for UpdateSnapshot only, as a scheduling cycle
// holds it: for the nodes that changed since the last review, not for a
// copy of the whole cluster, and never across a framework build.
func (s *Scheduler) startReviewCycle(ctx context.Context, draft *Profile, lp *liveProfile) (*reviewCycle, error) {
	logger := klog.FromContext(ctx)
	s.reviews.mu.Lock()
	snapshot := s.reviews.snapshotLocked()
	rc := &reviewCycle{owned: draft != nil}
	var err error
	if draft != nil {
		rc.reviewFramework, err = s.newReviewFramework(ctx, *draft, snapshot)
	} else {
		rc.reviewFramework, err = s.liveReviewFramework(ctx, lp, snapshot)
	}
	if err != nil {
		s.reviews.mu.Unlock()
		return nil, err
	}
	if err := s.cache.UpdateSnapshot(logger, snapshot); err != nil {
		rc.end()
		return nil, fmt.Errorf("taking a snapshot of the cache: %w", err)
	}
	rc.algorithm = s.reviewAlgorithm(snapshot, s.nextStartNodeIndex.Load())
	return rc, nil
}

// end hands the review snapshot to the next review, with a bound pod the
// review took off its node put back, and closes a draft's framework.
func (rc *reviewCycle) end() {
	// The pods placed, last first (the snapshot's LIFO contract).
	for i := len(rc.assumed) - 1; i >= 0; i-- {
		if err := rc.snapshot.ForgetPod(klog.Background(), rc.assumed[i]); err != nil {
			klog.Background().Error(err, "Taking a placed pod off the review snapshot failed")
			rc.parent.reviews.snapshot = nil
			break
		}
	}
	rc.assumed = nil
	if rc.mutating {
		if err := rc.snapshot.EndMutations(); err != nil {
			// The next review starts from a new snapshot (and builds the
			// review frameworks it needs on it).
			klog.Background().Error(err, "Restoring the review snapshot failed")
			rc.parent.reviews.snapshot = nil
		}
	}
	if rc.owned {
		rc.reviewFramework.close()
	}
	rc.parent.reviews.mu.Unlock()
}

// reviewAlgorithm is an algorithm on a review's snapshot, its search
// starting at start; it never batches.
func (s *Scheduler) reviewAlgorithm(snapshot *internalcache.Snapshot, start int64) *algorithm {
	a := &algorithm{snapshot: snapshot, percentageOfNodesToScore: s.opts.percentageOfNodesToScore, nextStartNodeIndex: new(atomic.Int64)}
	a.nextStartNodeIndex.Store(start)
	return a
}

// startIndex is where the review's next search of the nodes starts.
func (rc *reviewCycle) startIndex() int { return int(rc.algorithm.nextStartNodeIndex.Load()) }

// reviewSnapshot is the snapshot reviews take turns on.
type reviewSnapshot struct {
	mu sync.Mutex
	// snapshot is made once (reviewSnapshots counts it), unless
	// restoring it failed: every other review updates the one there is
	// with the nodes that changed since the last review.
	snapshot *internalcache.Snapshot
}

func (r *reviewSnapshot) snapshotLocked() *internalcache.Snapshot {
	if r.snapshot == nil {
		r.snapshot = internalcache.NewEmptySnapshot()
		reviewSnapshots.Inc()
	}
	return r.snapshot
}

// removePod takes a bound pod off its node in the review's snapshot.
func (rc *reviewCycle) removePod(logger klog.Logger, pod *v1.Pod) error {
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
