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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	upstream "k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// builder builds frameworks: a live profile's (build), a bind check's
// (newBindCheck, fitCheck, the arbiter's) and a review's (buildBeside),
// all from the same registry and with the same shared handles, on the
// snapshot each is given.
type builder struct {
	// ctx is the scheduler's lifetime; a framework's context derives
	// from it.
	ctx             context.Context
	client          kubernetes.Interface
	kubeConfig      *rest.Config
	parallelism     int
	registry        frameworkruntime.Registry
	informerFactory informers.SharedInformerFactory
	metricsRecorder *metrics.MetricAsyncRecorder
	// queue nominates pods and activates them; cache manages pod groups;
	// broadcaster records a live profile's events.
	queue       *queue.Queue
	cache       internalcache.Cache
	broadcaster events.EventBroadcaster
	// sharedHandles are the framework options every framework gets:
	// waiting pods, pods in pre-bind, DRA and CSI managers.
	sharedHandles []frameworkruntime.Option

	// mu serializes builds: plugin constructors add indexers to the
	// shared informers, and two builds adding the same index at once
	// would conflict. It is held for the build alone, which waits for
	// nothing; a caller's own locks may be held (applyMu, a review's).
	mu sync.Mutex
}

// build creates the framework for p on snapshot (its loop's) under
// the builder's lock. It does no I/O and waits for nothing: plugins only register
// informers and handlers here.
func (b *builder) build(ctx context.Context, p Profile, snapshot *internalcache.Snapshot) (*liveProfile, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
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
	fctx, cancel := context.WithCancel(b.ctx)
	// The framework and its plugins outlive the call that builds them:
	// their logger is the scheduler's, with the profile and generation,
	// not the caller's (a reconcile's, whose ID would be stale).
	fctx = klog.NewContext(fctx, klog.FromContext(b.ctx).WithValues("profile", name, "generation", p.Generation))
	fi := newFrameworkInformers(b.informerFactory)
	opts := b.frameworkOptions(fi, snapshot, extenders, b.queue, b.broadcaster.NewRecorder(scheme.Scheme, name))
	fw, err := frameworkruntime.NewFramework(fctx, namedPluginLoggers(b.registry), prof, opts...)
	if err != nil {
		cancel()
		fi.removeHandlers()
		return nil, fmt.Errorf("building framework for %q: %w", name, err)
	}
	check, err := b.newBindCheck(fctx, prof, fw, fi)
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
func (b *builder) frameworkOptions(fi *frameworkInformers, snapshot *internalcache.Snapshot, extenders []fwk.Extender,
	activator fwk.PodActivator, recorder events.EventRecorderLogger) []frameworkruntime.Option {
	return append([]frameworkruntime.Option{
		frameworkruntime.WithClientSet(b.client),
		frameworkruntime.WithKubeConfig(b.kubeConfig),
		frameworkruntime.WithInformerFactory(fi),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithParallelism(b.parallelism),
		frameworkruntime.WithExtenders(extenders),
		frameworkruntime.WithMetricsRecorder(b.metricsRecorder),
		frameworkruntime.WithPodNominator(b.queue),
		frameworkruntime.WithPodActivator(activator),
		frameworkruntime.WithPodGroupManager(b.cache),
		frameworkruntime.WithEventRecorder(recorder),
	}, b.sharedHandles...)
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

// newBindCheck builds the check of the framework fw built from prof, or
// returns nil when fw enables none of bindCheckPlugins at Filter.
func (b *builder) newBindCheck(ctx context.Context, prof *config.KubeSchedulerProfile, fw framework.Framework, fi *frameworkInformers) (*bindCheck, error) {
	listed := fw.ListPlugins()
	filter := keepPlugins(listed.Filter, bindCheckPlugins)
	if len(filter.Enabled) == 0 {
		return nil, nil
	}
	cfg := &config.KubeSchedulerProfile{
		SchedulerName: prof.SchedulerName + "/bind-check",
		Plugins: &config.Plugins{
			QueueSort: listed.QueueSort,
			PreFilter: keepPlugins(listed.PreFilter, sets.New(pluginNames(filter)...)),
			Filter:    filter,
			// GangScheduling is kept where the profile has it (the check
			// never runs Permit): with pod groups on, a framework without
			// it logs an error at build, about gangs the check never sees.
			Permit: keepPlugins(listed.Permit, sets.New(names.GangScheduling)),
			Bind:   listed.Bind,
		},
		PluginConfig: prof.PluginConfig,
	}
	return b.fitCheck(ctx, prof.SchedulerName, cfg, fi)
}

// fitCheck builds a check, labelled profile in metrics, running cfg's
// plugins on one node, its informers' handlers fi'b. The caller holds
// the builder's lock.
func (b *builder) fitCheck(ctx context.Context, profile string, cfg *config.KubeSchedulerProfile, fi *frameworkInformers) (*bindCheck, error) {
	lister := &oneNodeLister{empty: internalcache.NewEmptySnapshot()}
	opts := append([]frameworkruntime.Option{
		frameworkruntime.WithClientSet(b.client),
		frameworkruntime.WithKubeConfig(b.kubeConfig),
		frameworkruntime.WithInformerFactory(fi),
		frameworkruntime.WithSnapshotSharedLister(lister),
		frameworkruntime.WithParallelism(1),
		frameworkruntime.WithMetricsRecorder(b.metricsRecorder),
	}, b.sharedHandles...)
	checkFw, err := frameworkruntime.NewFramework(ctx, b.registry, cfg, opts...)
	if err != nil {
		return nil, fmt.Errorf("building the bind check: %w", err)
	}
	return &bindCheck{profile: profile, fw: checkFw, lister: lister}, nil
}

// buildBeside builds a framework for work beside the live cycle: see
// ReviewHost.BuildFramework.
func (b *builder) buildBeside(ctx context.Context, p Profile, snapshot *internalcache.Snapshot, parallelism int,
	setUp func(ctx context.Context, prof *config.KubeSchedulerProfile, fw framework.Framework) error) (fw framework.Framework, stop func(), err error) {
	prof, extenders, _, err := prepareBuild(p)
	if err != nil {
		return nil, nil, err
	}
	name := prof.SchedulerName
	reviewFrameworkBuilds.Inc()
	fctx, cancel := context.WithCancel(b.ctx)
	fctx = klog.NewContext(fctx, klog.FromContext(ctx))
	fi := newFrameworkInformers(b.informerFactory)
	opts := append(b.frameworkOptions(fi, snapshot, extenders, noActivation{}, discardEvents{}),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithParallelism(parallelism))
	b.mu.Lock()
	defer b.mu.Unlock()
	fw, err = frameworkruntime.NewFramework(fctx, b.registry, prof, opts...)
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

// Metrics of the frameworks built for reviews (buildBeside).
var (
	// reviewFrameworkBuilds counts the frameworks built for reviews
	// (BuildFramework, host.go): one per live profile generation reviewed,
	// one per draft review, one per run of a scenario.
	reviewFrameworkBuilds = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "review_framework_builds_total",
		Help:      "Frameworks built for SchedulingReviews (one per profile generation reviewed, per draft review, per scenario run).",
	})
	// reviewFrameworksOpen counts the review frameworks not closed yet.
	reviewFrameworksOpen = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "review_frameworks_open",
		Help:      "Frameworks built for SchedulingReviews and not closed yet.",
	})
)

// buildCollectors are the metrics declared here (registerMetrics).
func buildCollectors() []prometheus.Collector {
	return []prometheus.Collector{reviewFrameworkBuilds, reviewFrameworksOpen}
}

// waitForInformers starts the informers that a new framework's plugins
// asked for and waits, at most informerSyncTimeout, until every informer
// of the factory has synced. It stops waiting when ctx or the scheduler
// ends. The caller holds applyMu and no other lock (not the builder's).
func (b *builder) waitForInformers(ctx context.Context, profile string) {
	logger := klog.FromContext(ctx)
	b.informerFactory.Start(b.ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, informerSyncTimeout)
	defer cancel()
	stop := context.AfterFunc(b.ctx, cancel)
	defer stop()
	for typ, ok := range b.informerFactory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			logger.Info("Informer not synced yet; the profile serves anyway", "profile", profile, "type", typ.String())
		}
	}
}

// observeSwap records one Apply of schedulerName that began at start.
func observeSwap(schedulerName string, start time.Time, err error) {
	result := "swapped"
	if err != nil {
		result = "failed"
	} else {
		profileSwaps.WithLabelValues(schedulerName).Inc()
	}
	profileSwapDuration.WithLabelValues(schedulerName, result).Observe(time.Since(start).Seconds())
}

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

// Metrics of profile swaps: the frameworks built and swapped in by Apply
// and StartRollout.
var (
	// profileSwaps counts frameworks swapped in, per schedulerName.
	profileSwaps = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "profile_swaps_total",
		Help:      "Frameworks built and swapped in, by profile (schedulerName).",
	}, []string{"profile"})
	// profileSwapDuration observes how long Apply takes, per
	// schedulerName and result (swapped, failed).
	profileSwapDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "profile_swap_duration_seconds",
		Help:      "Time to build a profile's framework and swap it in, by profile and result.",
		Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"profile", "result"})
)

// swapCollectors are the metrics declared here (registerMetrics).
func swapCollectors() []prometheus.Collector {
	return []prometheus.Collector{profileSwaps, profileSwapDuration}
}
