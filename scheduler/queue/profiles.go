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
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/heap"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// profileChanged is the label of the event that re-evaluates every pod of
// a profile whose framework was replaced.
const profileChanged = "ProfileChanged"

// eventProfileChanged moves the pods of a replaced profile out of the
// unschedulable set: the new plugins may accept them.
var eventProfileChanged = fwk.ClusterEvent{Resource: fwk.WildCard, ActionType: fwk.All, CustomLabel: profileChanged}

// hintFunction is one plugin's queueing hint for one event.
type hintFunction struct {
	pluginName string
	fn         fwk.QueueingHintFn
}

type hintMap map[fwk.ClusterEvent][]hintFunction

// profileQueue is what the queue keeps per served schedulerName. It is
// replaced as a whole when the profile's framework changes; only active
// changes after that, under Queue.lock.
type profileQueue struct {
	name         string
	less         fwk.LessFunc
	preEnqueue   []fwk.PreEnqueuePlugin
	pluginEvents map[string][]fwk.ClusterEvent
	hints        hintMap
	active       *heap.Heap[*framework.QueuedPodInfo]
}

// SetProfile starts serving schedulerName with fw's QueueSort, PreEnqueue
// plugins and queueing hints, or replaces them. Pods already queued for the
// name are re-sorted, re-checked by the new PreEnqueue plugins, and the
// unschedulable ones are retried.
//
// more are other frameworks serving the name beside fw (a rollout's
// candidate): their queueing hints requeue the pods their plugins
// rejected; fw's QueueSort and PreEnqueue plugins are the queue's.
func (q *Queue) SetProfile(ctx context.Context, name string, fw framework.Framework, more ...framework.Framework) error {
	extensions := fw.EnqueueExtensions()
	for _, m := range more {
		extensions = append(slices.Clip(extensions), m.EnqueueExtensions()...)
	}
	hints, pluginEvents, err := buildHints(ctx, extensions)
	if err != nil {
		return err
	}
	pq := &profileQueue{
		name:         name,
		less:         fw.QueueSortFunc(),
		preEnqueue:   fw.PreEnqueuePlugins(),
		pluginEvents: pluginEvents,
		hints:        hints,
	}
	less := pq.less
	pq.active = heap.New(podInfoKey, func(a, b *framework.QueuedPodInfo) bool { return less(a, b) })

	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	old := q.profiles[name]
	q.profiles[name] = pq
	if old == nil {
		return nil
	}
	for _, p := range old.active.List() {
		q.moveToActiveLocked(ctx, p, profileChanged)
	}
	var toMove []*framework.QueuedPodInfo
	for _, p := range q.unschedulable {
		if p.Pod.Spec.SchedulerName == name {
			toMove = append(toMove, p)
		}
	}
	q.moveToActiveOrBackoffLocked(ctx, toMove, eventProfileChanged, nil, nil)
	q.wakeLocked(name)
	return nil
}

// RemoveProfile stops serving schedulerName and drops its pods from every
// sub-queue. It returns how many pods were dropped.
func (q *Queue) RemoveProfile(name string) int {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	pq, ok := q.profiles[name]
	if !ok {
		return 0
	}
	delete(q.profiles, name)
	// Its loop stops; a loop of a profile of the same name added later
	// waits on a new one.
	if c := q.waiters[name]; c != nil {
		c.Broadcast()
		delete(q.waiters, name)
	}
	n := 0
	for _, p := range pq.active.List() {
		q.nominator.delete(p.Pod)
		q.untrackMemberLocked(p.Pod)
		n++
	}
	for _, p := range q.backoff.list() {
		if p.Pod.Spec.SchedulerName == name {
			q.backoff.delete(p)
			q.nominator.delete(p.Pod)
			q.untrackMemberLocked(p.Pod)
			n++
		}
	}
	for k, p := range q.unschedulable {
		if p.Pod.Spec.SchedulerName == name {
			delete(q.unschedulable, k)
			q.nominator.delete(p.Pod)
			q.untrackMemberLocked(p.Pod)
			n++
		}
	}
	return n
}

// Serves reports whether a profile for schedulerName is set.
func (q *Queue) Serves(name string) bool {
	q.lock.Lock()
	defer q.lock.Unlock()
	_, ok := q.profiles[name]
	return ok
}

// interestedLocked reports whether a queueing hint of any profile asks for
// event.
func (q *Queue) interestedLocked(event fwk.ClusterEvent) bool {
	if framework.ClusterEventIsWildCard(event) {
		return true
	}
	for _, pq := range q.profiles {
		for want := range pq.hints {
			if framework.MatchClusterEvents(want, event) {
				return true
			}
		}
	}
	return false
}

// buildHints collects, per cluster event, the plugins interested in it and
// their hint functions, plus each plugin's events (for gated pods).
func buildHints(ctx context.Context, exts []fwk.EnqueueExtensions) (hintMap, map[string][]fwk.ClusterEvent, error) {
	hints := make(hintMap)
	pluginEvents := make(map[string][]fwk.ClusterEvent)
	var errs []error
	for _, e := range exts {
		events, err := e.EventsToRegister(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %s: %w", e.Name(), err))
			continue
		}
		for _, ev := range events {
			fn := ev.QueueingHintFn
			if fn == nil {
				fn = func(klog.Logger, *v1.Pod, interface{}, interface{}) (fwk.QueueingHint, error) { return fwk.Queue, nil }
			}
			hf := hintFunction{pluginName: e.Name(), fn: fn}
			pluginEvents[e.Name()] = append(pluginEvents[e.Name()], ev.Event)
			if ev.Event.Resource == fwk.Pod {
				for _, pe := range framework.UnrollPodEvent(ev.Event) {
					hints[pe] = append(hints[pe], hf)
				}
			} else {
				hints[ev.Event] = append(hints[ev.Event], hf)
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return hints, pluginEvents, nil
}

// Events returns the union of the events the profile's plugins registered,
// so the caller can watch the resources they name.
func Events(ctx context.Context, fw framework.Framework) ([]fwk.ClusterEvent, error) {
	hints, _, err := buildHints(ctx, fw.EnqueueExtensions())
	if err != nil {
		return nil, err
	}
	out := make([]fwk.ClusterEvent, 0, len(hints))
	for e := range hints {
		out = append(out, e)
	}
	return out, nil
}
