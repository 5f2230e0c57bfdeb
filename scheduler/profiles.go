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

package scheduler

import (
	"context"
	"errors"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
	"github.com/prometheus/client_golang/prometheus"
)

// informerSyncTimeout bounds how long Apply waits for informers that a new
// framework's plugins started.
const informerSyncTimeout = 30 * time.Second

// Apply builds a framework for p and swaps it in. See ProfileSet.
//
// It holds applyMu throughout, so swaps of one schedulerName are published
// in the order they were asked for, but the builder's lock only while
// building:
// Validate never waits for an Apply that waits for informers to sync.
func (s *Scheduler) Apply(ctx context.Context, p Profile) (applied Applied, err error) {
	start := time.Now()
	defer func() { observeSwap(p.Config.SchedulerName, start, err) }()
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	logger := klog.FromContext(ctx)
	if err := s.ctx.Err(); err != nil {
		return Applied{}, errors.New("scheduler is stopped")
	}
	name := p.Config.SchedulerName
	lp, err := s.builder.build(ctx, p, s.loops.loopFor(name).snapshot)
	if err != nil {
		s.dropUnservedLoop(name)
		return Applied{}, err
	}
	if err := s.watcher.watch(ctx, lp.events); err != nil {
		lp.retire(logger)
		s.dropUnservedLoop(name)
		return Applied{}, err
	}
	if s.started.Load() {
		s.builder.waitForInformers(ctx, name)
	}

	// A generation swapped in at once ends a rollout of the name: its
	// candidate is retired (the queue is set below).
	s.rollbackLocked(ctx, name, false)
	prev := s.gens.setServing(name, lp)
	if err := s.queue.SetProfile(ctx, name, lp.fw); err != nil {
		// Events were computed from the same framework in build; this only
		// fails if a plugin answers differently the second time.
		logger.Error(err, "Queue refused profile", "profile", name)
	}
	if prev != nil {
		prev.retire(logger)
		logger.V(2).Info("Profile replaced", "profile", name, "plugins", lp.applied.Plugins)
	} else {
		logger.V(2).Info("Profile added", "profile", name, "plugins", lp.applied.Plugins)
		if s.started.Load() {
			s.enqueuePending(ctx, name)
		}
		s.loops.start(name)
	}
	return lp.applied, nil
}

// Validate builds a framework for p and closes it again. See ProfileSet.
//
// It takes the builder's lock only, never applyMu: admission answers while an Apply
// waits for informers.
func (s *Scheduler) Validate(ctx context.Context, p Profile) (Applied, error) {
	lp, err := s.builder.build(ctx, p, internalcache.NewEmptySnapshot())
	if err != nil {
		return Applied{}, err
	}
	lp.retire(klog.FromContext(ctx))
	return lp.applied, nil
}

// Remove stops serving schedulerName. See ProfileSet.
func (s *Scheduler) Remove(ctx context.Context, schedulerName string) bool {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	logger := klog.FromContext(ctx)
	if s.gens.serving(schedulerName) == nil {
		return false
	}
	s.rollbackLocked(ctx, schedulerName, false)
	dropped := s.queue.RemoveProfile(schedulerName)
	prev := s.gens.setServing(schedulerName, nil)
	s.loops.stop(schedulerName)
	prev.retire(logger)
	forgetProfileSeries(schedulerName)
	logger.V(2).Info("Profile removed", "profile", schedulerName, "droppedPods", dropped)
	return true
}

// Serving reports whether a framework serves schedulerName now.
func (s *Scheduler) Serving(schedulerName string) bool {
	return s.gens.serving(schedulerName) != nil
}

// dropUnservedLoop forgets name's loop when it never started and no
// profile serves name (an Apply of a new name that failed).
func (s *Scheduler) dropUnservedLoop(name string) {
	if !s.Serving(name) {
		s.loops.dropUnstarted(name)
	}
}

// enqueuePending queues the pending pods of a profile that just appeared.
func (s *Scheduler) enqueuePending(ctx context.Context, name string) {
	pods, err := s.podLister.List(labels.Everything())
	if err != nil {
		klog.FromContext(ctx).Error(err, "Listing pods failed")
		return
	}
	pending := make([]*v1.Pod, 0, len(pods))
	for _, pod := range pods {
		if pod.Spec.SchedulerName != name || pod.Spec.NodeName != "" ||
			pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		pending = append(pending, pod)
		// Every member is counted before any is queued, so that a gang's
		// PreEnqueue sees all of its members that exist.
		s.cache.AddPodGroupMember(pod)
	}
	// Queued in one documented order (queue.ComparePending), which is the
	// order a what-if review places them in.
	slices.SortFunc(pending, queue.ComparePending)
	n := 0
	for _, pod := range pending {
		if s.queue.Add(ctx, pod) {
			n++
		}
	}
	klog.FromContext(ctx).V(2).Info("Queued pending pods of profile", "profile", name, "pods", n)
}

// forgetProfileSeries removes the series of a removed profile from every
// metric of this package labelled by profile (or by its loop), so that a
// deleted profile leaves no series behind at the next scrape. Upstream's
// scheduler_* series labelled by profile are upstream's and stay, as in
// kube-scheduler.
func forgetProfileSeries(name string) {
	byProfile := prometheus.Labels{"profile": name}
	for _, v := range []*prometheus.MetricVec{
		profileSwaps.MetricVec, profileSwapDuration.MetricVec, bindChecksRefused.MetricVec, bindCheckSettles.MetricVec,
		bindCheckDuration.MetricVec, loopAssumeConflicts.MetricVec, rolloutCandidatePercent.MetricVec,
		rolloutAttempts.MetricVec, rolloutLatency.MetricVec,
		ExtenderCalls.MetricVec, ExtenderErrors.MetricVec, ExtenderCallDuration.MetricVec,
	} {
		v.DeletePartialMatch(byProfile)
	}
	byLoop := prometheus.Labels{"loop": name}
	loopBusySeconds.DeletePartialMatch(byLoop)
	loopWaitSeconds.DeletePartialMatch(byLoop)
}
