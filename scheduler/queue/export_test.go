package queue

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// Get returns a copy of the queued pod info for the pod, if it is queued.
func (q *Queue) Get(pod *v1.Pod) (*framework.QueuedPodInfo, bool) {
	q.lock.Lock()
	defer q.lock.Unlock()
	p := q.findLocked(q.profiles[pod.Spec.SchedulerName], pod)
	if p == nil {
		return nil, false
	}
	return p.DeepCopy(), true
}
