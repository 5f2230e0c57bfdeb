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

package scheduler_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

var (
	env *envtest.Environment
	// cs talks to the control plane; bindCalls counts the pods/binding
	// POSTs made through it.
	cs      kubernetes.Interface
	restCfg *rest.Config
	// nodes creates Ready nodes through the shared fixture.
	nodes     client.Client
	bindCalls atomic.Int64
	bindFails atomic.Int64
)

func TestScheduler(t *testing.T) {
	// SCHEDULER_TEST_V raises klog verbosity when debugging a test.
	if v := os.Getenv("SCHEDULER_TEST_V"); v != "" {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("v", v)
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scheduler")
}

var _ = BeforeSuite(func() {
	// Pod groups (gang_test.go) need scheduling.k8s.io/v1beta1 served;
	// the other specs do not see the difference.
	e, cfg, err := controlplane.Start(controlplane.WithPodGroups())
	Expect(err).NotTo(HaveOccurred())
	env = e
	restCfg = rest.CopyConfig(cfg)
	restCfg.QPS, restCfg.Burst = 500, 1000
	restCfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return countBinds{rt} }
	cs, err = kubernetes.NewForConfig(restCfg)
	Expect(err).NotTo(HaveOccurred())
	nodes, err = client.New(cfg, client.Options{})
	Expect(err).NotTo(HaveOccurred())
	for name, value := range map[string]int32{"low": 10, "high": 1000} {
		_, err := cs.SchedulingV1().PriorityClasses().Create(context.Background(), &schedulingv1.PriorityClass{
			ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value,
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
})

var _ = AfterSuite(func() {
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type countBinds struct{ rt http.RoundTripper }

func (c countBinds) RoundTrip(r *http.Request) (*http.Response, error) {
	isBind := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/binding")
	resp, err := c.rt.RoundTrip(r)
	if isBind {
		bindCalls.Add(1)
		if err != nil || resp.StatusCode >= 300 {
			bindFails.Add(1)
		}
	}
	return resp, err
}

// harness is one running scheduler over the suite's control plane.
type harness struct {
	started bool
	ns      string
	sched   *scheduler.Scheduler
	// reviews answers reviews of sched, as the operator's reviewer does.
	reviews *review.Reviews
	cancel  context.CancelFunc
	done    chan error
}

func startScheduler(opts ...scheduler.Option) *harness {
	GinkgoHelper()
	return startSchedulerAfter(nil, opts...)
}

// startSchedulerAfter runs before on the new scheduler and its namespace,
// then starts it.
func startSchedulerAfter(before func(s *scheduler.Scheduler, ns string), opts ...scheduler.Option) *harness {
	GinkgoHelper()
	ns := "t-" + rand.String(6)
	_, err := cs.CoreV1().Namespaces().Create(context.Background(), &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	factory := informers.NewSharedInformerFactory(cs, 0)
	s, err := scheduler.New(cs, factory, opts...)
	Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Background()))
	h := &harness{ns: ns, sched: s, reviews: review.New(s.ReviewHost()), cancel: cancel, done: make(chan error, 1)}
	DeferCleanup(h.stop)
	if before != nil {
		before(s, ns)
	}
	h.started = true
	go func() { h.done <- s.Start(ctx) }()
	Eventually(s.HasSynced, 30*time.Second, 20*time.Millisecond).Should(BeTrue())
	return h
}

func (h *harness) stop() {
	GinkgoHelper()
	h.cancel()
	if h.started {
		Eventually(h.done, 30*time.Second).Should(Receive(BeNil()))
	}
	cleanupCluster(h.ns)
}

// cleanupCluster deletes every node and the pods of ns (pods are never run,
// so they can go at once).
func cleanupCluster(ns string) {
	GinkgoHelper()
	ctx := context.Background()
	zero := int64(0)
	Expect(cs.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})).To(Succeed())
	Expect(cs.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})).To(Succeed())
	Eventually(func() int {
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		return len(nodes.Items) + len(pods.Items)
	}, 30*time.Second, 50*time.Millisecond).Should(BeZero())
}

var nameSeq atomic.Int64

// uniqueName returns a schedulerName no other test uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, nameSeq.Add(1))
}

// defaultProfile is upstream's default profile for name, with mutate applied.
// mostAllocated makes a default profile's NodeResourcesFit score by
// MostAllocated (bin packing) instead of LeastAllocated.
func mostAllocated(p *config.KubeSchedulerProfile) {
	for i := range p.PluginConfig {
		if args, ok := p.PluginConfig[i].Args.(*config.NodeResourcesFitArgs); ok {
			args.ScoringStrategy.Type = config.MostAllocated
		}
	}
}

func defaultProfile(name string, mutate ...func(*config.KubeSchedulerProfile)) scheduler.Profile {
	GinkgoHelper()
	p, err := scheduler.DefaultProfile(name)
	Expect(err).NotTo(HaveOccurred())
	for _, m := range mutate {
		m(&p)
	}
	return scheduler.Profile{Config: p}
}

func (h *harness) apply(p scheduler.Profile) scheduler.Applied {
	GinkgoHelper()
	a, err := h.sched.Apply(context.Background(), p)
	Expect(err).NotTo(HaveOccurred())
	return a
}

type nodeOption func(*v1.Node)

func withTaint(key, value string, effect v1.TaintEffect) nodeOption {
	return func(n *v1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func withLabels(kv ...string) nodeOption {
	return func(n *v1.Node) {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

// createNode creates a ready node with the given allocatable cpu and memory.
func createNode(name, cpu, memory string, opts ...nodeOption) *v1.Node {
	GinkgoHelper()
	n := controlplane.Node(name, v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(cpu),
		v1.ResourceMemory: resource.MustParse(memory),
		v1.ResourcePods:   resource.MustParse("110"),
	})
	for _, o := range opts {
		o(n)
	}
	Expect(controlplane.CreateReadyNode(context.Background(), nodes, n)).To(Succeed())
	return n
}

type podOption func(*v1.Pod)

func withPriorityClass(name string) podOption {
	return func(p *v1.Pod) { p.Spec.PriorityClassName = name }
}

func withPodLabels(kv ...string) podOption {
	return func(p *v1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func withGates(names ...string) podOption {
	return func(p *v1.Pod) {
		for _, n := range names {
			p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, v1.PodSchedulingGate{Name: n})
		}
	}
}

func withNodeName(node string) podOption { return func(p *v1.Pod) { p.Spec.NodeName = node } }

func withRequiredNodeLabel(key string, values ...string) podOption {
	return func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}},
			}}},
		}}
	}
}

func withExtendedResource(name, qty string) podOption {
	return func(p *v1.Pod) {
		q := resource.MustParse(qty)
		p.Spec.Containers[0].Resources.Requests[v1.ResourceName(name)] = q
		if p.Spec.Containers[0].Resources.Limits == nil {
			p.Spec.Containers[0].Resources.Limits = v1.ResourceList{}
		}
		p.Spec.Containers[0].Resources.Limits[v1.ResourceName(name)] = q
	}
}

// newPod returns a pod requesting cpu and memory for schedulerName.
func newPod(ns, name, schedulerName, cpu, memory string, opts ...podOption) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1.PodSpec{
			SchedulerName: schedulerName,
			Containers: []v1.Container{{
				Name:  "c",
				Image: "registry.k8s.io/pause:3.10",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
					v1.ResourceCPU:    resource.MustParse(cpu),
					v1.ResourceMemory: resource.MustParse(memory),
				}},
			}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func createPod(p *v1.Pod) *v1.Pod {
	GinkgoHelper()
	created, err := cs.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return created
}

func getPod(ns, name string) *v1.Pod {
	GinkgoHelper()
	p, err := cs.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return p
}

// nodeOf returns the pod's node name ("" while pending).
func nodeOf(ns, name string) func() string {
	return func() string {
		p, err := cs.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return "<deleted>"
		}
		Expect(err).NotTo(HaveOccurred())
		return p.Spec.NodeName
	}
}

func waitBound(ns, name string, timeout time.Duration) string {
	GinkgoHelper()
	Eventually(nodeOf(ns, name), timeout, 10*time.Millisecond).ShouldNot(BeEmpty())
	return nodeOf(ns, name)()
}

// scheduledCondition returns the pod's PodScheduled condition, if any.
func scheduledCondition(ns, name string) func() *v1.PodCondition {
	return func() *v1.PodCondition {
		p := getPod(ns, name)
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == v1.PodScheduled {
				return &p.Status.Conditions[i]
			}
		}
		return nil
	}
}

func waitUnschedulable(ns, name string, timeout time.Duration) *v1.PodCondition {
	GinkgoHelper()
	var cond *v1.PodCondition
	Eventually(func() string {
		cond = scheduledCondition(ns, name)()
		if cond == nil || cond.Status != v1.ConditionFalse {
			return ""
		}
		return cond.Reason
	}, timeout, 10*time.Millisecond).Should(Equal(v1.PodReasonUnschedulable))
	return cond
}

// eventsFor lists the reasons of the events about a pod.
func eventsFor(ns, name string) []string {
	GinkgoHelper()
	list, err := cs.EventsV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.Name == name {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

// podNodes maps pod names of ns to their node names.
func podNodes(ns string) map[string]string {
	GinkgoHelper()
	list, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	out := make(map[string]string, len(list.Items))
	for _, p := range list.Items {
		out[p.Name] = p.Spec.NodeName
	}
	return out
}

// countByNode counts the bound pods per node.
func countByNode(m map[string]string) map[string]int {
	out := map[string]int{}
	for _, n := range m {
		if n != "" {
			out[n]++
		}
	}
	return out
}
