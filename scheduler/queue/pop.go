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

package queue

import (
	"context"
	"sync"

	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// Pop blocks until a pod is active and returns it; it returns nil once the
// queue is closed or ctx is done. Across profiles it picks the head with
// the highest priority, then the oldest timestamp, then the lowest
// schedulerName; within a profile its QueueSort decides. The pod is in
// flight until Done, Retry or AddUnschedulableIfNotPresent.
//
// The result is a *framework.QueuedPodInfo, or, for a pod that names a
// PodGroup when pod-group scheduling is on, a *framework.QueuedPodGroupInfo
// holding every queued member of the group, each in flight.
func (q *Queue) Pop(ctx context.Context) framework.QueuedEntityInfo {
	return q.pop(ctx, q.cond, func() *framework.QueuedPodInfo {
		p := q.popActiveLocked(q.pickLocked())
		if p == nil && q.popFromBackoff {
			p = q.popBackoffLocked(ctx, "")
		}
		return p
	})
}

// PopFor is Pop for the loop of one profile: it returns only pods whose
// schedulerName is name, in the profile's QueueSort order, and waits while
// the profile has none (also while no profile serves name). Loops of
// different profiles pop at the same time; each wakes only for its own
// pods.
func (q *Queue) PopFor(ctx context.Context, name string) framework.QueuedEntityInfo {
	q.lock.Lock()
	c := q.waiters[name]
	if c == nil {
		c = sync.NewCond(&q.lock)
		q.waiters[name] = c
	}
	q.lock.Unlock()
	return q.pop(ctx, c, func() *framework.QueuedPodInfo {
		p := q.popActiveLocked(q.profiles[name])
		if p == nil && q.popFromBackoff {
			p = q.popBackoffLocked(ctx, name)
		}
		return p
	})
}

// pop waits on c until next returns a pod, and takes it (with its group's
// queued members) into flight.
func (q *Queue) pop(ctx context.Context, c *sync.Cond, next func() *framework.QueuedPodInfo) framework.QueuedEntityInfo {
	stop := context.AfterFunc(ctx, func() {
		q.lock.Lock()
		c.Broadcast()
		q.lock.Unlock()
	})
	defer stop()
	q.lock.Lock()
	defer q.lock.Unlock()
	for {
		if q.closed || ctx.Err() != nil {
			return nil
		}
		if p := next(); p != nil {
			q.cycle++
			p.Attempts++
			q.inFlight[p.Pod.UID] = q.seq
			if g, ok := q.groupOf(p.Pod); ok {
				group := q.takeGroupLocked(ctx, p, g)
				q.updateMetricsLocked()
				if group == nil {
					// p went back to the unschedulable set.
					continue
				}
				return group
			}
			q.updateMetricsLocked()
			return p
		}
		c.Wait()
	}
}

// popActiveLocked pops the head of pq's active heap; nil when pq is nil or
// empty.
func (q *Queue) popActiveLocked(pq *profileQueue) *framework.QueuedPodInfo {
	if pq == nil {
		return nil
	}
	p, err := pq.active.Pop()
	if err != nil {
		return nil
	}
	return p
}

// popBackoffLocked takes the rejected pod whose back-off ends first, before
// it ends, as upstream does when no pod is active: an idle scheduler has
// nothing better to do. A pod the live profile's PreEnqueue plugins gate,
// or that no profile serves any more, is passed over. With name set, only
// pods of that profile are taken.
func (q *Queue) popBackoffLocked(ctx context.Context, name string) *framework.QueuedPodInfo {
	for {
		p, ok := q.backoff.popUnschedulable(name)
		if !ok {
			return nil
		}
		if q.admitLocked(ctx, p, framework.PopFromBackoffQ) != nil {
			return p
		}
	}
}

// pickLocked returns the profile whose active head comes first.
func (q *Queue) pickLocked() *profileQueue {
	var best *profileQueue
	var bestHead *framework.QueuedPodInfo
	for _, pq := range q.profiles {
		head, ok := pq.active.Peek()
		if !ok {
			continue
		}
		if best == nil || headBefore(head, pq.name, bestHead, best.name) {
			best, bestHead = pq, head
		}
	}
	return best
}

func headBefore(a *framework.QueuedPodInfo, an string, b *framework.QueuedPodInfo, bn string) bool {
	pa, pb := corev1helpers.PodPriority(a.Pod), corev1helpers.PodPriority(b.Pod)
	if pa != pb {
		return pa > pb
	}
	if !a.Timestamp.Equal(b.Timestamp) {
		return a.Timestamp.Before(b.Timestamp)
	}
	return an < bn
}

// SchedulingCycle is the number of pods popped so far.
func (q *Queue) SchedulingCycle() int64 {
	q.lock.Lock()
	defer q.lock.Unlock()
	return q.cycle
}
