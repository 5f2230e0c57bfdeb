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
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// otherScheduler is the schedulerName of the pods the specs bind
// themselves, through pods/binding, as another scheduler would.
const otherScheduler = "other-scheduler"

// bindAsOther creates a pod that no profile serves and binds it to node
// through the binding subresource.
func bindAsOther(ns, name, node, cpu string) {
	GinkgoHelper()
	createPod(newPod(ns, name, otherScheduler, cpu, "100Mi"))
	Expect(cs.CoreV1().Pods(ns).Bind(context.Background(), &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Target:     v1.ObjectReference{Kind: "Node", Name: node},
	}, metav1.CreateOptions{})).To(Succeed())
}

// overcommitted lists the nodes whose bound pods request more cpu than
// the node's allocatable, as the API server has them.
func overcommitted() []string {
	GinkgoHelper()
	ctx := context.Background()
	nodeList, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	requested := map[string]*resource.Quantity{}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" {
			continue
		}
		if requested[p.Spec.NodeName] == nil {
			requested[p.Spec.NodeName] = resource.NewQuantity(0, resource.DecimalSI)
		}
		for _, c := range p.Spec.Containers {
			requested[p.Spec.NodeName].Add(c.Resources.Requests[v1.ResourceCPU])
		}
	}
	var out []string
	for _, n := range nodeList.Items {
		if r := requested[n.Name]; r != nil && r.Cmp(n.Status.Allocatable[v1.ResourceCPU]) > 0 {
			out = append(out, fmt.Sprintf("%s: %s > %s", n.Name, r.String(), n.Status.Allocatable.Cpu().String()))
		}
	}
	return out
}

var _ = Describe("Check before binding", func() {
	BeforeEach(func() { recorded.reset() })

	// holdOnN1 starts a scheduler whose back-off is long (a pod retried
	// within seconds was activated, not backed off), and a pod "p" of
	// 1.5 cpu that prefers node n1 and waits at Permit on it.
	holdOnN1 := func(permit ...string) (*harness, string) {
		GinkgoHelper()
		wait := "wait-once"
		if len(permit) > 0 {
			wait = permit[0]
		}
		h := startScheduler(scheduler.WithOutOfTreeRegistry(testRegistry), scheduler.WithPodBackoff(20*time.Second, 20*time.Second))
		name := uniqueName("check")
		h.apply(defaultProfile(name, withHooks))
		createNode("n1", "2", "4Gi", withLabels("pool", "first"))
		createPod(newPod(h.ns, "p", name, "1500m", "100Mi", withPreferredNodeLabel("pool", "first"), withPodLabels(labelPermit, wait)))
		Eventually(recorded.waitingCount, 10*time.Second, 10*time.Millisecond).Should(Equal(1))
		Expect(h.sched.CachedPodsOn("n1")).To(Equal(1))
		return h, name
	}

	It("does not bind onto room another scheduler took since the cycle's snapshot: the pod is scheduled again at once and bound elsewhere", func() {
		h, name := holdOnN1()
		createNode("n2", "2", "4Gi")
		bindAsOther(h.ns, "other", "n1", "1")
		// Our informer has seen the other scheduler's pod.
		Eventually(func() int { return h.sched.CachedPodsOn("n1") }, 10*time.Second, 10*time.Millisecond).Should(Equal(2))

		start := time.Now()
		Expect(recorded.allowWaiting()).To(Equal(1))
		Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n2"))
		// Requeued at once: the back-off is 20s.
		Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second))
		Expect(nodeOf(h.ns, "other")()).To(Equal("n1"))
		Expect(overcommitted()).To(BeEmpty())
		checks, refused := scheduler.BindChecks(name)
		Expect(refused).To(Equal(map[string]float64{"NodeResourcesFit": 1}))
		Expect(checks).To(BeEquivalentTo(2))
		Expect(recorded.of("p")).To(Equal([]string{"Reserve", "Permit", "PreBind", "Unreserve", "Reserve", "Permit", "PreBind", "Bind", "PostBind"}))
		Expect(eventsFor(h.ns, "p")).To(ContainElements("FailedScheduling", "Scheduled"))
	})

	It("defers to upstream kube-scheduler, running beside it, when it binds onto the room first", func() {
		h, name := holdOnN1()
		startUpstream()
		createNode("n2", "2", "4Gi")
		createPod(newPod(h.ns, "upstreams", v1.DefaultSchedulerName, "1", "100Mi", withRequiredNodeLabel("pool", "first")))
		Expect(waitBound(h.ns, "upstreams", 10*time.Second)).To(Equal("n1"))
		Eventually(func() int { return h.sched.CachedPodsOn("n1") }, 10*time.Second, 10*time.Millisecond).Should(Equal(2))

		Expect(recorded.allowWaiting()).To(Equal(1))
		Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n2"))
		Expect(overcommitted()).To(BeEmpty())
		_, refused := scheduler.BindChecks(name)
		Expect(refused).To(Equal(map[string]float64{"NodeResourcesFit": 1}))
	})

	It("leaves the pod pending, without spinning, when no node has room any more", func() {
		h, name := holdOnN1()
		bindAsOther(h.ns, "other", "n1", "1")
		Eventually(func() int { return h.sched.CachedPodsOn("n1") }, 10*time.Second, 10*time.Millisecond).Should(Equal(2))
		Expect(recorded.allowWaiting()).To(Equal(1))

		// The next cycle sees the other pod and finds no room.
		Eventually(func() string {
			c := scheduledCondition(h.ns, "p")()
			if c == nil {
				return ""
			}
			return c.Message
		}, 10*time.Second, 10*time.Millisecond).Should(ContainSubstring("0/1 nodes are available: 1 Insufficient cpu"))
		// It waits for an event like any unschedulable pod: no spin. (An
		// event that came while its cycle ran may have sent it to the
		// back-off queue first, for 20 s: no spin either.)
		unschedulable := func() []string {
			_, backoff, unschedulable := h.sched.Queue().Pending()
			var names []string
			for _, p := range slices.Concat(backoff, unschedulable) {
				names = append(names, p.Name)
			}
			return names
		}
		Eventually(unschedulable, 5*time.Second, 20*time.Millisecond).Should(Equal([]string{"p"}))
		Consistently(unschedulable, 2*time.Second, 20*time.Millisecond).Should(Equal([]string{"p"}))
		Expect(nodeOf(h.ns, "p")()).To(BeEmpty())
		Expect(recorded.of("p")).To(Equal([]string{"Reserve", "Permit", "PreBind", "Unreserve"}))
		_, refused := scheduler.BindChecks(name)
		Expect(refused).To(Equal(map[string]float64{"NodeResourcesFit": 1}))
		Expect(overcommitted()).To(BeEmpty())
	})

	It("backs a pod refused twice in a row off instead of retrying it at once", func() {
		h, name := holdOnN1("wait")
		createNode("n2", "2", "4Gi")
		bindAsOther(h.ns, "other-1", "n1", "1")
		Eventually(func() int { return h.sched.CachedPodsOn("n1") }, 10*time.Second, 10*time.Millisecond).Should(Equal(2))
		Expect(recorded.allowWaiting()).To(Equal(1))

		// Retried at once, it waits again, on n2; n2 fills up too.
		Eventually(func() int { return h.sched.CachedPodsOn("n2") }, 10*time.Second, 10*time.Millisecond).Should(Equal(1))
		Eventually(func() []time.Time { return recorded.timesOf("p", "Permit") }, 10*time.Second, 10*time.Millisecond).Should(HaveLen(2))
		Eventually(recorded.waitingCount, 10*time.Second, 10*time.Millisecond).Should(Equal(1))
		bindAsOther(h.ns, "other-2", "n2", "1")
		Eventually(func() int { return h.sched.CachedPodsOn("n2") }, 10*time.Second, 10*time.Millisecond).Should(Equal(2))
		Expect(recorded.allowWaiting()).To(Equal(1))

		// The second refusal in a row waits out the back-off (20s).
		backingOff := func() []string {
			_, backoff, _ := h.sched.Queue().Pending()
			var names []string
			for _, p := range backoff {
				names = append(names, p.Name)
			}
			return names
		}
		Eventually(backingOff, 10*time.Second, 10*time.Millisecond).Should(Equal([]string{"p"}))
		Consistently(backingOff, 2*time.Second, 20*time.Millisecond).Should(Equal([]string{"p"}))
		Expect(recorded.timesOf("p", "Reserve")).To(HaveLen(2))
		_, refused := scheduler.BindChecks(name)
		Expect(refused).To(Equal(map[string]float64{"NodeResourcesFit": 2}))
		Expect(overcommitted()).To(BeEmpty())
	})

	It("refuses a node whose allocatable shrank", func() {
		h, name := holdOnN1()
		createNode("n2", "2", "4Gi")
		n1, err := cs.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		n1.Status.Allocatable[v1.ResourceCPU] = resource.MustParse("1")
		n1.Status.Capacity[v1.ResourceCPU] = resource.MustParse("1")
		_, err = cs.CoreV1().Nodes().UpdateStatus(context.Background(), n1, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() int64 {
			ni, err := h.sched.Cache().GetNode("n1")
			Expect(err).NotTo(HaveOccurred())
			return ni.Allocatable.MilliCPU
		}, 10*time.Second, 10*time.Millisecond).Should(BeEquivalentTo(1000))

		Expect(recorded.allowWaiting()).To(Equal(1))
		Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n2"))
		_, refused := scheduler.BindChecks(name)
		Expect(refused).To(Equal(map[string]float64{"NodeResourcesFit": 1}))
		Expect(overcommitted()).To(BeEmpty())
	})

	It("does not bind onto a node deleted while the pod waited", func() {
		h, name := holdOnN1()
		createNode("n2", "2", "4Gi")
		Expect(cs.CoreV1().Nodes().Delete(context.Background(), "n1", metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() int { return h.sched.CachedPodsOn("n1") }, 10*time.Second, 10*time.Millisecond).Should(Equal(-1))

		Expect(recorded.allowWaiting()).To(Equal(1))
		Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n2"))
		_, refused := scheduler.BindChecks(name)
		Expect(refused).To(Equal(map[string]float64{"NodeGone": 1}))
	})

	It("refuses a pod that another scheduler's pod now keeps away by anti-affinity", func() {
		h, name := holdOnN1()
		createNode("n2", "2", "4Gi")
		other := newPod(h.ns, "other", otherScheduler, "100m", "100Mi")
		other.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{labelPermit: "wait-once"}},
				TopologyKey:   v1.LabelHostname,
			}},
		}}
		createPod(other)
		Expect(cs.CoreV1().Pods(h.ns).Bind(context.Background(), &v1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "other"},
			Target:     v1.ObjectReference{Kind: "Node", Name: "n1"},
		}, metav1.CreateOptions{})).To(Succeed())
		Eventually(func() int { return h.sched.CachedPodsOn("n1") }, 10*time.Second, 10*time.Millisecond).Should(Equal(2))

		Expect(recorded.allowWaiting()).To(Equal(1))
		Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n2"))
		_, refused := scheduler.BindChecks(name)
		Expect(refused).To(Equal(map[string]float64{"InterPodAffinity": 1}))
	})

	It("binds nothing twice when the API server refuses the bind because another scheduler bound the pod", func() {
		h, name := holdOnN1()
		createNode("n2", "2", "4Gi")
		binds, fails := bindCalls.Load(), bindFails.Load()
		// Another scheduler binds our pod elsewhere while it waits.
		Expect(cs.CoreV1().Pods(h.ns).Bind(context.Background(), &v1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "p"},
			Target:     v1.ObjectReference{Kind: "Node", Name: "n2"},
		}, metav1.CreateOptions{})).To(Succeed())
		Eventually(func() int { return h.sched.CachedPodsOn("n2") }, 10*time.Second, 10*time.Millisecond).Should(Equal(1))

		Expect(recorded.allowWaiting()).To(Equal(1))
		// Our bind is refused by the API server (the pod is bound), or never
		// made; either way the pod stays where it is and is not requeued.
		Eventually(func() []string { return recorded.of("p") }, 10*time.Second, 10*time.Millisecond).Should(ContainElement("Unreserve"))
		Consistently(nodeOf(h.ns, "p"), time.Second, 50*time.Millisecond).Should(Equal("n2"))
		Expect(bindCalls.Load()-binds-(bindFails.Load()-fails)).To(BeEquivalentTo(1), "one successful bind: the other scheduler's")
		Expect(h.sched.CachedPodsOn("n1")).To(Equal(0))
		Expect(overcommitted()).To(BeEmpty())
		_, refused := scheduler.BindChecks(name)
		Expect(refused).To(BeEmpty())
	})

	It("forgets a pod deleted while its bind is retried", func() {
		// A back-off far longer than the spec: on a loaded machine the
		// spec may see the failed bind seconds late, and a retry then
		// would be the back-off's, not a deleted pod's.
		h := startScheduler(scheduler.WithOutOfTreeRegistry(testRegistry), scheduler.WithPodBackoff(time.Minute, time.Minute))
		name := uniqueName("check")
		h.apply(defaultProfile(name, withHooks))
		createNode("n1", "2", "4Gi")
		// Every bind fails: the pod may be retried before the deletion is
		// seen (a pod update that arrives once the failed bind forgot it
		// queues it at once, as upstream's queue does), never after.
		createPod(newPod(h.ns, "p", name, "1", "100Mi", withPodLabels(labelBind, "fail-always")))
		Eventually(func() []string { return recorded.of("p") }, 10*time.Second, 10*time.Millisecond).Should(ContainElement("Unreserve"))
		deleteNow(h.ns, "p")
		Eventually(func() bool {
			_, err := cs.CoreV1().Pods(h.ns).Get(context.Background(), "p", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}, 10*time.Second, 10*time.Millisecond).Should(BeTrue())
		// An attempt that started before the deletion ends.
		seen := recorded.of("p")
		Eventually(func() bool {
			prev := seen
			seen = recorded.of("p")
			return len(prev) == len(seen) && len(seen)%5 == 0
		}, 10*time.Second, 300*time.Millisecond).Should(BeTrue())
		Consistently(func() []string { return recorded.of("p") }, 3*time.Second, 100*time.Millisecond).Should(Equal(seen), "no cycle after the deletion")
		Expect(len(seen)%5).To(BeZero(), "whole attempts only: %v", seen)
		for i := 0; i < len(seen); i += 5 {
			Expect(seen[i : i+5]).To(Equal([]string{"Reserve", "Permit", "PreBind", "Bind", "Unreserve"}))
		}
		Expect(h.sched.CachedPodsOn("n1")).To(Equal(0))
		active, backoff, unschedulable := h.sched.Queue().Pending()
		Expect(append(append(active, backoff...), unschedulable...)).To(BeEmpty())
		_, refused := scheduler.BindChecks(name)
		Expect(refused).To(BeEmpty())
	})

	It("never refuses alone in a cluster, with nodes filled exactly", func() {
		h := startScheduler()
		name := uniqueName("alone")
		h.apply(defaultProfile(name))
		for i := range 3 {
			createNode(fmt.Sprintf("n%d", i), "2", "4Gi")
		}
		for i := range 12 {
			createPod(newPod(h.ns, fmt.Sprintf("p-%d", i), name, "500m", "100Mi"))
		}
		Eventually(func() int { return len(countByNode(podNodes(h.ns))) }, 30*time.Second, 50*time.Millisecond).Should(Equal(3))
		Eventually(func() map[string]int { return countByNode(podNodes(h.ns)) }, 30*time.Second, 50*time.Millisecond).Should(Equal(map[string]int{"n0": 4, "n1": 4, "n2": 4}))
		createPod(newPod(h.ns, "extra", name, "500m", "100Mi"))
		waitUnschedulable(h.ns, "extra", 10*time.Second)
		checks, refused := scheduler.BindChecks(name)
		Expect(checks).To(BeEquivalentTo(12))
		Expect(refused).To(BeEmpty())
		Expect(overcommitted()).To(BeEmpty())
	})
})

var _ = Describe("Check before binding, pod groups", func() {
	BeforeEach(func() {
		enableGenericWorkload()
		recorded.reset()
	})

	It("checks each member of a scheduled group when it is bound: a refused member is scheduled again, the others stay bound", func() {
		h := startScheduler(scheduler.WithOutOfTreeRegistry(testRegistry), scheduler.WithPodBackoff(20*time.Second, 20*time.Second))
		name := uniqueName("check-gang")
		h.apply(defaultProfile(name, withHooks))
		createNode("n1", "2", "4Gi", withLabels("pool", "first"))
		createPodGroup(h.ns, "g", 2)
		members := createGang(h.ns, "m", "g", name, 2, "1", withPreferredNodeLabel("pool", "first"), withPodLabels(labelPermit, "wait-once"))
		Eventually(recorded.waitingCount, 20*time.Second, 10*time.Millisecond).Should(Equal(2))
		Expect(h.sched.CachedPodsOn("n1")).To(Equal(2))
		createNode("n2", "2", "4Gi")
		bindAsOther(h.ns, "other", "n1", "1")
		Eventually(func() int { return h.sched.CachedPodsOn("n1") }, 10*time.Second, 10*time.Millisecond).Should(Equal(3))

		Expect(recorded.allowWaiting()).To(Equal(2))
		Eventually(func() int { return boundOf(h.ns, members) }, 20*time.Second, 20*time.Millisecond).Should(Equal(2))
		Expect(overcommitted()).To(BeEmpty())
		Expect(nodesOf(h.ns, members)).To(ContainElement("n2"), "a member moved off the node the other scheduler filled")
		_, refused := scheduler.BindChecks(name)
		Expect(refused["NodeResourcesFit"]).To(BeNumerically(">=", 1))
	})
})
