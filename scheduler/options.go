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
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/parallelize"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// Option configures a Scheduler.
type Option func(*options)

type options struct {
	outOfTreeRegistry        frameworkruntime.Registry
	parallelism              int
	podInitialBackoff        time.Duration
	podMaxBackoff            time.Duration
	maxInUnschedulable       time.Duration
	unschedulableFlush       time.Duration
	kubeConfig               *rest.Config
	broadcaster              events.EventBroadcaster
	eventClient              kubernetes.Interface
	clock                    clock.WithTicker
	percentageOfNodesToScore int32
	bindCheck                bool
	bindArbiter              bool
	profileLoops             bool
	logger                   *klog.Logger
}

func defaultOptions() options {
	return options{
		parallelism:              parallelize.DefaultParallelism,
		podInitialBackoff:        queue.DefaultPodInitialBackoff,
		podMaxBackoff:            queue.DefaultPodMaxBackoff,
		maxInUnschedulable:       queue.DefaultMaxInUnschedulable,
		unschedulableFlush:       queue.DefaultFlushInterval,
		clock:                    clock.RealClock{},
		percentageOfNodesToScore: config.DefaultPercentageOfNodesToScore,
		bindCheck:                true,
		profileLoops:             true,
	}
}

// WithOutOfTreeRegistry adds plugins to the in-tree registry. A name that
// is already in-tree is an error at New. A factory that panics fails the
// build of the framework that asked for it, naming the plugin.
func WithOutOfTreeRegistry(r frameworkruntime.Registry) Option {
	return func(o *options) { o.outOfTreeRegistry = r }
}

// WithParallelism sets how many nodes are filtered and scored at once
// (default 16).
func WithParallelism(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.parallelism = n
		}
	}
}

// WithPodBackoff sets the initial and maximum back-off of a pod that failed
// to schedule (default 1s and 10s).
func WithPodBackoff(initial, maxBackoff time.Duration) Option {
	return func(o *options) { o.podInitialBackoff, o.podMaxBackoff = initial, maxBackoff }
}

// WithMaxInUnschedulable sets how long a pod waits in the unschedulable set
// before the periodic flush retries it without any event (default 5m), and
// how often the set is checked (default 30s).
func WithMaxInUnschedulable(maxWait, interval time.Duration) Option {
	return func(o *options) { o.maxInUnschedulable, o.unschedulableFlush = maxWait, interval }
}

// WithKubeConfig hands the rest config to plugins that want it.
func WithKubeConfig(c *rest.Config) Option {
	return func(o *options) { o.kubeConfig = c }
}

// WithEventClient sets the client the default event broadcaster publishes
// with (by default the scheduler's own client).
func WithEventClient(c kubernetes.Interface) Option {
	return func(o *options) { o.eventClient = c }
}

// WithEventBroadcaster sets the broadcaster whose recorders (one per
// profile, named after its schedulerName) publish Scheduled and
// FailedScheduling events. By default an events.k8s.io/v1 broadcaster on the
// scheduler's client is used, started by Start.
func WithEventBroadcaster(b events.EventBroadcaster) Option {
	return func(o *options) { o.broadcaster = b }
}

// WithClock sets the clock of the queue (back-off and flushes).
func WithClock(c clock.WithTicker) Option {
	return func(o *options) { o.clock = c }
}

// WithLogger sets the logger the scheduler's frameworks and plugins log
// with (with their profile, generation and plugin name); by default klog's
// global logger.
func WithLogger(l klog.Logger) Option {
	return func(o *options) { o.logger = &l }
}

// WithPercentageOfNodesToScore sets the global percentage of nodes to
// score; a profile's own value wins. 0 means adaptive, as upstream.
func WithPercentageOfNodesToScore(p int32) Option {
	return func(o *options) { o.percentageOfNodesToScore = p }
}

// WithBindCheck turns the check before binding (bindcheck.go) on or off
// (default on): with it, a pod whose node filled up since its cycle's
// snapshot, whichever scheduler filled it, is scheduled again instead of
// bound.
func WithBindCheck(enabled bool) Option {
	return func(o *options) { o.bindCheck = enabled }
}

// WithProfileLoops gives every profile a scheduling loop of its own
// (true, the default: loop.go), or serves every profile from one loop in
// upstream's global order (false, --profile-loops=false).
func WithProfileLoops(enabled bool) Option {
	return func(o *options) { o.profileLoops = enabled }
}

// WithBindArbiter says that the bind arbiter (arbiter.go) judges every
// bind in the cluster (--bind-arbiter). The check before binding then
// judges with the cache alone: the arbiter counts what another scheduler
// bound that the cache has not seen, so the check no longer reads the
// node's pods from the API server nor checks a node's last room a second
// time.
func WithBindArbiter(enabled bool) Option {
	return func(o *options) { o.bindArbiter = enabled }
}
