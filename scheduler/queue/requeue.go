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
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// A pod goes back to a sub-queue when its attempt fails, when a cluster
// event may help it, when a framework asks to activate it, or when it
// waited too long in the unschedulable set. Queueing hints of the profile
// serving it now decide between the unschedulable set, back-off and the
// active heap; a pod enters an active heap only through admitLocked, which
// runs that profile's PreEnqueue plugins.

// PreEnqueueCheck filters the pods an event may move.
type PreEnqueueCheck func(pod *v1.Pod) bool

// strategy is what queueing hints say about a pod and an event.
type strategy int

const (
	// queueSkip: the event does not help; the pod stays unschedulable.
	queueSkip strategy = iota
	// queueAfterBackoff: the pod may be retried once its back-off ends.
	queueAfterBackoff
	// queueImmediately: a plugin that left the pod pending is satisfied.
	queueImmediately
)

// subQueue is where requeueLocked put a pod.
type subQueue int

const (
	// inUnschedulable: rejected pods and pods gated by PreEnqueue.
	inUnschedulable subQueue = iota
	inBackoff
	inActive
)

// String is the sub-queue's name, as upstream's metrics and logs say it.
func (s subQueue) String() string {
	switch s {
	case inBackoff:
		return "backoff"
	case inActive:
		return "active"
	default:
		return "unschedulable"
	}
}

// AddUnschedulableIfNotPresent puts back a pod whose attempt failed. Events
// that arrived while it was in flight are checked with the live profile's
// queueing hints: if one of them may help, the pod goes to back-off (or
// active) instead of the unschedulable set. A pod whose profile is gone is
// dropped.
func (q *Queue) AddUnschedulableIfNotPresent(ctx context.Context, p *framework.QueuedPodInfo) error {
	logger := klog.FromContext(ctx)
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	defer q.doneLocked(p.Pod.UID)

	pq, ok := q.profiles[p.Pod.Spec.SchedulerName]
	if !ok {
		logger.V(3).Info("Dropping pod whose profile is no longer served", "pod", klog.KObj(p.Pod))
		return nil
	}
	if q.findLocked(pq, p.Pod) != nil {
		return fmt.Errorf("pod %v is already queued", klog.KObj(p.Pod))
	}
	if failedWithError(p) {
		p.ConsecutiveErrorsCount++
	} else {
		p.UnschedulableCount++
		p.ConsecutiveErrorsCount = 0
	}
	p.Timestamp = q.clock.Now()
	p.BackoffExpiration = time.Time{}
	p.WasFlushedFromUnschedulable = false
	p.FlushTimestamp = time.Time{}
	for plugin := range p.UnschedulablePlugins.Union(p.PendingPlugins) {
		metrics.UnschedulableReason(plugin, p.Pod.Spec.SchedulerName).Inc()
	}
	s := q.hintForInFlightLocked(logger, p)
	where := q.requeueLocked(ctx, p, s, framework.ScheduleAttemptFailure)
	logger.V(3).Info("Pod moved to an internal scheduling queue", "pod", klog.KObj(p.Pod), "queue", where, "unschedulablePlugins", sets.List(p.UnschedulablePlugins))
	return nil
}

// Retry puts a popped pod straight back into its profile's active heap,
// as if it had not been popped: its attempt was not judged (it lost its
// node to another profile's loop at assume), so it is neither backed off
// nor counted unschedulable, and its place in the profile's order is kept.
func (q *Queue) Retry(ctx context.Context, p *framework.QueuedPodInfo) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	defer q.doneLocked(p.Pod.UID)
	if p.Attempts > 0 {
		p.Attempts--
	}
	if pq, ok := q.profiles[p.Pod.Spec.SchedulerName]; !ok || q.findLocked(pq, p.Pod) != nil {
		return
	}
	q.trackMemberLocked(p.Pod)
	q.moveToActiveLocked(ctx, p, assumeConflict)
}

// assumeConflict is the label of a pod retried because another loop took
// its node's room first (Retry).
const assumeConflict = "AssumeConflict"

// MoveAllToActiveOrBackoffQueue offers a cluster event to every
// unschedulable pod; the live profile's queueing hints for the plugins that
// rejected a pod decide whether it moves.
func (q *Queue) MoveAllToActiveOrBackoffQueue(ctx context.Context, event fwk.ClusterEvent, oldObj, newObj interface{}, preCheck PreEnqueueCheck) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	if !q.interestedLocked(event) {
		return
	}
	pods := make([]*framework.QueuedPodInfo, 0, len(q.unschedulable))
	for _, p := range q.unschedulable {
		if preCheck == nil || preCheck(p.Pod) {
			pods = append(pods, p)
		}
	}
	q.moveToActiveOrBackoffLocked(ctx, pods, event, oldObj, newObj)
	q.recordLocked(event, oldObj, newObj, "")
}

// Activate moves the given pods to the active heap if they wait in the
// back-off or unschedulable sets; for in-flight ones it records the
// request so they are retried when they come back. It implements
// fwk.PodActivator, whose signature takes a logger.
func (q *Queue) Activate(logger klog.Logger, pods map[string]*v1.Pod) {
	ctx := klog.NewContext(context.Background(), logger)
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	for _, pod := range pods {
		key := podKey(pod)
		if p, ok := q.unschedulable[key]; ok {
			q.moveToActiveLocked(ctx, p, framework.ForceActivate)
			continue
		}
		if p, ok := q.backoff.getByKey(key); ok {
			q.backoff.delete(p)
			q.moveToActiveLocked(ctx, p, framework.ForceActivate)
			continue
		}
		if _, ok := q.inFlight[pod.UID]; ok {
			q.recordLocked(framework.EventForceActivate, nil, pod, pod.UID)
		}
	}
}

func (q *Queue) moveToActiveOrBackoffLocked(ctx context.Context, pods []*framework.QueuedPodInfo, event fwk.ClusterEvent, oldObj, newObj interface{}) {
	logger := klog.FromContext(ctx)
	for _, p := range pods {
		if p.Gated() && !framework.ClusterEventIsWildCard(event) && !framework.MatchAnyClusterEvent(event, p.GatingPluginEvents) {
			continue
		}
		s := q.worthRequeuingLocked(logger, p, event, oldObj, newObj)
		if s == queueSkip {
			continue
		}
		delete(q.unschedulable, podInfoKey(p))
		where := q.requeueLocked(ctx, p, s, event.Label())
		logger.V(5).Info("Pod moved by cluster event", "pod", klog.KObj(p.Pod), "event", event.Label(), "queue", where)
	}
}

// worthRequeuingLocked asks the hint functions of the plugins that
// rejected p, from the profile serving p now, whether event may make p
// schedulable.
func (q *Queue) worthRequeuingLocked(logger klog.Logger, p *framework.QueuedPodInfo, event fwk.ClusterEvent, oldObj, newObj interface{}) strategy {
	rejectors := p.UnschedulablePlugins.Union(p.PendingPlugins)
	if rejectors.Len() == 0 {
		return queueAfterBackoff
	}
	if framework.ClusterEventIsWildCard(event) {
		if newObj != nil {
			if pod, ok := newObj.(*v1.Pod); !ok || pod.UID != p.Pod.UID {
				return queueSkip
			}
		}
		return queueAfterBackoff
	}
	pq, ok := q.profiles[p.Pod.Spec.SchedulerName]
	if !ok {
		return queueSkip
	}
	result := queueSkip
	for want, fns := range pq.hints {
		if !framework.MatchClusterEvents(want, event) {
			continue
		}
		for _, hf := range fns {
			if !rejectors.Has(hf.pluginName) {
				continue
			}
			hint, err := hf.fn(logger, p.Pod, oldObj, newObj)
			if err != nil {
				utilruntime.HandleErrorWithLogger(logger, err, "QueueingHintFn returned an error", "event", event.Label(), "plugin", hf.pluginName, "pod", klog.KObj(p.Pod))
				hint = fwk.Queue
			}
			if hint == fwk.QueueSkip {
				continue
			}
			if p.PendingPlugins.Has(hf.pluginName) {
				return queueImmediately
			}
			if p.PendingPlugins.Len() == 0 {
				return queueAfterBackoff
			}
			result = queueAfterBackoff
		}
	}
	return result
}

// requeueLocked puts p where s says and returns the sub-queue it went to.
func (q *Queue) requeueLocked(ctx context.Context, p *framework.QueuedPodInfo, s strategy, event string) subQueue {
	if s == queueSkip {
		q.unschedulable[podInfoKey(p)] = p
		metrics.SchedulerQueueIncomingPods.WithLabelValues(inUnschedulable.String(), event).Inc()
		return inUnschedulable
	}
	if s == queueAfterBackoff && q.isBackingOffLocked(p) {
		delete(q.unschedulable, podInfoKey(p))
		q.backoff.addOrUpdate(p)
		metrics.SchedulerQueueIncomingPods.WithLabelValues(inBackoff.String(), event).Inc()
		q.wakeBackoffLoop()
		if q.popFromBackoff {
			// An idle Pop may take it now.
			q.wakeLocked(p.Pod.Spec.SchedulerName)
		}
		return inBackoff
	}
	if q.moveToActiveLocked(ctx, p, event) {
		return inActive
	}
	return inUnschedulable
}

// moveToActiveLocked runs the live profile's PreEnqueue plugins and puts p
// in its active heap, or in the unschedulable set when a plugin gates it.
func (q *Queue) moveToActiveLocked(ctx context.Context, p *framework.QueuedPodInfo, event string) bool {
	pq := q.admitLocked(ctx, p, event)
	if pq == nil {
		return false
	}
	pq.active.AddOrUpdate(p)
	q.wakeLocked(pq.name)
	return true
}

// admitLocked decides whether p may be scheduled now and returns the queue
// of the profile serving it. It returns nil, leaving p out of every
// sub-queue, when no profile serves p, and nil with p in the unschedulable
// set when one of the profile's PreEnqueue plugins gates it.
func (q *Queue) admitLocked(ctx context.Context, p *framework.QueuedPodInfo, event string) *profileQueue {
	pq, ok := q.profiles[p.Pod.Spec.SchedulerName]
	if !ok {
		delete(q.unschedulable, podInfoKey(p))
		return nil
	}
	runPreEnqueue(ctx, pq, p)
	if p.Gated() {
		p.WasFlushedFromUnschedulable = false
		q.unschedulable[podInfoKey(p)] = p
		metrics.SchedulerQueueIncomingPods.WithLabelValues("gated", event).Inc()
		klog.FromContext(ctx).V(5).Info("Pod is gated", "pod", klog.KObj(p.Pod), "plugin", p.GatingPlugin, "event", event)
		return nil
	}
	delete(q.unschedulable, podInfoKey(p))
	p.SetInitialAttemptTimestamp(q.clock.Now())
	metrics.SchedulerQueueIncomingPods.WithLabelValues(inActive.String(), event).Inc()
	return pq
}

// runPreEnqueue runs pq's PreEnqueue plugins on p and records, on p, the
// first one that gates it. The caller holds the lock that guards p.
func runPreEnqueue(ctx context.Context, pq *profileQueue, p *framework.QueuedPodInfo) {
	logger := klog.FromContext(ctx)
	for _, pl := range pq.preEnqueue {
		s := pl.PreEnqueue(ctx, p.Pod)
		if s.IsSuccess() {
			continue
		}
		if !p.UnschedulablePlugins.Has(pl.Name()) && !p.PendingPlugins.Has(pl.Name()) {
			metrics.UnschedulableReason(pl.Name(), p.Pod.Spec.SchedulerName).Inc()
		}
		if p.UnschedulablePlugins == nil {
			p.UnschedulablePlugins = sets.New[string]()
		}
		p.UnschedulablePlugins.Insert(pl.Name())
		p.GatingPlugin = pl.Name()
		p.GatingPluginEvents = pq.pluginEvents[pl.Name()]
		if s.Code() == fwk.Error {
			utilruntime.HandleErrorWithLogger(logger, s.AsError(), "PreEnqueue plugin failed", "pod", klog.KObj(p.Pod), "plugin", pl.Name())
		} else {
			logger.V(4).Info("Status after running PreEnqueue plugin", "pod", klog.KObj(p.Pod), "plugin", pl.Name(), "status", s)
		}
		return
	}
	p.GatingPlugin = ""
	p.GatingPluginEvents = nil
}

// unschedulableLoop retries, every flushInterval, the pods that waited in
// the unschedulable set longer than maxInUnschedulable.
func (q *Queue) unschedulableLoop(ctx context.Context) {
	t := q.clock.NewTicker(q.flushInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			q.flushUnschedulableLeftover(ctx)
		}
	}
}

func (q *Queue) flushUnschedulableLeftover(ctx context.Context) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	now := q.clock.Now()
	var pods []*framework.QueuedPodInfo
	for _, p := range q.unschedulable {
		last := p.Timestamp
		if p.FlushTimestamp.After(last) {
			last = p.FlushTimestamp
		}
		if now.Sub(last) > q.maxInUnschedulable {
			p.WasFlushedFromUnschedulable = true
			p.FlushTimestamp = now
			pods = append(pods, p)
		}
	}
	q.moveToActiveOrBackoffLocked(ctx, pods, framework.EventUnschedulableTimeout, nil, nil)
}
