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
	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// reviewWatch follows the reviews of one namespace: when each was created
// (by the harness's clock, just before the request) and when the watch
// first showed it finished.
type reviewWatch struct {
	watchLoop
	start    map[string]time.Time
	finished map[string]time.Time
	counts   ReviewCounts
}

func watchReviews(ctx context.Context, c client.WithWatch, ns string) (*reviewWatch, error) {
	ctx, cancel := context.WithCancel(ctx)
	w, err := c.Watch(ctx, &v1alpha1.SchedulingReviewList{}, client.InNamespace(ns))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("watching reviews in %s: %w", ns, err)
	}
	rw := &reviewWatch{watchLoop: newWatchLoop(), start: map[string]time.Time{}, finished: map[string]time.Time{}}
	rw.run(ctx, cancel, w, "review watch in "+ns, func(ev watch.Event, now time.Time) {
		if sr, ok := ev.Object.(*v1alpha1.SchedulingReview); ok {
			rw.observe(sr, now)
		}
	})
	return rw, nil
}

func (rw *reviewWatch) observe(sr *v1alpha1.SchedulingReview, now time.Time) {
	if !sr.Finished() {
		return
	}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if _, mine := rw.start[sr.Name]; !mine {
		// Made before this watch (another phase's in the namespace).
		return
	}
	if _, seen := rw.finished[sr.Name]; seen {
		return
	}
	rw.finished[sr.Name] = now
	switch failed := meta.FindStatusCondition(sr.Status.Conditions, v1alpha1.ConditionFailed); {
	case failed != nil && failed.Status == metav1.ConditionTrue:
		rw.counts.Failed++
		if rw.counts.FirstFailure == "" {
			rw.counts.FirstFailure = fmt.Sprintf("%s: %s: %s", sr.Name, failed.Reason, failed.Message)
		}
	case sr.Status.Result == nil || sr.Status.Result.SelectedNode == "":
		rw.counts.NoNode++
		rw.counts.Complete++
	default:
		rw.counts.Complete++
	}
	rw.notify()
}

func (rw *reviewWatch) created(name string, at time.Time) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.start[name] = at
}

// forget drops a review whose create failed.
func (rw *reviewWatch) forget(name string) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	delete(rw.start, name)
}

// waitFor waits until done() holds, timeout passes or the watch ends.
func (rw *reviewWatch) waitFor(ctx context.Context, timeout time.Duration, done func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		rw.mu.Lock()
		ok, ch, werr := done(), rw.changed, rw.err
		rw.mu.Unlock()
		if ok {
			return true
		}
		if werr != nil {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		case <-rw.done:
		case <-ch:
		}
	}
}

// wait waits until the named review is finished.
func (rw *reviewWatch) wait(ctx context.Context, name string, timeout time.Duration) bool {
	return rw.waitFor(ctx, timeout, func() bool { _, ok := rw.finished[name]; return ok })
}

// waitAll waits until every review created is finished.
func (rw *reviewWatch) waitAll(ctx context.Context, timeout time.Duration) bool {
	return rw.waitFor(ctx, timeout, func() bool {
		for name := range rw.start {
			if _, ok := rw.finished[name]; !ok {
				return false
			}
		}
		return true
	})
}

// result counts the reviews created and summarizes create to finished of
// those that finished.
func (rw *reviewWatch) result() (ReviewCounts, stats.Summary) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	counts := rw.counts
	counts.Created = len(rw.start)
	var ds []time.Duration
	for name, t0 := range rw.start {
		if t1, ok := rw.finished[name]; ok {
			ds = append(ds, t1.Sub(t0))
		} else {
			counts.Unanswered++
		}
	}
	return counts, stats.Summarize(stats.Durations(ds))
}
