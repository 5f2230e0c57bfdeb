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
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// What work beside the live cycle (package review) is given: a reference
// on a serving generation, frameworks built from a profile on a snapshot
// of its own, the cache brought into that snapshot, and what the cache
// and the informers know of pods. Nothing here changes the cache, the
// queue or any object; the algorithm is Algorithm (algorithm.go) and
// RunPodGroupAlgorithm (algorithm_podgroup.go).

// ReviewHost is what work beside the live cycle is given of the
// scheduler (review.Host). Scheduler.ReviewHost returns it.
type ReviewHost struct {
	// ctx is the scheduler's lifetime: informers started for reviews run
	// as long as it.
	ctx             context.Context
	gens            *generations
	builder         *builder
	cache           internalcache.Cache
	informerFactory informers.SharedInformerFactory
	podLister       listersv1.PodLister
	overcommit      *overcommitWatch
	// synced is the scheduler's HasSynced.
	synced func() bool
	// percentageOfNodesToScore and nextStartNodeIndex are the live
	// cycle's, for Algorithm.
	percentageOfNodesToScore int32
	nextStartNodeIndex       *atomic.Int64
}

// ReviewHost returns what reviews are given of s.
func (s *Scheduler) ReviewHost() *ReviewHost {
	return &ReviewHost{
		ctx: s.ctx, gens: s.gens, builder: s.builder, cache: s.cache,
		informerFactory: s.informerFactory, podLister: s.podLister, overcommit: s.overcommit,
		synced:                   s.HasSynced,
		percentageOfNodesToScore: s.opts.percentageOfNodesToScore,
		nextStartNodeIndex:       &s.nextStartNodeIndex,
	}
}

// HasSynced reports whether the scheduler's informers have synced.
func (h *ReviewHost) HasSynced() bool { return h.synced() }

// Serving reports whether a profile serves schedulerName now.
func (h *ReviewHost) Serving(schedulerName string) bool { return h.gens.serving(schedulerName) != nil }

// NodeOvercommit is, when nodeName's bound pods request more than it
// has, which resources and which pods; nil when they do not.
func (h *ReviewHost) NodeOvercommit(nodeName string) *Overcommit {
	return h.overcommit.overcommit(nodeName)
}

// AcquireGeneration takes a reference on the generation serving
// schedulerName; nil when no profile serves it. Release it.
func (h *ReviewHost) AcquireGeneration(schedulerName string) *Generation {
	lp := h.gens.acquire(schedulerName)
	if lp == nil {
		return nil
	}
	return &Generation{lp: lp}
}

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
// Builds take turns with Apply's and Validate's (the builder's lock); the caller may
// hold a lock of its own, never one of the scheduler'b. Informers the
// plugins asked for are not started: SyncInformers does.
func (h *ReviewHost) BuildFramework(ctx context.Context, p Profile, snapshot *internalcache.Snapshot, parallelism int,
	setUp func(ctx context.Context, prof *config.KubeSchedulerProfile, fw framework.Framework) error) (fw framework.Framework, stop func(), err error) {
	return h.builder.buildBeside(ctx, p, snapshot, parallelism, setUp)
}

// SyncInformers starts the informers frameworks asked for and waits, at
// most informerSyncTimeout or until ctx ends, until every informer of
// the factory has synced.
func (h *ReviewHost) SyncInformers(ctx context.Context) error {
	h.informerFactory.Start(h.ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, informerSyncTimeout)
	defer cancel()
	for typ, ok := range h.informerFactory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			return fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	return nil
}

// UpdateSnapshot brings snapshot up to date with the cache, as a cycle's
// snapshot is: the cache's lock is held while the nodes that changed since
// snapshot's last update are copied.
func (h *ReviewHost) UpdateSnapshot(ctx context.Context, snapshot *internalcache.Snapshot) error {
	return h.cache.UpdateSnapshot(klog.FromContext(ctx), snapshot)
}

// IsAssumed reports whether the cache holds pod assumed on a node (its
// cycle placed it, its bind has not been observed yet).
func (h *ReviewHost) IsAssumed(pod *v1.Pod) bool {
	assumed, _ := h.cache.IsAssumedPod(pod)
	return assumed
}

// HasPodGroup reports whether the cache knows the PodGroup
// namespace/name.
func (h *ReviewHost) HasPodGroup(namespace, name string) bool {
	_, err := h.cache.PodGroups().Get(namespace, name)
	return err == nil
}

// Pods lists the pods the scheduler's informer knows.
func (h *ReviewHost) Pods() listersv1.PodLister { return h.podLister }

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
