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
	"io"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	upstream "k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// informerSyncTimeout bounds how long Apply waits for informers that a new
// framework's plugins started.
const informerSyncTimeout = 30 * time.Second

// profileMap is the live set, keyed by schedulerName. A published map is
// never modified; Apply and Remove publish a new one.
type profileMap map[string]*liveProfile

// liveProfile is one built framework and its lifetime.
//
// State machine: serving (in the map) → retired (out of the map, refs may
// be > 0: cycles and bindings still running on it) → closed (refs reached 0:
// plugins closed, context cancelled, informer handlers removed). mu is a
// leaf lock: nothing else is taken while it is held (close runs after it is
// released).
type liveProfile struct {
	fw framework.Framework
	// check runs the room-judging Filter plugins just before a bind
	// (bindcheck.go); nil when the profile enables none.
	check   *bindCheck
	applied Applied
	// profile it was built from (reviews build their own framework from
	// it, once per generation, and attach it).
	profile   Profile
	events    []fwk.ClusterEvent
	cancel    context.CancelFunc
	informers *frameworkInformers
	// stats count the generation's outcomes for a rollout's analysis.
	stats *generationStats

	mu      sync.Mutex
	refs    int
	retired bool
	closed  bool

	// attachedMu guards attached, what work beside the cycle attached to
	// this generation (Generation.Attach: the framework the reviews of the
	// generation share), closed with the profile. It is a leaf lock;
	// nothing is built or closed while it is held.
	attachedMu     sync.Mutex
	attached       io.Closer
	attachedClosed bool
}

// attachment returns what is attached to this generation, nil if nothing.
func (p *liveProfile) attachment() io.Closer {
	p.attachedMu.Lock()
	defer p.attachedMu.Unlock()
	return p.attached
}

// attach attaches c to this generation and closes what it replaces. It
// returns false, keeping nothing, once the profile is closed.
func (p *liveProfile) attach(c io.Closer) bool {
	p.attachedMu.Lock()
	if p.attachedClosed {
		p.attachedMu.Unlock()
		return false
	}
	old := p.attached
	p.attached = c
	p.attachedMu.Unlock()
	if old != nil {
		closeAttached(klog.Background(), old)
	}
	return true
}

// closeAttached closes what was attached to a generation.
func closeAttached(logger klog.Logger, c io.Closer) {
	if err := c.Close(); err != nil {
		logger.Error(err, "Closing what was attached to a profile failed")
	}
}

// acquire takes a reference for a cycle; it fails once the profile retired.
func (p *liveProfile) acquire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.retired {
		return false
	}
	p.refs++
	return true
}

// addRef takes one more reference for a caller that holds one already
// (a pod group's cycle, for each member's binding cycle).
func (p *liveProfile) addRef() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refs++
}

func (p *liveProfile) release(logger klog.Logger) {
	p.mu.Lock()
	p.refs--
	closeNow := p.retired && p.refs == 0 && !p.closed
	if closeNow {
		p.closed = true
	}
	p.mu.Unlock()
	if closeNow {
		p.close(logger)
	}
}

// retire takes the profile out of service; it is closed when the last
// reference is released (now, if there is none).
func (p *liveProfile) retire(logger klog.Logger) {
	p.mu.Lock()
	p.retired = true
	closeNow := p.refs == 0 && !p.closed
	if closeNow {
		p.closed = true
	}
	p.mu.Unlock()
	if closeNow {
		p.close(logger)
	}
}

func (p *liveProfile) close(logger klog.Logger) {
	if err := p.fw.Close(); err != nil {
		logger.Error(err, "Closing plugins failed", "profile", p.applied.SchedulerName)
	}
	if err := p.check.close(); err != nil {
		logger.Error(err, "Closing the bind check's plugins failed", "profile", p.applied.SchedulerName)
	}
	p.cancel()
	p.informers.removeHandlers()
	p.attachedMu.Lock()
	attached := p.attached
	p.attached, p.attachedClosed = nil, true
	p.attachedMu.Unlock()
	if attached != nil {
		closeAttached(logger, attached)
	}
	logger.V(2).Info("Framework closed", "profile", p.applied.SchedulerName)
}

// Apply builds a framework for p and swaps it in. See ProfileSet.
//
// It holds applyMu throughout, so swaps of one schedulerName are published
// in the order they were asked for, but buildMu only while building:
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
	lp, err := s.build(ctx, p, s.loopFor(name).snapshot)
	if err != nil {
		s.dropUnservedLoop(name)
		return Applied{}, err
	}
	if err := s.watch(ctx, lp.events); err != nil {
		lp.retire(logger)
		s.dropUnservedLoop(name)
		return Applied{}, err
	}
	if s.started.Load() {
		s.waitForInformers(ctx, name)
	}

	// A generation swapped in at once ends a rollout of the name: its
	// candidate is retired (the queue is set below).
	s.rollbackLocked(ctx, name, false)
	old := *s.profiles.Load()
	next := make(profileMap, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[name] = lp
	s.profiles.Store(&next)
	if err := s.queue.SetProfile(ctx, name, lp.fw); err != nil {
		// Events were computed from the same framework in build; this only
		// fails if a plugin answers differently the second time.
		logger.Error(err, "Queue refused profile", "profile", name)
	}
	if prev := old[name]; prev != nil {
		prev.retire(logger)
		logger.V(2).Info("Profile replaced", "profile", name, "plugins", lp.applied.Plugins)
	} else {
		logger.V(2).Info("Profile added", "profile", name, "plugins", lp.applied.Plugins)
		if s.started.Load() {
			s.enqueuePending(ctx, name)
		}
		s.startLoop(name)
	}
	return lp.applied, nil
}

// waitForInformers starts the informers that a new framework's plugins
// asked for and waits, at most informerSyncTimeout, until every informer
// of the factory has synced. It stops waiting when ctx or the scheduler
// ends. The caller holds applyMu and no other lock.
func (s *Scheduler) waitForInformers(ctx context.Context, profile string) {
	logger := klog.FromContext(ctx)
	s.informerFactory.Start(s.ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, informerSyncTimeout)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	for typ, ok := range s.informerFactory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			logger.Info("Informer not synced yet; the profile serves anyway", "profile", profile, "type", typ.String())
		}
	}
}

// Validate builds a framework for p and closes it again. See ProfileSet.
//
// It takes buildMu only, never applyMu: admission answers while an Apply
// waits for informers.
func (s *Scheduler) Validate(ctx context.Context, p Profile) (Applied, error) {
	lp, err := s.build(ctx, p, internalcache.NewEmptySnapshot())
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
	old := *s.profiles.Load()
	prev, ok := old[schedulerName]
	if !ok {
		return false
	}
	s.rollbackLocked(ctx, schedulerName, false)
	dropped := s.queue.RemoveProfile(schedulerName)
	next := make(profileMap, len(old))
	for k, v := range old {
		if k != schedulerName {
			next[k] = v
		}
	}
	s.profiles.Store(&next)
	s.stopLoop(schedulerName)
	prev.retire(logger)
	forgetProfileSeries(schedulerName)
	logger.V(2).Info("Profile removed", "profile", schedulerName, "droppedPods", dropped)
	return true
}

// Serving reports whether a framework serves schedulerName now.
func (s *Scheduler) Serving(schedulerName string) bool {
	_, ok := (*s.profiles.Load())[schedulerName]
	return ok
}

// acquireProfile returns the live profile for name with a reference taken,
// or nil when none serves it.
func (s *Scheduler) acquireProfile(name string) *liveProfile {
	for {
		p, ok := (*s.profiles.Load())[name]
		if !ok {
			return nil
		}
		if p.acquire() {
			return p
		}
		// Retired between the load and the acquire: the replacement is
		// already published, look again.
	}
}

// build creates the framework for p on snapshot (its loop's) under
// buildMu. It does no I/O and waits for nothing: plugins only register
// informers and handlers here.
func (s *Scheduler) build(ctx context.Context, p Profile, snapshot *internalcache.Snapshot) (*liveProfile, error) {
	s.buildMu.Lock()
	defer s.buildMu.Unlock()
	logger := klog.FromContext(ctx)
	if p.Config.SchedulerName == "" {
		return nil, errors.New("profile has no schedulerName")
	}
	prof, extenders, names, err := prepareBuild(p)
	if err != nil {
		return nil, err
	}
	name := prof.SchedulerName
	for i := range extenders {
		extenders[i] = instrumentExtender(name, extenders[i])
	}
	fctx, cancel := context.WithCancel(s.ctx)
	// The framework and its plugins outlive the call that builds them:
	// their logger is the scheduler's, with the profile and generation,
	// not the caller's (a reconcile's, whose ID would be stale).
	fctx = klog.NewContext(fctx, klog.FromContext(s.ctx).WithValues("profile", name, "generation", p.Generation))
	fi := newFrameworkInformers(s.informerFactory)
	opts := s.frameworkOptions(fi, snapshot, extenders, s.queue, s.broadcaster.NewRecorder(scheme.Scheme, name))
	fw, err := frameworkruntime.NewFramework(fctx, namedPluginLoggers(s.registry), prof, opts...)
	if err != nil {
		cancel()
		fi.removeHandlers()
		return nil, fmt.Errorf("building framework for %q: %w", name, err)
	}
	check, err := s.newBindCheck(fctx, prof, fw, fi)
	if err != nil {
		_ = fw.Close()
		cancel()
		fi.removeHandlers()
		return nil, fmt.Errorf("building framework for %q: %w", name, err)
	}
	lp := &liveProfile{
		fw:        fw,
		check:     check,
		profile:   p,
		cancel:    cancel,
		informers: fi,
		stats:     &generationStats{},
		applied: Applied{
			SchedulerName: name,
			Plugins:       fw.ListPlugins(),
			Extenders:     names,
		},
	}
	lp.events, err = queue.Events(fctx, fw)
	if err != nil {
		lp.retire(logger)
		return nil, fmt.Errorf("registering events for %q: %w", name, err)
	}
	return lp, nil
}

// prepareBuild returns what a framework of p is built from: a copy of its
// configuration, with the extended resources its extenders manage ignored
// by NodeResourcesFit, and its HTTP extenders with their names.
func prepareBuild(p Profile) (*config.KubeSchedulerProfile, []fwk.Extender, []string, error) {
	prof := p.Config.DeepCopy()
	extenders, names, ignored, err := buildExtenders(p.Extenders)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("extenders: %w", err)
	}
	if len(ignored) > 0 {
		if err := setIgnoredResources(prof, ignored); err != nil {
			return nil, nil, nil, err
		}
	}
	return prof, extenders, names, nil
}

// frameworkOptions are the options every framework of this scheduler is
// built with. A live profile's and a review's differ only in what is passed
// here: the snapshot its plugins read, who activates pods and where events
// go (a review's reach nothing live).
func (s *Scheduler) frameworkOptions(fi *frameworkInformers, snapshot *internalcache.Snapshot, extenders []fwk.Extender,
	activator fwk.PodActivator, recorder events.EventRecorderLogger) []frameworkruntime.Option {
	return append([]frameworkruntime.Option{
		frameworkruntime.WithClientSet(s.client),
		frameworkruntime.WithKubeConfig(s.opts.kubeConfig),
		frameworkruntime.WithInformerFactory(fi),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithParallelism(s.opts.parallelism),
		frameworkruntime.WithExtenders(extenders),
		frameworkruntime.WithMetricsRecorder(s.metricsRecorder),
		frameworkruntime.WithPodNominator(s.queue),
		frameworkruntime.WithPodActivator(activator),
		frameworkruntime.WithPodGroupManager(s.cache),
		frameworkruntime.WithEventRecorder(recorder),
	}, s.sharedHandles...)
}

// buildExtenders creates the HTTP extenders of a profile, ignorable ones
// last (as upstream), and returns the extended resources they ask the
// scheduler to ignore.
func buildExtenders(cfgs []config.Extender) ([]fwk.Extender, []string, []string, error) {
	var out, ignorable []fwk.Extender
	var names, ignored []string
	for i := range cfgs {
		c := cfgs[i]
		e, err := upstream.NewHTTPExtender(&c)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("extender %s: %w", c.URLPrefix, err)
		}
		if e.IsIgnorable() {
			ignorable = append(ignorable, e)
		} else {
			out = append(out, e)
		}
		names = append(names, e.Name())
		for _, r := range c.ManagedResources {
			if r.IgnoredByScheduler {
				ignored = append(ignored, r.Name)
			}
		}
	}
	return append(out, ignorable...), names, ignored, nil
}

// setIgnoredResources tells NodeResourcesFit to ignore the resources the
// profile's extenders manage, as upstream does for its global extenders.
func setIgnoredResources(prof *config.KubeSchedulerProfile, ignored []string) error {
	for i := range prof.PluginConfig {
		if prof.PluginConfig[i].Name != noderesources.Name {
			continue
		}
		args, ok := prof.PluginConfig[i].Args.(*config.NodeResourcesFitArgs)
		if !ok {
			return fmt.Errorf("want args of %s to be NodeResourcesFitArgs, got %T", noderesources.Name, prof.PluginConfig[i].Args)
		}
		args.IgnoredResources = ignored
		return nil
	}
	return fmt.Errorf("can't find NodeResourcesFitArgs in plugin config")
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

// namedPluginLoggers wraps each factory of registry so that the plugin it
// builds gets a logger with its name (as "plugin") for the work it does on
// its own, outside the framework's calls, whose loggers upstream names.
func namedPluginLoggers(registry frameworkruntime.Registry) frameworkruntime.Registry {
	out := make(frameworkruntime.Registry, len(registry))
	for name, factory := range registry {
		out[name] = func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			return factory(klog.NewContext(ctx, klog.FromContext(ctx).WithValues("plugin", name)), args, h)
		}
	}
	return out
}
