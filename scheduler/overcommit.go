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
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	v1helper "k8s.io/kubernetes/pkg/apis/core/v1/helper"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
)

// The overcommit watcher reports every node whose bound pods request more
// than it has, whichever scheduler bound them: pod and node events mark a
// node to look at, and every overcommitCheckInterval the marked nodes are
// compared, as the cache holds them (pods assumed by this scheduler and
// not bound yet left out), with their allocatable. A node that becomes
// overcommitted gets one Warning event (reason Overcommitted) naming the
// resources, the pods and their schedulers, and counts once in
// profile_scheduler_node_overcommits_total; it is reported again only
// after it was seen within its allocatable. The gauge
// profile_scheduler_overcommitted_nodes is the number of nodes
// overcommitted now. Nothing is changed on the node or its pods.

// overcommitCheckInterval is how often marked nodes are looked at.
const overcommitCheckInterval = 500 * time.Millisecond

// EventReasonOvercommitted is the reason of the Warning event on an
// overcommitted node.
const EventReasonOvercommitted = "Overcommitted"

// overcommitReporter is the name the node events are reported by.
const overcommitReporter = "profile-scheduler"

// noOtherScheduler is the other_scheduler label of an overcommit made by
// this scheduler's profiles alone.
const noOtherScheduler = "none"

var (
	nodeOvercommits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "node_overcommits_total",
		Help:      "Times a node was seen requesting more than its allocatable, by the schedulers of its pods that no profile serves (comma-separated; none when every pod is ours).",
	}, []string{"other_scheduler"})
	// overcommittedNodes reads the watchers of the live schedulers when
	// scraped.
	overcommittedNodes = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "overcommitted_nodes",
		Help:      "Nodes whose bound pods request more than their allocatable now.",
	}, countOvercommitted)
)

// countOvercommitted is the value of overcommitted_nodes.
func countOvercommitted() float64 {
	n := 0
	liveOvercommits.each(func(w *overcommitWatch) { n += w.count() })
	return float64(n)
}

// liveOvercommits are the overcommit watches of this process's live
// schedulers.
var liveOvercommits = newLiveSet[*overcommitWatch]()

// overcommitCollectors are the metrics declared here (registerMetrics).
func overcommitCollectors() []prometheus.Collector {
	return []prometheus.Collector{nodeOvercommits, overcommittedNodes}
}

func (w *overcommitWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.over)
}

// overcommitWatch is the watcher's state: marked nodes, and the nodes
// found overcommitted, with what they overflow (for the gauge and for
// episodes).
type overcommitWatch struct {
	// cache is where a node's bound pods are read; gens tell which pods
	// are ours; timing learns of other schedulers' binds (bindcheck.go).
	cache  internalcache.Cache
	gens   *generations
	timing *bindTiming

	// mu guards marked and over; a leaf lock.
	mu     sync.Mutex
	marked sets.Set[string]
	over   map[string]string
}

func newOvercommitWatch(c internalcache.Cache, gens *generations, timing *bindTiming) *overcommitWatch {
	return &overcommitWatch{cache: c, gens: gens, timing: timing, marked: sets.New[string](), over: map[string]string{}}
}

func (w *overcommitWatch) mark(node string) {
	if node == "" {
		return
	}
	w.mu.Lock()
	w.marked.Insert(node)
	w.mu.Unlock()
}

func (w *overcommitWatch) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.marked.UnsortedList()
	w.marked = sets.New[string]()
	return out
}

// addOvercommitHandlers marks the node of every bound pod that comes,
// changes or goes, and every node that changes.
func (w *overcommitWatch) addHandlers(informerFactory informers.SharedInformerFactory) error {
	podNode := func(obj interface{}) string {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if p, ok := obj.(*v1.Pod); ok {
			return p.Spec.NodeName
		}
		return ""
	}
	_, err := informerFactory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj interface{}, isInInitialList bool) {
			if !isInInitialList {
				w.noteOtherBind(nil, obj)
			}
			w.mark(podNode(obj))
		},
		UpdateFunc: func(old, obj interface{}) {
			w.noteOtherBind(old, obj)
			w.mark(podNode(obj))
		},
		DeleteFunc: func(obj interface{}) {
			w.podDeleted(obj)
			w.mark(podNode(obj))
		},
	})
	if err != nil {
		return err
	}
	_, err = informerFactory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			if n, ok := obj.(*v1.Node); ok {
				w.mark(n.Name)
			}
		},
		UpdateFunc: func(_, obj interface{}) {
			if n, ok := obj.(*v1.Node); ok {
				w.mark(n.Name)
			}
		},
		DeleteFunc: func(obj interface{}) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if n, ok := obj.(*v1.Node); ok {
				w.mark(n.Name)
			}
		},
	})
	return err
}

// noteOtherBind records when a pod that no profile serves is seen bound
// (added bound, or updated from unbound to bound): the bind check then
// also reads nodes from the API server (bindcheck.go). A pod seen added
// pending is remembered until it is bound, when the time it took goes
// into the bind check's timing, or deleted (podDeleted).
func (w *overcommitWatch) noteOtherBind(oldObj, newObj interface{}) {
	p, ok := newObj.(*v1.Pod)
	if !ok {
		return
	}
	if w.gens.serving(p.Spec.SchedulerName) != nil {
		return
	}
	now := time.Now()
	if p.Spec.NodeName == "" {
		if oldObj == nil {
			w.timing.otherSeenPending(p.UID, now)
		}
		return
	}
	if old, ok := oldObj.(*v1.Pod); ok && old.Spec.NodeName != "" {
		return
	}
	w.timing.otherSeenBound(p.UID, now)
}

// podDeleted forgets a deleted pod seen pending (noteOtherBind).
func (w *overcommitWatch) podDeleted(obj interface{}) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if p, ok := obj.(*v1.Pod); ok {
		w.timing.forget(p.UID)
	}
}

// watchOvercommits looks at the marked nodes every overcommitCheckInterval
// until ctx ends.
func (w *overcommitWatch) run(ctx context.Context, broadcaster events.EventBroadcaster) {
	recorder := broadcaster.NewRecorder(scheme.Scheme, overcommitReporter)
	t := time.NewTicker(overcommitCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, node := range w.take() {
				w.check(ctx, recorder, node)
			}
		}
	}
}

// checkOvercommit compares node's bound pods with its allocatable and
// reports the start of an overcommit.
func (w *overcommitWatch) check(ctx context.Context, recorder events.EventRecorder, nodeName string) {
	node, pods, over := w.nodeOverflow(nodeName)
	w.mu.Lock()
	_, was := w.over[nodeName]
	if over == "" {
		delete(w.over, nodeName)
	} else {
		w.over[nodeName] = over
	}
	w.mu.Unlock()
	if over == "" || was {
		return
	}
	others := w.otherSchedulers(pods)
	nodeOvercommits.WithLabelValues(others).Inc()
	note := truncateMessage(fmt.Sprintf("Bound pods request more than the node has (%s): %s", over, describePods(pods)))
	recorder.Eventf(node, nil, v1.EventTypeWarning, EventReasonOvercommitted, "Scheduling", "%s", note)
	klog.FromContext(ctx).V(2).Info("Node overcommitted", "node", nodeName, "overflow", over, "otherSchedulers", others)
}

// nodeOverflow is nodeName as the cache holds it, its bound pods (pods
// assumed by this scheduler and not bound yet left out) and what they
// request beyond its allocatable (overflow); a node the cache does not
// hold is nil, with no pods and no overflow.
func (w *overcommitWatch) nodeOverflow(nodeName string) (*v1.Node, []*v1.Pod, string) {
	ni, err := w.cache.GetNode(nodeName)
	if err != nil || ni.Node() == nil {
		return nil, nil, ""
	}
	var pods []*v1.Pod
	for _, pi := range ni.GetPods() {
		if assumed, _ := w.cache.IsAssumedPod(pi.GetPod()); !assumed {
			pods = append(pods, pi.GetPod())
		}
	}
	return ni.Node(), pods, overflow(ni.Node(), pods)
}

// Overcommit is a node whose bound pods request more than it has.
type Overcommit struct {
	// Over names each resource requested beyond the node's allocatable
	// ("cpu 5 > 4"), as the Node's Overcommitted event does.
	Over string
	// Pods are the node's bound pods, by namespace and name.
	Pods []*v1.Pod
}

// Describe says what is over and lists the bound pods as namespace/name
// (schedulerName), only those of namespace when it is set: the others
// are counted ("2 pods of other namespaces"), for a reader who may see
// one namespace only.
func (o *Overcommit) Describe(namespace string) string {
	pods, others := o.Pods, 0
	if namespace != "" {
		pods = nil
		for _, p := range o.Pods {
			if p.Namespace == namespace {
				pods = append(pods, p)
			} else {
				others++
			}
		}
	}
	listed := describePods(pods)
	if others > 0 {
		if listed != "" {
			listed += ", "
		}
		listed += OtherNamespaces(others)
	}
	return truncateMessage(fmt.Sprintf("%s; bound pods: %s", o.Over, listed))
}

// OtherNamespaces counts n pods a review does not name: "1 pod of other
// namespaces", "2 pods of other namespaces".
func OtherNamespaces(n int) string {
	if n == 1 {
		return "1 pod of other namespaces"
	}
	return fmt.Sprintf("%d pods of other namespaces", n)
}

// overcommit is, when nodeName's bound pods request more than it has,
// which resources and which pods; nil when they do not.
func (w *overcommitWatch) overcommit(nodeName string) *Overcommit {
	_, pods, over := w.nodeOverflow(nodeName)
	if over == "" {
		return nil
	}
	return &Overcommit{Over: over, Pods: pods}
}

// overflow names each resource the pods request beyond the node's
// allocatable, "" when none. A pod counts one of "pods"; an extended
// resource the node does not have counts against 0.
func overflow(node *v1.Node, pods []*v1.Pod) string {
	requested := v1.ResourceList{v1.ResourcePods: *resource.NewQuantity(int64(len(pods)), resource.DecimalSI)}
	for _, p := range pods {
		for name, q := range resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}) {
			sum := requested[name]
			sum.Add(q)
			requested[name] = sum
		}
	}
	var out []string
	for name, req := range requested {
		alloc, ok := node.Status.Allocatable[name]
		if !ok && !v1helper.IsExtendedResourceName(name) {
			continue
		}
		if req.Cmp(alloc) > 0 {
			out = append(out, fmt.Sprintf("%s %s > %s", name, req.String(), alloc.String()))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// otherSchedulers is the other_scheduler label for pods: the sorted
// schedulerNames that no live profile serves, or noOtherScheduler.
func (w *overcommitWatch) otherSchedulers(pods []*v1.Pod) string {
	names := sets.New[string]()
	for _, p := range pods {
		if w.gens.serving(p.Spec.SchedulerName) == nil {
			names.Insert(p.Spec.SchedulerName)
		}
	}
	if names.Len() == 0 {
		return noOtherScheduler
	}
	return strings.Join(sets.List(names), ",")
}

// describePods lists pods as namespace/name (schedulerName), in order.
func describePods(pods []*v1.Pod) string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, fmt.Sprintf("%s/%s (%s)", p.Namespace, p.Name, p.Spec.SchedulerName))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
