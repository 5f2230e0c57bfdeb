package queue

import (
	"k8s.io/kubernetes/pkg/scheduler/backend/heap"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// backoffQueue holds the pods waiting out a back-off, as upstream keeps
// them: pods a plugin rejected in one heap, which Pop may take before their
// back-off ends when no pod is active (SchedulerPopFromBackoffQ), and pods
// whose attempt failed with an error in another, which always wait. Both
// are ordered by back-off expiry. A pod is in at most one of them.
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
// ends first; pods that failed with an error are never taken early.
func (b *backoffQueue) popUnschedulable() (*framework.QueuedPodInfo, bool) {
	p, err := b.unschedulable.Pop()
	return p, err == nil
}
