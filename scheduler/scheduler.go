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
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/featuregate"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

var (
	_ ProfileSet                     = &Scheduler{}
	_ manager.Runnable               = &Scheduler{}
	_ manager.LeaderElectionRunnable = &Scheduler{}
)

// New returns a scheduler serving no profile. Apply profiles before or after
// Start. The informer factory is shared; New registers the pod and node
// handlers on it, and Start starts it.
func New(client kubernetes.Interface, informerFactory informers.SharedInformerFactory, opts ...Option) (*Scheduler, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := checkFeatureGates(); err != nil {
		return nil, err
	}
	registry, err := newRegistry(o.outOfTreeRegistry)
	if err != nil {
		return nil, err
	}
	metrics.Register()
	registerMetrics()
	containCandidatePanics()

	base := context.Background()
	if o.logger != nil {
		base = klog.NewContext(base, *o.logger)
	}
	ctx, cancel := context.WithCancel(base)
	s := &Scheduler{
		client:          client,
		informerFactory: informerFactory,
		opts:            o,
		ctx:             ctx,
		cancel:          cancel,
		gens:            newGenerations(),
		assumes:         newAssumeLedger(),
		binds:           newBindHolds(),
		bindTiming:      &bindTiming{},
	}

	// Like upstream, the scheduler watches only non-terminal pods.
	informerFactory.InformerFor(&v1.Pod{}, newPodInformer)
	s.podLister = informerFactory.Core().V1().Pods().Lister()
	s.namespaces = informerFactory.Core().V1().Namespaces().Lister()

	s.broadcaster = o.broadcaster
	if s.broadcaster == nil {
		ec := o.eventClient
		if ec == nil {
			ec = client
		}
		s.broadcaster = events.NewBroadcaster(&events.EventSinkImpl{Interface: ec.EventsV1()})
		s.ownBroadcaster = true
	}

	s.cache = internalcache.New(ctx, nil,
		utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload),
		utilfeature.DefaultFeatureGate.Enabled(features.CompositePodGroup))
	queueOpts := []queue.Option{
		queue.WithClock(o.clock),
		queue.WithPodBackoff(o.podInitialBackoff, o.podMaxBackoff),
		queue.WithMaxInUnschedulable(o.maxInUnschedulable, o.unschedulableFlush),
		queue.WithPodLister(s.podLister),
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		queueOpts = append(queueOpts, queue.WithPodGroups(s.cache.PodGroups()))
	}
	s.queue = queue.New(queueOpts...)
	s.overcommit = newOvercommitWatch(s.cache, s.gens, s.bindTiming)
	s.binder = &binder{
		client: client, cache: s.cache, queue: s.queue, podLister: s.podLister,
		gens: s.gens, assumes: s.assumes, timing: s.bindTiming,
		opts: &s.opts,
	}
	s.watcher = &watcher{ctx: ctx, informerFactory: informerFactory, queue: s.queue, watched: make(map[fwk.EventResource]bool)}
	s.builder = &builder{
		ctx: ctx, client: client, kubeConfig: o.kubeConfig, parallelism: o.parallelism,
		registry: registry, informerFactory: informerFactory,
		metricsRecorder: metrics.NewMetricsAsyncRecorder(1000, time.Second, ctx.Done()),
		queue:           s.queue, cache: s.cache, broadcaster: s.broadcaster,
	}
	s.loops = newLoopSet(o.profileLoops, &s.running, s.newProfileLoop)

	if utilfeature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
		logger := klog.FromContext(ctx)
		claimInformer := informerFactory.Resource().V1().ResourceClaims().Informer()
		claimCache := assumecache.NewAssumeCache(logger, claimInformer, "ResourceClaim", "", nil)
		trackerOpts := resourceslicetracker.Options{
			EnableDeviceTaintRules:   utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules),
			EnableConsumableCapacity: utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
			SliceInformer:            informerFactory.Resource().V1().ResourceSlices(),
			KubeClient:               client,
		}
		if trackerOpts.EnableDeviceTaintRules {
			trackerOpts.TaintInformer = informerFactory.Resource().V1().DeviceTaintRules()
		}
		tracker, err := resourceslicetracker.StartTracker(ctx, trackerOpts)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("starting resource slice tracker: %w", err)
		}
		s.watcher.dra = &draHandles{
			manager:      dynamicresources.NewDRAManager(ctx, claimCache, tracker, informerFactory),
			claimCache:   claimCache,
			sliceTracker: tracker,
		}
	}
	csiManager := nodevolumelimits.NewCSIManager(informerFactory.Storage().V1().CSINodes().Lister())
	s.builder.sharedHandles = []frameworkruntime.Option{
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithSharedCSIManager(csiManager),
	}
	if s.watcher.dra != nil {
		s.builder.sharedHandles = append(s.builder.sharedHandles, frameworkruntime.WithSharedDRAManager(s.watcher.dra.manager))
	}

	if err := s.addPodAndNodeHandlers(); err != nil {
		cancel()
		return nil, err
	}
	if err := s.overcommit.addHandlers(informerFactory); err != nil {
		cancel()
		return nil, err
	}
	liveGenerations.add(s.gens)
	liveOvercommits.add(s.overcommit)
	return s, nil
}

// newPodInformer watches only pods that are not terminal and drops their
// managed fields, as upstream kube-scheduler does.
func newPodInformer(cs kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
	selector := fmt.Sprintf("status.phase!=%v,status.phase!=%v", v1.PodSucceeded, v1.PodFailed)
	informer := coreinformers.NewPodInformerWithOptions(cs, metav1.NamespaceAll, internalinterfaces.InformerOptions{
		ResyncPeriod:     resync,
		Indexers:         cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		TweakListOptions: func(o *metav1.ListOptions) { o.FieldSelector = selector },
	})
	_ = informer.SetTransform(func(obj interface{}) (interface{}, error) {
		if a, err := meta.Accessor(obj); err == nil && a.GetManagedFields() != nil {
			a.SetManagedFields(nil)
		}
		return obj, nil
	})
	return informer
}

// NeedLeaderElection reports that only the leader schedules.
func (s *Scheduler) NeedLeaderElection() bool { return true }

// HasSynced reports whether Start ran and every informer the scheduler
// handles has synced.
func (s *Scheduler) HasSynced() bool {
	return s.started.Load() && s.watcher.hasSynced()
}

// Start runs the scheduler until ctx is done. It starts the informer
// factory, waits for the caches, then schedules. On return every profile is
// closed and every binding goroutine has finished.
func (s *Scheduler) Start(ctx context.Context) error {
	if !s.started.CompareAndSwap(false, true) {
		return errors.New("scheduler already started")
	}
	logger := klog.FromContext(ctx)
	stopLifetime := context.AfterFunc(ctx, s.cancel)
	defer stopLifetime()
	defer s.cancel()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if s.ownBroadcaster {
		s.broadcaster.StartRecordingToSink(s.ctx.Done())
		defer s.broadcaster.Shutdown()
	}
	s.informerFactory.Start(s.ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), s.watcher.synced()...) {
		s.shutdown(logger)
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("informer caches did not sync")
	}
	logger.Info("Scheduler caches synced, scheduling")
	// Pods listed before a profile was applied are queued now.
	for _, name := range s.gens.names() {
		s.enqueuePending(ctx, name)
	}

	s.queue.Run(ctx)
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		s.overcommit.run(ctx, s.broadcaster)
	}()
	s.loops.startAll(ctx)
	<-ctx.Done()
	s.queue.Close()
	s.shutdown(logger)
	return nil
}

// shutdown waits for the scheduling loop and the binding goroutines, then
// closes every framework.
func (s *Scheduler) shutdown(logger klog.Logger) {
	s.cancel()
	s.running.Wait()
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	profiles, rollouts := s.gens.takeAll()
	for _, p := range profiles {
		p.retire(logger)
	}
	for _, r := range rollouts {
		r.stop()
		r.candidate.retire(logger)
	}
	liveGenerations.remove(s.gens)
	liveOvercommits.remove(s.overcommit)
}

// unsupportedGates are alpha gates of pod-group scheduling this scheduler
// does not implement: it refuses to start with them rather than schedule
// groups differently from upstream.
var unsupportedGates = []featuregate.Feature{features.CompositePodGroup, features.TopologyAwareWorkloadScheduling}

// checkFeatureGates refuses the gates the scheduler does not implement.
func checkFeatureGates() error {
	for _, g := range unsupportedGates {
		if utilfeature.DefaultFeatureGate.Enabled(g) {
			return fmt.Errorf("feature gate %s is not supported: profile-scheduler schedules PodGroups (GenericWorkload) without composite groups or topology-aware placement; turn %s off", g, g)
		}
	}
	return nil
}

// newProfileLoop makes the loop of name ("" for the one loop of every
// profile), sharing s's cache, queue, generations, assume ledger and
// binder.
func (s *Scheduler) newProfileLoop(name string) *profileLoop {
	snapshot := internalcache.NewEmptySnapshot()
	return &profileLoop{
		name:     name,
		cache:    s.cache,
		queue:    s.queue,
		gens:     s.gens,
		assumes:  s.assumes,
		binder:   s.binder,
		running:  &s.running,
		snapshot: snapshot,
		algorithm: &algorithm{
			snapshot:                 snapshot,
			percentageOfNodesToScore: s.opts.percentageOfNodesToScore,
			nextStartNodeIndex:       &s.nextStartNodeIndex,
			schedulingCycle:          s.queue.SchedulingCycle,
		},
	}
}

// LoopState returns the state of the loop that schedules name's pods;
// false when no started loop does.
func (s *Scheduler) LoopState(name string) (LoopState, bool) {
	if !s.Serving(name) {
		return LoopState{}, false
	}
	return s.loops.state(name, time.Now())
}
