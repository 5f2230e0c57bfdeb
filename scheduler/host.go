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
	"fmt"
	"io"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// What work beside the live cycle (package review) is given: a reference
// on a serving generation, frameworks built from a profile on a snapshot
// of its own, the cache brought into that snapshot, and what the cache
// and the informers know of pods. Nothing here changes the cache, the
// queue or any object; the algorithm is Algorithm (algorithm.go) and
// RunPodGroupAlgorithm (algorithm_podgroup.go).

// Generation is a reference on the generation of a profile serving now,
// taken as a scheduling cycle takes one: a swap or removal retires the
// generation, and it is closed, with what was attached to it, once its
// last reference is released.
type Generation struct{ lp *liveProfile }

// AcquireGeneration takes a reference on the generation serving
// schedulerName; nil when no profile serves it. Release it.
func (s *Scheduler) AcquireGeneration(schedulerName string) *Generation {
	lp := s.acquireProfile(schedulerName)
	if lp == nil {
		return nil
	}
	return &Generation{lp: lp}
}

// Release gives the reference back.
func (g *Generation) Release(ctx context.Context) { g.lp.release(klog.FromContext(ctx)) }

// Profile is the profile the generation was built from.
func (g *Generation) Profile() Profile { return g.lp.profile }

// SchedulerName is the schedulerName the generation serves.
func (g *Generation) SchedulerName() string { return g.lp.applied.SchedulerName }

// Attached is what Attach attached to the generation, nil if nothing.
func (g *Generation) Attached() io.Closer { return g.lp.attachment() }

// Attach attaches c to the generation, to be closed with it, and closes
// what c replaces. It returns false, attaching nothing, once the
// generation is closed.
func (g *Generation) Attach(c io.Closer) bool { return g.lp.attach(c) }

// BuildFramework builds a framework of p on snapshot for work beside the
// live cycle (a review). It shares the scheduler's informers, client (for
// reads), nominator (read only), CSI and DRA managers; it has its own
// waiting-pods and pre-bind maps, no event recorder and no pod activator,
// so nothing it does reaches the live scheduler; its Filter and Score
// passes run on parallelism goroutines; it logs with ctx's logger. setUp,
// when set, runs on the framework built, with the profile it was built
// from, while builds still take turns (what it builds may add indexers to
// the shared informers, as plugin constructors do); when it fails, the
// framework is closed. stop closes the framework's plugins, cancels its
// context and removes its informer handlers. A framework built here is
// counted in review_framework_builds_total, and in review_frameworks_open
// until stopped.
//
// Builds take turns with Apply's and Validate's (buildMu); the caller may
// hold a lock of its own, never one of the scheduler's. Informers the
// plugins asked for are not started: SyncInformers does.
func (s *Scheduler) BuildFramework(ctx context.Context, p Profile, snapshot *internalcache.Snapshot, parallelism int,
	setUp func(ctx context.Context, prof *config.KubeSchedulerProfile, fw framework.Framework) error) (fw framework.Framework, stop func(), err error) {
	prof, extenders, _, err := prepareBuild(p)
	if err != nil {
		return nil, nil, err
	}
	name := prof.SchedulerName
	reviewFrameworkBuilds.Inc()
	fctx, cancel := context.WithCancel(s.ctx)
	fctx = klog.NewContext(fctx, klog.FromContext(ctx))
	fi := newFrameworkInformers(s.informerFactory)
	opts := append(s.frameworkOptions(fi, snapshot, extenders, noActivation{}, discardEvents{}),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithParallelism(parallelism))
	s.buildMu.Lock()
	defer s.buildMu.Unlock()
	fw, err = frameworkruntime.NewFramework(fctx, s.registry, prof, opts...)
	if err != nil {
		cancel()
		fi.removeHandlers()
		return nil, nil, fmt.Errorf("building framework for %q: %w", name, err)
	}
	reviewFrameworksOpen.Inc()
	stop = func() {
		if err := fw.Close(); err != nil {
			klog.Background().Error(err, "Closing the plugins of a review failed")
		}
		cancel()
		fi.removeHandlers()
		reviewFrameworksOpen.Dec()
	}
	if setUp != nil {
		if err := setUp(fctx, prof, fw); err != nil {
			stop()
			return nil, nil, err
		}
	}
	return fw, stop, nil
}

// SyncInformers starts the informers frameworks asked for and waits, at
// most informerSyncTimeout or until ctx ends, until every informer of
// the factory has synced.
func (s *Scheduler) SyncInformers(ctx context.Context) error {
	s.informerFactory.Start(s.ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, informerSyncTimeout)
	defer cancel()
	for typ, ok := range s.informerFactory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			return fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	return nil
}

// UpdateSnapshot brings snapshot up to date with the cache, as a cycle's
// snapshot is: the cache's lock is held while the nodes that changed since
// snapshot's last update are copied.
func (s *Scheduler) UpdateSnapshot(ctx context.Context, snapshot *internalcache.Snapshot) error {
	return s.cache.UpdateSnapshot(klog.FromContext(ctx), snapshot)
}

// IsAssumed reports whether the cache holds pod assumed on a node (its
// cycle placed it, its bind has not been observed yet).
func (s *Scheduler) IsAssumed(pod *v1.Pod) bool {
	assumed, _ := s.cache.IsAssumedPod(pod)
	return assumed
}

// HasPodGroup reports whether the cache knows the PodGroup
// namespace/name.
func (s *Scheduler) HasPodGroup(namespace, name string) bool {
	_, err := s.cache.PodGroups().Get(namespace, name)
	return err == nil
}

// Pods lists the pods the scheduler's informer knows.
func (s *Scheduler) Pods() listersv1.PodLister { return s.podLister }

// noActivation drops the activations the plugins of a framework built
// beside the live cycle ask for.
type noActivation struct{}

func (noActivation) Activate(klog.Logger, map[string]*v1.Pod) {}

// discardEvents drops the events the plugins of a framework built beside
// the live cycle record.
type discardEvents struct{}

func (discardEvents) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...interface{}) {
}
func (d discardEvents) WithLogger(klog.Logger) events.EventRecorderLogger { return d }

// AssumedPods counts the pods of schedulerName the cache holds as assumed:
// placed by a scheduling cycle, not yet seen bound (bound pods are
// confirmed by the pod informer within moments). One left assumed for
// good would hold its node's room from every profile and the arbiter.
func (s *Scheduler) AssumedPods(schedulerName string) int {
	dump := s.cache.Dump()
	n := 0
	for _, ni := range dump.Nodes {
		for _, pi := range ni.GetPods() {
			p := pi.GetPod()
			if p.Spec.SchedulerName == schedulerName && dump.AssumedPods.Has(string(p.UID)) {
				n++
			}
		}
	}
	return n
}
