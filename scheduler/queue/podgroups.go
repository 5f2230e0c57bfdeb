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

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// With the GenericWorkload gate on, a pod that names a PodGroup
// (spec.schedulingGroup.podGroupName) is scheduled with its group, in one
// pod-group cycle, as upstream does. Members wait in the sub-queues as
// pods (each with its own PreEnqueue verdict, queueing hints and back-off),
// and the group is put together when one of them is popped: Pop then
// takes every queued member of that group out of the sub-queues and
// returns them as one framework.QueuedPodGroupInfo, in upstream's member
// order. Upstream keeps the group as one entity in its sub-queues instead;
// what a cycle sees is the same: the group's members that are queued, at
// the time it is popped.
//
// As upstream's entity, a group is gated when one of its members is: a
// popped member whose sibling a PreEnqueue plugin still gates goes back to
// the unschedulable set, and the group is put together again when the
// gated member is admitted. A pod whose PodGroup the scheduler has not
// seen waits in the unschedulable set too (upstream's incomplete pod group
// pods) until a PodGroup event moves it.

// groupKey identifies a pod group: namespace/name.
type groupKey struct{ namespace, name string }

// podGroupName returns the name of the PodGroup pod belongs to, "" for a
// pod that names none.
func podGroupName(pod *v1.Pod) string {
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return ""
	}
	return *pod.Spec.SchedulingGroup.PodGroupName
}

// groupOf returns the group of a pod when pod-group scheduling is on and
// the pod names a group.
func (q *Queue) groupOf(pod *v1.Pod) (groupKey, bool) {
	if q.podGroups == nil {
		return groupKey{}, false
	}
	name := podGroupName(pod)
	if name == "" {
		return groupKey{}, false
	}
	return groupKey{namespace: pod.Namespace, name: name}, true
}

// trackMemberLocked records a queued pod as a member of its group.
func (q *Queue) trackMemberLocked(pod *v1.Pod) {
	g, ok := q.groupOf(pod)
	if !ok {
		return
	}
	members := q.members[g]
	if members == nil {
		members = make(map[string]*v1.Pod)
		q.members[g] = members
	}
	members[podKey(pod)] = pod
}

// untrackMemberLocked forgets a pod that left the queue for good.
func (q *Queue) untrackMemberLocked(pod *v1.Pod) {
	g, ok := q.groupOf(pod)
	if !ok {
		return
	}
	delete(q.members[g], podKey(pod))
	if len(q.members[g]) == 0 {
		delete(q.members, g)
	}
}

// takeGroupLocked is called by Pop for a popped pod p that names a group.
// It returns the group with every queued member, p included, out of the
// sub-queues and in flight; or nil, with p back in the unschedulable set,
// when the group's PodGroup is unknown or a member is gated.
func (q *Queue) takeGroupLocked(ctx context.Context, p *framework.QueuedPodInfo, g groupKey) *framework.QueuedPodGroupInfo {
	logger := klog.FromContext(ctx)
	pg, err := q.podGroups.Get(g.namespace, g.name)
	if err != nil {
		logger.V(5).Info("Pod waits for its pod group to be observed", "pod", klog.KObj(p.Pod), "podGroup", g.name)
		q.parkLocked(p, "", nil)
		if q.incomplete[g] == nil {
			q.incomplete[g] = sets.New[string]()
		}
		q.incomplete[g].Insert(podInfoKey(p))
		return nil
	}
	var members []*framework.QueuedPodInfo
	for key, pod := range q.members[g] {
		if key == podInfoKey(p) {
			continue
		}
		m := q.findLocked(q.profiles[pod.Spec.SchedulerName], pod)
		if m == nil {
			continue
		}
		if m.Gated() {
			// The event that admits p may have admitted its siblings too
			// (the last member of a gang arrived): ask again.
			if pq, ok := q.profiles[m.Pod.Spec.SchedulerName]; ok {
				runPreEnqueue(ctx, pq, m)
			}
			if m.Gated() {
				logger.V(5).Info("Pod group is gated by a member", "pod", klog.KObj(p.Pod), "podGroup", g.name, "member", klog.KObj(m.Pod), "plugin", m.GatingPlugin)
				q.parkLocked(p, m.GatingPlugin, m.GatingPluginEvents)
				return nil
			}
		}
		members = append(members, m)
	}
	group := &framework.QueuedPodGroupInfo{
		PodGroupInfo: &framework.PodGroupInfo{
			Namespace: g.namespace,
			Name:      g.name,
			Type:      fwk.PodGroupKeyType,
			PodGroup:  pg,
			Children:  make([]*framework.PodGroupInfo, 0),
		},
		QueueingParams: framework.QueueingParams{
			Timestamp:               p.Timestamp,
			Attempts:                p.Attempts,
			InitialAttemptTimestamp: p.InitialAttemptTimestamp,
			UnschedulablePlugins:    sets.New[string](),
			PendingPlugins:          sets.New[string](),
		},
		QueuedPodInfos: make(map[fwk.EntityKey][]*framework.QueuedPodInfo),
	}
	group.AddPod(p)
	for _, m := range members {
		q.removeLocked(m)
		m.Attempts++
		q.inFlight[m.Pod.UID] = q.seq
		group.AddPod(m)
	}
	logger.V(4).Info("Popped pod group", "podGroup", klog.KObj(group), "members", group.Size())
	return group
}

// removeLocked takes a queued pod out of whichever sub-queue holds it.
func (q *Queue) removeLocked(p *framework.QueuedPodInfo) {
	key := podInfoKey(p)
	if pq, ok := q.profiles[p.Pod.Spec.SchedulerName]; ok {
		if _, ok := pq.active.GetByKey(key); ok {
			pq.active.Delete(p)
			return
		}
	}
	if _, ok := q.backoff.getByKey(key); ok {
		q.backoff.delete(p)
		return
	}
	delete(q.unschedulable, key)
}

// parkLocked puts a popped pod of a group that cannot be scheduled now
// back in the unschedulable set, gated by plugin when a sibling is. It is
// no longer in flight: nothing was attempted.
func (q *Queue) parkLocked(p *framework.QueuedPodInfo, plugin string, events []fwk.ClusterEvent) {
	p.Attempts--
	if plugin != "" {
		p.GatingPlugin = plugin
		p.GatingPluginEvents = events
	}
	p.Timestamp = q.clock.Now()
	q.unschedulable[podInfoKey(p)] = p
	q.doneLocked(p.Pod.UID)
}

// AddPodGroup tells the queue a PodGroup was observed: its members that
// waited for it go through PreEnqueue to the active heap, as upstream
// moves its incomplete pod group pods.
func (q *Queue) AddPodGroup(ctx context.Context, namespace, name string) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	g := groupKey{namespace: namespace, name: name}
	keys := q.incomplete[g]
	delete(q.incomplete, g)
	for key := range keys {
		if p, ok := q.unschedulable[key]; ok {
			q.moveToActiveLocked(ctx, p, framework.EventUnscheduledPodAdd.Label())
		}
	}
}
