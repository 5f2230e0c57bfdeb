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
	"sort"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// A popped pod is in flight until its cycle ends (Done, or
// AddUnschedulableIfNotPresent). The cluster events that arrive meanwhile
// are recorded, so that a pod that comes back rejected is checked against
// the events it missed, as upstream's queue does. Events are released as
// soon as no pod that was in flight when they arrived still is.

// recordedEvent is a cluster event received while pods were in flight.
type recordedEvent struct {
	seq    int64
	event  fwk.ClusterEvent
	oldObj interface{}
	newObj interface{}
	// onlyFor, when set, limits the event to one pod: an update of that
	// pod, or a request to activate it.
	onlyFor types.UID
}

// concerns reports whether the event may matter to the pod with uid.
func (e *recordedEvent) concerns(uid types.UID) bool {
	return e.onlyFor == "" || e.onlyFor == uid
}

// Done tells the queue a popped pod's cycle is over (bound, requeued or
// dropped), so the events recorded for it can be released.
func (q *Queue) Done(uid types.UID) {
	q.lock.Lock()
	defer q.lock.Unlock()
	q.doneLocked(uid)
}

func (q *Queue) doneLocked(uid types.UID) {
	if _, ok := q.inFlight[uid]; !ok {
		return
	}
	delete(q.inFlight, uid)
	if len(q.inFlight) == 0 {
		q.events = nil
		return
	}
	oldest := q.seq
	for _, s := range q.inFlight {
		if s < oldest {
			oldest = s
		}
	}
	i := sort.Search(len(q.events), func(i int) bool { return q.events[i].seq > oldest })
	if i > 0 {
		q.events = append([]recordedEvent(nil), q.events[i:]...)
	}
}

// recordLocked keeps an event for the pods in flight; onlyFor limits it to
// one of them.
func (q *Queue) recordLocked(e fwk.ClusterEvent, oldObj, newObj interface{}, onlyFor types.UID) {
	if len(q.inFlight) == 0 {
		return
	}
	q.seq++
	q.events = append(q.events, recordedEvent{seq: q.seq, event: e, oldObj: oldObj, newObj: newObj, onlyFor: onlyFor})
}

// hintForInFlightLocked decides where a pod that comes back rejected goes,
// from the events recorded since it was popped.
func (q *Queue) hintForInFlightLocked(logger klog.Logger, p *framework.QueuedPodInfo) strategy {
	if failedWithError(p) {
		return queueAfterBackoff
	}
	start, ok := q.inFlight[p.Pod.UID]
	if !ok {
		return queueAfterBackoff
	}
	result := queueSkip
	for i := range q.events {
		e := &q.events[i]
		if e.seq <= start || !e.concerns(p.Pod.UID) {
			continue
		}
		switch q.worthRequeuingLocked(logger, p, e.event, e.oldObj, e.newObj) {
		case queueImmediately:
			return queueImmediately
		case queueAfterBackoff:
			result = queueAfterBackoff
			if p.PendingPlugins.Len() == 0 {
				return result
			}
		}
	}
	return result
}
