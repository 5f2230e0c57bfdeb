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
	"time"

	"k8s.io/kubernetes/pkg/scheduler/backend/heap"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

const (
	// DefaultPodInitialBackoff is the back-off after the first failed attempt.
	DefaultPodInitialBackoff = time.Second
	// DefaultPodMaxBackoff caps the back-off, which doubles per attempt.
	DefaultPodMaxBackoff = 10 * time.Second

	// maxBackoffWait bounds how long the back-off loop sleeps.
	maxBackoffWait = time.Second
)

// backoffTimeLocked is when p may be retried. Errors back off by their own
// count. It caches the expiry on p, which the caller's lock guards.
func (q *Queue) backoffTimeLocked(p *framework.QueuedPodInfo) time.Time {
	if q.maxBackoff == 0 {
		return time.Time{}
	}
	count := p.UnschedulableCount
	if p.ConsecutiveErrorsCount > 0 {
		count = p.ConsecutiveErrorsCount
	}
	if count == 0 {
		return time.Time{}
	}
	if p.BackoffExpiration.IsZero() {
		p.BackoffExpiration = p.Timestamp.Add(q.backoffDuration(count))
	}
	return p.BackoffExpiration
}

// backoffDuration is the back-off after count failed attempts: the initial
// back-off, doubled per attempt, capped at the maximum.
func (q *Queue) backoffDuration(count int) time.Duration {
	d := q.initialBackoff
	for i := 1; i < count; i++ {
		if d > q.maxBackoff/2 {
			return q.maxBackoff
		}
		d *= 2
	}
	if d > q.maxBackoff {
		return q.maxBackoff
	}
	return d
}

func (q *Queue) isBackingOffLocked(p *framework.QueuedPodInfo) bool {
	return q.backoffTimeLocked(p).After(q.clock.Now())
}

// wakeBackoffLoop makes the back-off loop look at the heap's head again.
func (q *Queue) wakeBackoffLoop() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// backoffLoop moves pods whose back-off ended to the active heaps. It
// sleeps until the head's back-off ends, at most maxBackoffWait, or until a
// pod enters back-off.
func (q *Queue) backoffLoop(ctx context.Context) {
	for {
		q.lock.Lock()
		wait := maxBackoffWait
		if head, ok := q.backoff.peek(); ok {
			if d := q.backoffTimeLocked(head).Sub(q.clock.Now()); d < wait {
				wait = d
			}
		}
		q.lock.Unlock()
		if wait > 0 {
			t := q.clock.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-q.wake:
				t.Stop()
				continue
			case <-t.C():
			}
		}
		q.flushBackoffCompleted(ctx)
	}
}

func (q *Queue) flushBackoffCompleted(ctx context.Context) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.countGatedLocked()
	for {
		head, ok := q.backoff.peek()
		if !ok || q.isBackingOffLocked(head) {
			return
		}
		_, _ = q.backoff.pop()
		q.moveToActiveLocked(ctx, head, framework.BackoffComplete)
	}
}

// backoffQueue holds the pods waiting out a back-off, as upstream keeps
// them: pods a plugin rejected in one heap, which Pop may take before their
// back-off ends when no pod is active (SchedulerPopFromBackoffQ), and pods
// whose attempt failed with an error in another, which always wait. Both
// are ordered by back-off expiry. A pod is in at most one of them. It has
// no lock of its own: Queue.lock guards it.
type backoffQueue struct {
	less          func(a, b *framework.QueuedPodInfo) bool
	unschedulable *heap.Heap[*framework.QueuedPodInfo]
	errored       *heap.Heap[*framework.QueuedPodInfo]
}

func newBackoffQueue(less func(a, b *framework.QueuedPodInfo) bool) *backoffQueue {
	return &backoffQueue{
		less:          less,
		unschedulable: heap.New(podInfoKey, less),
		errored:       heap.New(podInfoKey, less),
	}
}

// failedWithError reports whether p's last attempt ended in an error
// rather than a rejection: no plugin rejected it or left it pending.
func failedWithError(p *framework.QueuedPodInfo) bool {
	return p.UnschedulablePlugins.Len() == 0 && p.PendingPlugins.Len() == 0
}

func (b *backoffQueue) addOrUpdate(p *framework.QueuedPodInfo) {
	to, other := b.unschedulable, b.errored
	if failedWithError(p) {
		to, other = other, to
	}
	other.Delete(p)
	to.AddOrUpdate(p)
}

func (b *backoffQueue) getByKey(key string) (*framework.QueuedPodInfo, bool) {
	if p, ok := b.unschedulable.GetByKey(key); ok {
		return p, true
	}
	return b.errored.GetByKey(key)
}

func (b *backoffQueue) delete(p *framework.QueuedPodInfo) {
	b.unschedulable.Delete(p)
	b.errored.Delete(p)
}

func (b *backoffQueue) list() []*framework.QueuedPodInfo {
	return append(b.unschedulable.List(), b.errored.List()...)
}

func (b *backoffQueue) len() int { return b.unschedulable.Len() + b.errored.Len() }

// head returns the heap whose head ends its back-off first, nil when both
// are empty.
func (b *backoffQueue) head() *heap.Heap[*framework.QueuedPodInfo] {
	u, uok := b.unschedulable.Peek()
	e, eok := b.errored.Peek()
	switch {
	case !uok && !eok:
		return nil
	case !eok:
		return b.unschedulable
	case !uok:
		return b.errored
	case b.less(e, u):
		return b.errored
	default:
		return b.unschedulable
	}
}

// peek returns the pod whose back-off ends first.
func (b *backoffQueue) peek() (*framework.QueuedPodInfo, bool) {
	h := b.head()
	if h == nil {
		return nil, false
	}
	return h.Peek()
}

// pop removes and returns the pod whose back-off ends first.
func (b *backoffQueue) pop() (*framework.QueuedPodInfo, bool) {
	h := b.head()
	if h == nil {
		return nil, false
	}
	p, err := h.Pop()
	return p, err == nil
}

// popUnschedulable removes and returns the rejected pod whose back-off
// ends first, of profile name when name is set; pods that failed with an
// error are never taken early. A profile's pod is looked for among all
// (O(pods backing off)): only a loop with no active pod asks.
func (b *backoffQueue) popUnschedulable(name string) (*framework.QueuedPodInfo, bool) {
	if name == "" {
		p, err := b.unschedulable.Pop()
		return p, err == nil
	}
	var first *framework.QueuedPodInfo
	for _, p := range b.unschedulable.List() {
		if p.Pod.Spec.SchedulerName == name && (first == nil || b.less(p, first)) {
			first = p
		}
	}
	if first == nil {
		return nil, false
	}
	b.unschedulable.Delete(first)
	return first, true
}
