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
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/flowcontrol"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

// The bind arbiter decides, for the admission webhook on pods/binding that
// every scheduler's binds pass (--bind-arbiter), whether a bind still fits
// its node. The node is judged as the bind check judges it (bindcheck.go:
// the fit-judging Filter plugins, here with upstream's default args, on
// the cache's copy of the node without the pod) with, besides the pods
// the cache has, the binds the arbiter admitted that the cache has not
// seen yet: a hold per admitted bind, released when the cache sees the
// pod bound (or the pod deleted), or after holdFor when the bind never
// committed. Decisions take turns (mu), so that of two binds for one
// node's last room exactly one is admitted. Only the leader decides (the
// holds live in one process): a replica that does not lead admits.
// A dry-run bind (request.dryRun) is judged without a hold: nothing of
// it lands. A pod the informer does not know is looked up in the API
// server through the arbiter's own client (WithArbiterLookups), never the
// scheduler's, at a bounded rate; past it, or without such a client, its
// bind is admitted unjudged (LookupLimited): whoever posts reviews of pods
// that do not exist can neither slow the scheduler nor the API server.
//
// It decides; it never writes. The webhook fails open (failurePolicy
// Ignore), so with the operator down binds go on as without it.

// Outcomes of an arbiter's decision (the outcome label of its metrics).
const (
	// ArbiterAdmitted: the pod fits its node, holds included.
	ArbiterAdmitted = "Admitted"
	// ArbiterRefused: the pod no longer fits its node.
	ArbiterRefused = "Refused"
	// ArbiterNotLeader: admitted unjudged by a replica that does not lead.
	ArbiterNotLeader = "NotLeader"
	// ArbiterUnknownNode: admitted unjudged, the cache has no such node
	// (yet): the kubelet decides.
	ArbiterUnknownNode = "UnknownNode"
	// ArbiterUnknownPod: admitted unjudged, the pod is neither in the
	// informer's cache nor in the API server.
	ArbiterUnknownPod = "UnknownPod"
	// ArbiterNotReady: admitted unjudged, the scheduler has not synced.
	ArbiterNotReady = "NotReady"
	// ArbiterLookupLimited: admitted unjudged, the pod is not in the
	// informer's cache and the arbiter's lookups are over their rate.
	ArbiterLookupLimited = "LookupLimited"
)

// Lookups of pods the informer does not know, by default: a few per
// second are what binds racing the informer need.
const (
	defaultArbiterLookupQPS   = 5
	defaultArbiterLookupBurst = 10
)

// ArbiterOption configures NewArbiter.
type ArbiterOption func(*arbiterOptions)

type arbiterOptions struct {
	lookups     kubernetes.Interface
	lookupQPS   float32
	lookupBurst int
}

// WithArbiterLookups gives the arbiter a client of its own (its own QPS
// budget, apart from the scheduler's) to look up pods the informer does
// not know, at most qps per second with burst. Without it such binds are
// admitted unjudged.
func WithArbiterLookups(client kubernetes.Interface, qps float32, burst int) ArbiterOption {
	return func(o *arbiterOptions) { o.lookups, o.lookupQPS, o.lookupBurst = client, qps, burst }
}

// defaultArbiterHold is how long an admitted bind holds its room while the
// cache has not seen it.
const defaultArbiterHold = 10 * time.Second

// ArbiterDecision is the arbiter's answer for one bind.
type ArbiterDecision struct {
	// Allowed: the bind may proceed.
	Allowed bool
	// Outcome is one of the Arbiter* outcomes.
	Outcome string
	// Message says, for a refused bind, which node has no room for which
	// pod and what is short ("node n7 has no room for default/web-3: cpu
	// 500m requested, 200m free (after 2 binds in flight)").
	Message string
	// Resource is what is short ("cpu", "memory", "ports", ...), for a
	// refused bind.
	Resource string
}

// Arbiter judges binds. It is made by Scheduler.NewArbiter and lives as
// long as the scheduler.
type Arbiter struct {
	s       *Scheduler
	check   *bindCheck
	leading func() bool
	holdFor time.Duration
	now     func() time.Time
	// lookups, when set, looks up pods the informer does not know, as
	// often as lookupLimit lets it.
	lookups     kubernetes.Interface
	lookupLimit flowcontrol.RateLimiter
	// mu serializes decisions: a decision and the hold it records are
	// one step.
	mu sync.Mutex
}

// NewArbiter builds the arbiter's check (upstream's default args for the
// fit-judging plugins), which lives as long as the scheduler. leading
// reports whether this replica leads.
func (s *Scheduler) NewArbiter(leading func() bool, opts ...ArbiterOption) (*Arbiter, error) {
	o := arbiterOptions{lookupQPS: defaultArbiterLookupQPS, lookupBurst: defaultArbiterLookupBurst}
	for _, opt := range opts {
		opt(&o)
	}
	ctx := klog.NewContext(s.ctx, klog.FromContext(s.ctx).WithValues("component", "bind-arbiter"))
	cfg, err := arbiterProfile()
	if err != nil {
		return nil, err
	}
	fi := newFrameworkInformers(s.informerFactory)
	s.builder.mu.Lock()
	check, err := s.builder.fitCheck(ctx, cfg.SchedulerName, cfg, fi)
	s.builder.mu.Unlock()
	if err != nil {
		fi.removeHandlers()
		return nil, fmt.Errorf("building the bind arbiter's check: %w", err)
	}
	a := &Arbiter{s: s, check: check, leading: leading, holdFor: defaultArbiterHold, now: time.Now, lookups: o.lookups}
	if o.lookups != nil {
		a.lookupLimit = flowcontrol.NewTokenBucketRateLimiter(o.lookupQPS, o.lookupBurst)
	}
	return a, nil
}

// arbiterProfile is the profile of the arbiter's check: upstream's
// default profile (its args defaulted as kube-scheduler defaults them),
// running the fit-judging plugins only.
func arbiterProfile() (*config.KubeSchedulerProfile, error) {
	def, err := DefaultProfile("profile-scheduler/bind-arbiter")
	if err != nil {
		return nil, err
	}
	var room config.PluginSet
	for _, p := range def.Plugins.MultiPoint.Enabled {
		if bindCheckPlugins.Has(p.Name) {
			room.Enabled = append(room.Enabled, config.Plugin{Name: p.Name})
		}
	}
	return &config.KubeSchedulerProfile{
		SchedulerName: def.SchedulerName,
		Plugins: &config.Plugins{
			QueueSort: config.PluginSet{Enabled: []config.Plugin{{Name: names.PrioritySort}}},
			PreFilter: room,
			Filter:    room,
			Bind:      config.PluginSet{Enabled: []config.Plugin{{Name: names.DefaultBinder}}},
		},
		PluginConfig: def.PluginConfig,
	}, nil
}

// Decide judges the bind of namespace/name to nodeName; a dryRun bind is
// judged without a hold.
func (a *Arbiter) Decide(ctx context.Context, namespace, name string, uid types.UID, nodeName string, dryRun bool) ArbiterDecision {
	start := a.now()
	d, scheduler := a.decide(ctx, namespace, name, uid, nodeName, dryRun)
	arbiterDecisions.WithLabelValues(scheduler, d.Outcome, d.Resource).Inc()
	arbiterDecisionDuration.Observe(a.now().Sub(start).Seconds())
	logger := klog.FromContext(ctx)
	if !d.Allowed {
		logger.V(2).Info("Bind refused by the arbiter", "pod", klog.KRef(namespace, name), "node", nodeName, "reason", d.Message)
	} else {
		logger.V(5).Info("Bind admitted by the arbiter", "pod", klog.KRef(namespace, name), "node", nodeName, "outcome", d.Outcome)
	}
	return d
}

func (a *Arbiter) decide(ctx context.Context, namespace, name string, uid types.UID, nodeName string, dryRun bool) (ArbiterDecision, string) {
	if !a.leading() {
		return ArbiterDecision{Allowed: true, Outcome: ArbiterNotLeader}, ""
	}
	if !a.s.HasSynced() {
		return ArbiterDecision{Allowed: true, Outcome: ArbiterNotReady}, ""
	}
	pod, err := a.s.podLister.Pods(namespace).Get(name)
	if err != nil || (uid != "" && pod.UID != uid) {
		// Looked up once in the API server: the informer may not have
		// delivered a pod created a moment ago. On the arbiter's own
		// client, at a bounded rate: never on the scheduler's budget.
		if a.lookups == nil || !a.lookupLimit.TryAccept() {
			return ArbiterDecision{Allowed: true, Outcome: ArbiterLookupLimited}, ""
		}
		pod, err = a.lookups.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			if !apierrors.IsNotFound(err) {
				klog.FromContext(ctx).V(2).Info("Looking up a pod for the bind arbiter failed; admitting its bind", "pod", klog.KRef(namespace, name), "err", err)
			}
			return ArbiterDecision{Allowed: true, Outcome: ArbiterUnknownPod}, ""
		}
	}
	scheduler := pod.Spec.SchedulerName

	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	holds := a.s.binds.onNode(nodeName, pod.UID, now)
	st, _ := a.check.run(ctx, a.s.cache, func(context.Context, string) ([]v1.Pod, error) { return holds, nil }, pod, nodeName)
	switch {
	case st.IsSuccess():
	case st.Plugin() == bindCheckNodeGone:
		// The cache has no such node (yet): the kubelet decides.
		return ArbiterDecision{Allowed: true, Outcome: ArbiterUnknownNode}, scheduler
	case !st.IsRejected():
		// A plugin's error is not a verdict: the bind goes on.
		klog.FromContext(ctx).Error(st.AsError(), "Bind arbiter check failed; admitting the bind", "pod", klog.KObj(pod), "node", nodeName)
	default:
		resource, short := a.short(pod, nodeName, holds, st.Reasons())
		msg := fmt.Sprintf("node %s has no room for %s/%s: %s", nodeName, namespace, name, short)
		if len(holds) > 0 {
			msg += fmt.Sprintf(" (after %s in flight)", pluralCount(len(holds), "bind"))
		}
		return ArbiterDecision{Outcome: ArbiterRefused, Message: msg, Resource: resource}, scheduler
	}
	if !dryRun {
		a.s.binds.hold(pod, nodeName, now.Add(a.holdFor))
	}
	return ArbiterDecision{Allowed: true, Outcome: ArbiterAdmitted}, scheduler
}

// short names what the pod lacks on nodeName (the cache's pods and the
// holds, the pod itself left out) for the first reason the check gave:
// "cpu 500m requested, 200m free" for a resource, the plugin's reason
// otherwise.
func (a *Arbiter) short(pod *v1.Pod, nodeName string, holds []v1.Pod, reasons []string) (string, string) {
	reason := strings.Join(reasons, ", ")
	res, ok := insufficient(reasons)
	if !ok {
		return reasonResource(reason), reason
	}
	cached, err := a.s.cache.GetNode(nodeName)
	if err != nil || cached.Node() == nil {
		return res, reason
	}
	ni := nodeWithout(cached, pod, holds)
	requested := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	alloc, used := ni.Allocatable, ni.Requested
	switch name := v1.ResourceName(res); name {
	case v1.ResourceCPU:
		free := alloc.GetMilliCPU() - used.GetMilliCPU()
		return res, fmt.Sprintf("cpu %s requested, %s free", requested.Cpu(), resource.NewMilliQuantity(max(free, 0), resource.DecimalSI))
	case v1.ResourceMemory:
		free := alloc.GetMemory() - used.GetMemory()
		return res, fmt.Sprintf("memory %s requested, %s free", requested.Memory(), resource.NewQuantity(max(free, 0), resource.BinarySI))
	case v1.ResourceEphemeralStorage:
		free := alloc.GetEphemeralStorage() - used.GetEphemeralStorage()
		return res, fmt.Sprintf("ephemeral-storage %s requested, %s free", requested.StorageEphemeral(), resource.NewQuantity(max(free, 0), resource.BinarySI))
	case v1.ResourcePods:
		return res, fmt.Sprintf("pods: %d of %d taken", len(ni.GetPods()), alloc.GetAllowedPodNumber())
	}
	return res, reason
}

// insufficient is the resource of the first "Insufficient <resource>"
// reason (NodeResourcesFit's), if any.
func insufficient(reasons []string) (string, bool) {
	for _, r := range reasons {
		if res, ok := strings.CutPrefix(r, "Insufficient "); ok {
			return res, true
		}
		if r == "Too many pods" {
			return string(v1.ResourcePods), true
		}
	}
	return "", false
}

// reasonResource is a short label for a reason no resource names.
func reasonResource(reason string) string {
	switch {
	case strings.Contains(reason, "ports"):
		return "ports"
	case strings.Contains(reason, "volume"):
		return "volumes"
	case strings.Contains(reason, "anti-affinity"):
		return "anti-affinity"
	}
	return "other"
}

func pluralCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

var (
	// arbiterDecisions counts the arbiter's decisions by the scheduler
	// that asked (the pod's schedulerName), outcome and, for a refusal,
	// the resource short.
	arbiterDecisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_arbiter_decisions_total",
		Help:      "Binds the bind arbiter judged, by the pod's schedulerName, outcome (Admitted, Refused, NotLeader, UnknownNode, UnknownPod, LookupLimited, NotReady) and, for a refusal, the resource short.",
	}, []string{"scheduler", "outcome", "resource"})
	// arbiterDecisionDuration observes each decision.
	arbiterDecisionDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_arbiter_decision_duration_seconds",
		Help:      "Time the bind arbiter took to judge a bind.",
		Buckets:   []float64{.000005, .00001, .000025, .00005, .0001, .00025, .0005, .001, .0025, .01, .1},
	})
	// arbiterHolds is the number of admitted binds the cache has not seen.
	arbiterHolds = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_arbiter_binds_in_flight",
		Help:      "Binds the bind arbiter admitted that the scheduler's cache has not seen yet.",
	})
	// arbiterHoldsExpired counts holds that ended at their deadline.
	arbiterHoldsExpired = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_arbiter_holds_expired_total",
		Help:      "Admitted binds the cache never saw, whose hold on their node's room ended at its deadline.",
	})
)

// arbiterCollectors are the metrics declared here (registerMetrics).
func arbiterCollectors() []prometheus.Collector {
	return []prometheus.Collector{arbiterDecisions, arbiterDecisionDuration, arbiterHolds, arbiterHoldsExpired}
}
