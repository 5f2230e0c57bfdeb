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

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

// The bind check: just before a pod is bound, it is checked against its
// node as the cache sees it then, with the pods bound by any scheduler
// since the cycle's snapshot. Only the Filter plugins that judge fit on
// the node take part (bindCheckPlugins), and only those the profile
// enables at Filter; the pod's own required pod affinity is left out (a
// pod that left cannot make a node too full), its anti-affinity is kept.
//
// The plugins run in a framework of their own (bindCheck.fw), built from
// the profile's configuration with only those plugins at PreFilter and
// Filter (and its QueueSort and Bind plugins, which every framework
// needs). Its snapshot lister serves one node: the cache's copy of the
// node, without the pod (which is assumed there). PreFilter runs again on
// a fresh CycleState, as the cycle ran it, then Filter. Checks of one
// profile take turns (mu): the framework's lister serves one node at a
// time.
//
// While another scheduler binds (bindTiming.otherActive), the node's pods
// are also listed from the API server with a consistent read, and those
// the cache has not seen yet are added: the informers deliver another
// scheduler's binds some milliseconds late. The cache's copy of the node
// is taken after the list returns, so it also holds what the informers
// delivered meanwhile.
//
// A pod that passes but takes the node's last room for a pod like it (a
// second copy would not fit) is checked once more after a settle: the
// time the other scheduler recently took to place a pod, from seen
// pending to seen bound, or a bind round trip if that is longer (at most
// maxBindSettle). Room that is the last on its node is the room both
// schedulers race for; the other one cannot see our pod before it is
// bound, so for as long as it takes to place a pod it may send one there,
// and the second check sees what it sent. Without the settle, the binds
// that still overflow a node are those committed between the read and
// our bind's commit, about one bind round trip, which under load is tens
// to hundreds of milliseconds.
//
// With the bind arbiter on (WithBindArbiter), neither the read nor the
// settle is made: the arbiter, which every scheduler's bind passes, counts
// the binds the cache has not seen yet.
//
// Alone in a cluster no read is made and nothing settles, and the check
// never refuses: the cache already holds every pod this scheduler
// assumed, each placed with the others in view.

// bindCheckPlugins are the Filter plugins that judge fit on a node.
var bindCheckPlugins = sets.New(names.NodeResourcesFit, names.NodePorts, names.NodeVolumeLimits, names.InterPodAffinity)

// bindCheckNodeGone is the refusing "plugin" when the node left the cache.
const bindCheckNodeGone = "NodeGone"

// errNodeFilledUp marks a pod that the bind check refused.
var errNodeFilledUp = errors.New("the node no longer has room for the pod")

// bindCheck runs the fit-judging Filter plugins of one profile on one
// node. It is built with the profile's framework and closed with it.
type bindCheck struct {
	profile string
	fw      framework.Framework
	// mu serializes checks: lister's snapshot is set for one at a time.
	mu     sync.Mutex
	lister *oneNodeLister
}

func keepPlugins(set config.PluginSet, keep sets.Set[string]) config.PluginSet {
	var out config.PluginSet
	for _, p := range set.Enabled {
		if keep.Has(p.Name) {
			out.Enabled = append(out.Enabled, config.Plugin{Name: p.Name})
		}
	}
	return out
}

func pluginNames(set config.PluginSet) []string {
	out := make([]string, 0, len(set.Enabled))
	for _, p := range set.Enabled {
		out = append(out, p.Name)
	}
	return out
}

func (c *bindCheck) close() error {
	if c == nil {
		return nil
	}
	return c.fw.Close()
}

// podsOnNode lists the pods bound to a node, as the API server has them.
type podsOnNode func(ctx context.Context, nodeName string) ([]v1.Pod, error)

// run checks pod on nodeName as the cache has the node, with the pods
// fromAPI (when not nil) lists there that the cache has not seen yet.
// When the pod fits and fromAPI is set, lastRoom reports whether it takes
// the node's last room for a pod like it: a second copy would not fit.
func (c *bindCheck) run(ctx context.Context, cache internalcache.Cache, fromAPI podsOnNode, pod *v1.Pod, nodeName string) (st *fwk.Status, lastRoom bool) {
	// The API server's pods first: the cache's copy, taken after the
	// list returns, then also holds what the informers delivered while
	// the list was on its way.
	var listed []v1.Pod
	if fromAPI != nil {
		pods, err := fromAPI(ctx, nodeName)
		if err != nil {
			klog.FromContext(ctx).V(2).Info("Listing the node's pods for the bind check failed; checking with the cache alone", "node", nodeName, "err", err)
		}
		listed = pods
	}
	// A copy of the node as the cache holds it now, taken under its read
	// lock; its pods keep the resources the cache computed for them.
	cached, err := cache.GetNode(nodeName)
	if err != nil || cached.Node() == nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node is gone").WithPlugin(bindCheckNodeGone), false
	}
	// What another scheduler bound and the informers have not delivered
	// yet counts too.
	ni := nodeWithout(cached, pod, listed)
	checked := withoutPodAffinity(pod)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.lister.node = ni
	defer func() { c.lister.node = nil }()
	state := framework.NewCycleState()
	_, st, _ = c.fw.RunPreFilterPlugins(ctx, state, checked)
	if !st.IsSuccess() {
		if st.IsRejected() {
			// The cycle's PreFilter passed: what refuses the pod now
			// is not room on this node.
			return nil, false
		}
		return st, false
	}
	if st = c.fw.RunFilterPlugins(ctx, state, checked, ni); !st.IsSuccess() || fromAPI == nil {
		return st, false
	}
	ni.AddPod(checked)
	return st, !c.fw.RunFilterPlugins(ctx, state, checked, ni).IsSuccess()
}

// nodeWithout is the cached node without pod (which may be assumed
// there), and with the pods of extra that it does not have and that have
// not finished. It is rebuilt rather than the pod removed: NodeInfo keeps
// host ports as a set, and removing the pod would free a port another pod
// holds too.
func nodeWithout(cached *framework.NodeInfo, pod *v1.Pod, extra []v1.Pod) *framework.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(cached.Node())
	seen := make(map[types.UID]bool, len(cached.Pods)+1)
	seen[pod.UID] = true
	for _, pi := range cached.GetPods() {
		if !seen[pi.GetPod().UID] {
			seen[pi.GetPod().UID] = true
			ni.AddPodInfo(pi)
		}
	}
	for i := range extra {
		p := &extra[i]
		if seen[p.UID] || p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		ni.AddPod(p)
	}
	return ni
}

// otherSchedulerWindow is how long after another scheduler's last bind the
// check also reads the node's pods from the API server.
const otherSchedulerWindow = 30 * time.Second

// bindTiming is what the bind check knows of how long binds take: when a
// scheduler that no profile serves last bound a pod, the moving averages
// of our binds' round trips and of the other schedulers' time to place a
// pod (from seen pending to seen bound, as the informers deliver them),
// and when each of their pending pods was seen. The larger average is the
// check's settle. Its methods are safe for concurrent use.
type bindTiming struct {
	// lastOtherBind is when (UnixNano) another scheduler's pod was last
	// seen bound; 0 if never.
	lastOtherBind  atomic.Int64
	roundTrip      movingAverage
	otherPlacement movingAverage
	otherPending   sync.Map // types.UID → time.Time
}

// otherActive reports whether a scheduler that no profile serves bound a
// pod within otherSchedulerWindow.
func (t *bindTiming) otherActive() bool {
	last := t.lastOtherBind.Load()
	return last != 0 && time.Since(time.Unix(0, last)) < otherSchedulerWindow
}

// settle is how long a pod that takes a node's last room waits before its
// second check: the larger of our bind round trip and the other
// schedulers' time to place a pod.
func (t *bindTiming) settle() time.Duration {
	return max(t.roundTrip.get(), t.otherPlacement.get())
}

// otherSeenPending notes another scheduler's pod seen pending at now.
func (t *bindTiming) otherSeenPending(uid types.UID, now time.Time) {
	t.otherPending.Store(uid, now)
}

// otherSeenBound notes another scheduler's pod seen bound at now, and the
// time it took since it was seen pending.
func (t *bindTiming) otherSeenBound(uid types.UID, now time.Time) {
	t.lastOtherBind.Store(now.UnixNano())
	if seen, ok := t.otherPending.LoadAndDelete(uid); ok {
		t.otherPlacement.observe(now.Sub(seen.(time.Time)))
	}
}

// forget drops a pod seen pending that was deleted.
func (t *bindTiming) forget(uid types.UID) { t.otherPending.Delete(uid) }

// maxBindSettle bounds the settle before a second check.
const maxBindSettle = time.Second

// movingAverage is a moving average of a duration, over about the last
// eight observed: a bind's round trip (bindTiming.roundTrip), another
// scheduler's time to place a pod (bindTiming.otherPlacement).
type movingAverage struct {
	avg atomic.Int64 // nanoseconds
}

func (m *movingAverage) observe(d time.Duration) {
	for {
		old := m.avg.Load()
		next := int64(d)
		if old != 0 {
			next = old + (int64(d)-old)/8
		}
		if m.avg.CompareAndSwap(old, next) {
			return
		}
	}
}

// get is the average, at most maxBindSettle; 0 before any observation.
func (m *movingAverage) get() time.Duration {
	return min(time.Duration(m.avg.Load()), maxBindSettle)
}

// withoutPodAffinity is pod without its pod affinity terms (anti-affinity
// kept): a shallow copy when there are some.
func withoutPodAffinity(pod *v1.Pod) *v1.Pod {
	if pod.Spec.Affinity == nil || pod.Spec.Affinity.PodAffinity == nil {
		return pod
	}
	cp := *pod
	aff := *pod.Spec.Affinity
	aff.PodAffinity = nil
	cp.Spec.Affinity = &aff
	return &cp
}

// oneNodeLister is the bind check framework's snapshot lister: a
// snapshot of the one node under check (node, set by the check).
type oneNodeLister struct {
	node *framework.NodeInfo
	// empty answers for pod groups, which no check plugin reads.
	empty *internalcache.Snapshot
}

var (
	_ fwk.SharedLister      = &oneNodeLister{}
	_ fwk.NodeInfoLister    = &oneNodeLister{}
	_ fwk.StorageInfoLister = &oneNodeLister{}
)

func (l *oneNodeLister) NodeInfos() fwk.NodeInfoLister       { return l }
func (l *oneNodeLister) StorageInfos() fwk.StorageInfoLister { return l }
func (l *oneNodeLister) PodGroupStates() fwk.PodGroupStateLister {
	return l.empty.PodGroupStates()
}
func (l *oneNodeLister) PodGroups() fwk.PodGroupLister { return l.empty.PodGroups() }
func (l *oneNodeLister) CompositePodGroupStates() fwk.CompositePodGroupStateLister {
	return l.empty.CompositePodGroupStates()
}
func (l *oneNodeLister) CompositePodGroups() fwk.CompositePodGroupLister {
	return l.empty.CompositePodGroups()
}

// list is [node] when has holds for it, else empty.
func (l *oneNodeLister) list(has bool) ([]fwk.NodeInfo, error) {
	if l.node == nil || !has {
		return nil, nil
	}
	return []fwk.NodeInfo{l.node}, nil
}

func (l *oneNodeLister) List() ([]fwk.NodeInfo, error) { return l.list(true) }
func (l *oneNodeLister) HavePodsWithAffinityList() ([]fwk.NodeInfo, error) {
	return l.list(l.node != nil && len(l.node.PodsWithAffinity) > 0)
}
func (l *oneNodeLister) HavePodsWithRequiredAntiAffinityList() ([]fwk.NodeInfo, error) {
	return l.list(l.node != nil && len(l.node.PodsWithRequiredAntiAffinity) > 0)
}

// HavePodsWithRequiredNonHostScopedAntiAffinityList: NodeInfo fills the
// list only with the InterPodAffinityHostnameFastPath gate on, as the
// snapshot's.
func (l *oneNodeLister) HavePodsWithRequiredNonHostScopedAntiAffinityList() ([]fwk.NodeInfo, error) {
	return l.list(l.node != nil && len(l.node.PodsWithRequiredNonHostScopedAntiAffinity) > 0)
}
func (l *oneNodeLister) Get(nodeName string) (fwk.NodeInfo, error) {
	if l.node == nil || l.node.Node().Name != nodeName {
		return nil, fmt.Errorf("nodeinfo not found for node name %q", nodeName)
	}
	return l.node, nil
}
func (l *oneNodeLister) IsPVCUsedByPods(key string) bool {
	return l.node != nil && l.node.PVCRefCounts[key] > 0
}

// Metrics of the check before binding.
var (
	// bindChecksRefused counts the pods the check before binding refused
	// (bindcheck.go), per profile and refusing plugin (NodeGone when the
	// node left the cache).
	bindChecksRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_checks_refused_total",
		Help:      "Pods not bound because their node no longer had room for them just before the bind, by profile and refusing plugin.",
	}, []string{"profile", "plugin"})
	// bindCheckSettles counts the pods checked a second time, after a
	// settle, because they take their node's last room while another
	// scheduler binds.
	bindCheckSettles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_check_settles_total",
		Help:      "Pods checked again after a settle, before binding, because they take their node's last room while another scheduler binds, by profile.",
	}, []string{"profile"})
	// bindCheckDuration observes each check before binding, per profile
	// (its count is the number of checks).
	bindCheckDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "bind_check_duration_seconds",
		Help:      "Time to check a pod against its node just before binding it, by profile.",
		Buckets:   []float64{.00001, .000025, .00005, .0001, .00025, .0005, .001, .0025, .01, .025, .05, .1, .25, .5, 1},
	}, []string{"profile"})
)

// bindCheckCollectors are the metrics declared here (registerMetrics).
func bindCheckCollectors() []prometheus.Collector {
	return []prometheus.Collector{bindChecksRefused, bindCheckSettles, bindCheckDuration}
}
