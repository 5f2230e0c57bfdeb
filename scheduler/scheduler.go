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
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
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

// Scheduler schedules pods with the profiles applied to it.
//
// Goroutines: a scheduling loop per served profile, or one for all
// (loop.go; each alone updates its snapshot), one binding goroutine
// per assumed pod (whose bind checks take turns per profile, bindcheck.go),
// the queue's back-off and unschedulable loops, the overcommit watcher
// (overcommit.go), informer handlers, and reviews (package review, through
// host.go), which read the cache into a snapshot of their own.
//
// Locks, in the order they are taken (a lock is never taken while one
// later in the list is held):
//
//	applyMu → buildMu
//	a caller's own lock (review.Reviews.mu) → buildMu (BuildFramework)
//	applyMu → watchMu
//	applyMu → queue's lock → nominator's lock
//	Arbiter.mu → bindCheck.mu (the arbiter's own check) → bindHolds.mu
//	assumeMu → bindCheck.mu → the cache's lock (a loop's assume)
//	applyMu → loopsMu
//
// applyMu serializes Apply and Remove (and shutdown), and is held while an
// Apply waits, up to informerSyncTimeout, for informers to sync. buildMu
// serializes framework builds, of Apply and of Validate alike, and is held
// for the build alone, which waits for nothing: so Validate (admission's
// dry-run) never waits for an Apply. buildMu and watchMu are never held
// together. liveProfile.mu, liveProfile.attachedMu, bindHolds.mu and the
// cache's lock are leaves. The live
// profile set is an immutable map behind an atomic pointer, read once per
// cycle without a lock. The cache and the queue survive every swap.
type Scheduler struct {
	client          kubernetes.Interface
	informerFactory informers.SharedInformerFactory
	podLister       listersv1.PodLister
	opts            options
	registry        frameworkruntime.Registry

	cache           internalcache.Cache
	queue           *queue.Queue
	metricsRecorder *metrics.MetricAsyncRecorder
	broadcaster     events.EventBroadcaster
	ownBroadcaster  bool
	// sharedHandles are the framework options every profile gets: waiting
	// pods, pods in pre-bind, DRA and CSI managers.
	sharedHandles []frameworkruntime.Option

	draManager           *dynamicresources.DefaultDRAManager
	resourceClaimCache   *assumecache.AssumeCache
	resourceSliceTracker *resourceslicetracker.Tracker

	// ctx lives as long as the scheduler; frameworks derive theirs from it.
	ctx    context.Context
	cancel context.CancelFunc

	// applyMu serializes Apply, Remove and shutdown.
	applyMu sync.Mutex
	// buildMu serializes framework builds: plugin constructors add
	// indexers to the shared informers, and two builds adding the same
	// index at once would conflict.
	buildMu  sync.Mutex
	profiles atomic.Pointer[profileMap]
	// rollouts are the candidates of the profiles being rolled out
	// (rollout.go), published as profiles are.
	rollouts atomic.Pointer[rolloutMap]
	// shadowJudge judges the pods of shadow steps (SetShadowJudge).
	shadowJudge atomic.Pointer[ShadowJudge]

	watchMu  sync.Mutex
	watched  map[fwk.EventResource]bool
	handlers []cache.ResourceEventHandlerRegistration

	started atomic.Bool
	// running counts binding goroutines and the scheduling loop.
	running sync.WaitGroup

	// nextStartNodeIndex is where the next Filter pass starts, one for
	// every loop as upstream's is one for every profile. The scheduling
	// loops write it (through their algorithm); reviews read it.
	nextStartNodeIndex atomic.Int64

	// loopsMu guards loops, single's start and loopsCtx (loop.go).
	loopsMu sync.Mutex
	// loops are the scheduling loops by schedulerName, with profile loops
	// on; single is the one loop of every profile with them off.
	loops    map[string]*profileLoop
	single   *profileLoop
	loopsCtx context.Context
	// assumeMu serializes the loops' assumes in the cache, each checked
	// first when another loop assumed on its node since its snapshot;
	// assumes counts them, and assumedOn holds, by node, the count at the
	// node's last assume (under assumeMu; a node's entry outlives it, as
	// its name may come back).
	assumeMu  sync.Mutex
	assumes   atomic.Int64
	assumedOn map[string]int64

	// overcommit marks the nodes the overcommit watcher looks at next
	// (overcommit.go).
	overcommit *overcommitWatch
	// binds are the binds the bind arbiter admitted that the cache has
	// not seen yet (arbiter.go); the pod handlers release them.
	binds *bindHolds
	// bindTiming is what the bind check knows of how long binds take,
	// ours and other schedulers' (bindcheck.go).
	bindTiming bindTiming
}

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
	registerMetricsOnControllerRuntime()

	base := context.Background()
	if o.logger != nil {
		base = klog.NewContext(base, *o.logger)
	}
	ctx, cancel := context.WithCancel(base)
	s := &Scheduler{
		client:          client,
		informerFactory: informerFactory,
		opts:            o,
		registry:        registry,
		metricsRecorder: metrics.NewMetricsAsyncRecorder(1000, time.Second, ctx.Done()),
		ctx:             ctx,
		cancel:          cancel,
		watched:         make(map[fwk.EventResource]bool),
		overcommit:      newOvercommitWatch(),
		assumedOn:       make(map[string]int64),
		binds:           newBindHolds(),
	}
	empty := profileMap{}
	s.profiles.Store(&empty)
	noRollouts := rolloutMap{}
	s.rollouts.Store(&noRollouts)

	// Like upstream, the scheduler watches only non-terminal pods.
	informerFactory.InformerFor(&v1.Pod{}, newPodInformer)
	s.podLister = informerFactory.Core().V1().Pods().Lister()

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
	if o.profileLoops {
		s.loops = make(map[string]*profileLoop)
	} else {
		s.single = s.newLoop("")
	}

	if utilfeature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
		logger := klog.FromContext(ctx)
		claimInformer := informerFactory.Resource().V1().ResourceClaims().Informer()
		s.resourceClaimCache = assumecache.NewAssumeCache(logger, claimInformer, "ResourceClaim", "", nil)
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
		s.resourceSliceTracker = tracker
		s.draManager = dynamicresources.NewDRAManager(ctx, s.resourceClaimCache, tracker, informerFactory)
	}
	csiManager := nodevolumelimits.NewCSIManager(informerFactory.Storage().V1().CSINodes().Lister())
	s.sharedHandles = []frameworkruntime.Option{
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithSharedCSIManager(csiManager),
	}
	if s.draManager != nil {
		s.sharedHandles = append(s.sharedHandles, frameworkruntime.WithSharedDRAManager(s.draManager))
	}

	if err := s.addPodAndNodeHandlers(); err != nil {
		cancel()
		return nil, err
	}
	if err := s.addOvercommitHandlers(); err != nil {
		cancel()
		return nil, err
	}
	trackLive(s)
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
	if !s.started.Load() {
		return false
	}
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	for _, h := range s.handlers {
		if !h.HasSynced() {
			return false
		}
	}
	return true
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
	s.watchMu.Lock()
	synced := make([]cache.InformerSynced, 0, len(s.handlers))
	for _, h := range s.handlers {
		synced = append(synced, h.HasSynced)
	}
	s.watchMu.Unlock()
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		s.shutdown(logger)
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("informer caches did not sync")
	}
	logger.Info("Scheduler caches synced, scheduling")
	// Pods listed before a profile was applied are queued now.
	for name := range *s.profiles.Load() {
		s.enqueuePending(ctx, name)
	}

	s.queue.Run(ctx)
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		s.watchOvercommits(ctx)
	}()
	s.startLoops(ctx)
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
	old := s.profiles.Load()
	empty := profileMap{}
	s.profiles.Store(&empty)
	for _, p := range *old {
		p.retire(logger)
	}
	rollouts := s.rollouts.Load()
	noRollouts := rolloutMap{}
	s.rollouts.Store(&noRollouts)
	for _, r := range *rollouts {
		s.endRollout(r)
		r.candidate.retire(logger)
	}
	untrackLive(s)
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
