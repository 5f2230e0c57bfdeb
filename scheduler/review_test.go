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
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// review runs a review and expects it to succeed.
func (h *harness) review(req review.Request) *review.Answer {
	GinkgoHelper()
	r, err := h.reviews.Review(context.Background(), req)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// ungate removes the scheduling gates of a pod.
func ungate(ns, name string) {
	GinkgoHelper()
	p := getPod(ns, name)
	p.Spec.SchedulingGates = nil
	_, err := cs.CoreV1().Pods(ns).Update(context.Background(), p, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// failedSchedulingNotes lists the notes of the FailedScheduling events of a pod.
func failedSchedulingNotes(ns, name string) func() []string {
	return func() []string {
		list, err := cs.EventsV1().Events(ns).List(context.Background(), metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		var notes []string
		for _, e := range list.Items {
			if e.Regarding.Name == name && e.Reason == "FailedScheduling" {
				notes = append(notes, e.Note)
			}
		}
		return notes
	}
}

// cacheState is what a review must leave as it was: assumed pods and the
// pods and requests of every node.
func cacheState(s *scheduler.Scheduler) map[string]string {
	d := s.Cache().Dump()
	out := map[string]string{"assumed": fmt.Sprint(sets.List(d.AssumedPods))}
	for n, info := range d.Nodes {
		out[n] = fmt.Sprintf("pods=%d cpu=%d memory=%d", len(info.Pods), info.Requested.MilliCPU, info.Requested.Memory)
	}
	return out
}

var _ = Describe("SchedulingReview", func() {
	It("names the node the scheduler then picks, with every score plugin's raw, normalized and weighted score", func() {
		h := startScheduler()
		name := uniqueName("review")
		h.apply(defaultProfile(name))
		createNode("big", "16", "32Gi")
		createNode("medium", "8", "16Gi")
		createNode("small", "2", "4Gi")
		createNode("tainted", "32", "64Gi", withTaint("dedicated", "gpu", v1.TaintEffectNoSchedule))
		createPod(newPod(h.ns, "web", name, "1", "1Gi", withGates("hold")))
		Eventually(func() int { return len(h.sched.Cache().Dump().Nodes) }, 10*time.Second, 10*time.Millisecond).Should(Equal(4))

		var r *review.Answer
		Eventually(func() (err error) {
			r, err = h.reviews.Review(context.Background(), review.Request{PodNamespace: h.ns, PodName: "web"})
			return err
		}, 10*time.Second, 20*time.Millisecond).Should(Succeed(), "once the scheduler's informer has the pod")
		Expect(r.SchedulerName).To(Equal(name))
		Expect(r.SnapshotNodes).To(Equal(4))
		p := r.Pod
		Expect(p.Message).To(BeEmpty())
		Expect(p.Feasible).To(HaveLen(3))
		Expect(p.Feasible[0].Total).To(BeNumerically(">", p.Feasible[1].Total), "the best node is unique")
		Expect(p.Tied).To(BeZero())
		for _, n := range p.Feasible {
			var sum int64
			for _, sc := range n.Scores {
				Expect(sc.Extender).To(BeFalse())
				Expect(sc.Weighted).To(Equal(sc.Normalized*int64(sc.Weight)), "%s on %s", sc.Name, n.Name)
				sum += sc.Weighted
			}
			Expect(n.Total).To(Equal(sum))
			Expect(n.Sampled).To(BeTrue(), "below 100 nodes the cycle looks at all of them")
		}
		Expect(p.NumFeasibleNodesToFind).To(Equal(4))
		Expect(p.Rejected).To(ConsistOf(And(
			HaveField("Node", "tainted"),
			HaveField("Plugin", "TaintToleration"),
			HaveField("Reasons", ConsistOf("node(s) had untolerated taint(s)")),
			HaveField("Unresolvable", true),
		)))

		ungate(h.ns, "web")
		Expect(waitBound(h.ns, "web", 10*time.Second)).To(Equal(p.SelectedNode))

		By("evaluating the bound pod as if it were pending again, without itself on its node")
		Eventually(func() string {
			return fmt.Sprint(h.sched.Cache().Dump().Nodes[p.SelectedNode].Pods)
		}, 10*time.Second, 20*time.Millisecond).ShouldNot(Equal("[]"))
		for range 2 {
			again := h.review(review.Request{PodNamespace: h.ns, PodName: "web"})
			Expect(again.Pod.SelectedNode).To(Equal(p.SelectedNode))
			Expect(again.Pod.Feasible).To(Equal(p.Feasible))
		}
		By("and the next review sees it on its node again")
		fill := h.review(review.Request{Pod: newPod(h.ns, "fill", name, "15500m", "1Gi")})
		Expect(fill.Pod.Rejected).To(ContainElement(And(HaveField("Node", "big"), HaveField("Reasons", ConsistOf("Insufficient cpu")))))
	})

	It("reports the FailedScheduling message byte for byte, and preemption's dry-run answer", func() {
		h := startScheduler()
		name := uniqueName("review")
		h.apply(defaultProfile(name))
		createNode("n1", "2", "4Gi")
		createNode("n2", "2", "4Gi")
		createNode("n3", "4", "8Gi", withTaint("dedicated", "gpu", v1.TaintEffectNoSchedule))
		createPod(newPod(h.ns, "too-big", name, "3", "1Gi"))
		cond := waitUnschedulable(h.ns, "too-big", 10*time.Second)
		Eventually(failedSchedulingNotes(h.ns, "too-big"), 10*time.Second, 20*time.Millisecond).ShouldNot(BeEmpty())
		event := failedSchedulingNotes(h.ns, "too-big")()[0]

		r := h.review(review.Request{PodNamespace: h.ns, PodName: "too-big"})
		GinkgoWriter.Printf("%s\n%+v\n", r.Pod.Message, r.Pod.Preemption)
		Expect(r.Pod.SelectedNode).To(BeEmpty())
		Expect(r.Pod.Message).To(Equal(cond.Message))
		Expect(r.Pod.Message).To(Equal(event))
		Expect(r.Pod.Preemption).NotTo(BeNil())
		Expect(r.Pod.Preemption.Node).To(BeEmpty())
		Expect(r.Pod.Preemption.Message).To(HavePrefix("preemption: "))
		Expect(r.Pod.Message).To(HaveSuffix(r.Pod.Preemption.Message))
		Expect(r.Pod.Rejected).To(HaveLen(3))
	})

	It("finds preemption victims without evicting them", func() {
		h := startScheduler()
		name := uniqueName("review")
		h.apply(defaultProfile(name))
		createNode("n1", "2", "4Gi")
		createPod(newPod(h.ns, "low", name, "1500m", "1Gi", withPriorityClass("low")))
		waitBound(h.ns, "low", 10*time.Second)

		tmpl := newPod(h.ns, "urgent", name, "1", "1Gi")
		tmpl.Spec.Priority = ptr.To[int32](1000)
		before := cacheState(h.sched)
		r := h.review(review.Request{Pod: tmpl})
		Expect(r.Pod.SelectedNode).To(BeEmpty())
		Expect(r.Pod.Preemption.Node).To(Equal("n1"))
		Expect(r.Pod.Preemption.Victims).To(Equal([]string{h.ns + "/low"}))
		Expect(r.Pod.Message).To(HaveSuffix("preemption: found a potential placement for pod on node n1, preempting 1 victims"))
		Consistently(nodeOf(h.ns, "low"), time.Second, 50*time.Millisecond).Should(Equal("n1"))
		Expect(getPod(h.ns, "low").DeletionTimestamp).To(BeNil())
		Expect(cacheState(h.sched)).To(Equal(before))
	})

	It("predicts with a draft MostAllocated profile where the live LeastAllocated one would not place, as the draft does once applied", func() {
		h := startScheduler()
		name := uniqueName("review")
		h.apply(defaultProfile(name))
		createNode("busy", "4", "8Gi")
		createNode("idle", "4", "8Gi")
		createPod(newPod(h.ns, "ballast", name, "2", "4Gi", withNodeName("busy")))
		Eventually(func() int {
			n := h.sched.Cache().Dump().Nodes["busy"]
			if n == nil {
				return 0
			}
			return len(n.Pods)
		}, 10*time.Second, 10*time.Millisecond).Should(Equal(1))

		packing := defaultProfile(name, mostAllocated)
		tmpl := newPod(h.ns, "web", name, "1", "1Gi")
		live := h.review(review.Request{Pod: tmpl})
		draft := h.review(review.Request{Pod: tmpl, Draft: &packing})
		Expect(live.Pod.SelectedNode).To(Equal("idle"))
		Expect(draft.Pod.SelectedNode).To(Equal("busy"))
		Expect(draft.Pod.Feasible[0].Total).To(BeNumerically(">", draft.Pod.Feasible[1].Total))

		h.apply(packing)
		createPod(tmpl)
		Expect(waitBound(h.ns, "web", 10*time.Second)).To(Equal(draft.Pod.SelectedNode))
	})

	It("places every pending pod in queue order on a private snapshot, and changes nothing live", func() {
		h := startScheduler()
		live := uniqueName("review")
		h.apply(defaultProfile(live))
		draftName := uniqueName("draft")
		createNode("n1", "2", "4Gi")
		createNode("n2", "2", "4Gi")
		createNode("n3", "2", "4Gi")
		createPod(newPod(h.ns, "bound", live, "500m", "1Gi"))
		waitBound(h.ns, "bound", 10*time.Second)
		for _, p := range []string{"a", "b", "c", "d"} {
			createPod(newPod(h.ns, p, draftName, "1500m", "1Gi"))
		}
		createPod(newPod(h.ns, "gated", draftName, "1", "1Gi", withGates("hold")))
		createPod(newPod(h.ns, "first", draftName, "1500m", "1Gi", withPriorityClass("high")))
		Eventually(func() int {
			pods, err := h.reviews.Review(context.Background(), review.Request{PendingPods: true, PendingSchedulerName: draftName, Draft: ptr.To(defaultProfile(draftName))})
			Expect(err).NotTo(HaveOccurred())
			return len(pods.WhatIf)
		}, 10*time.Second, 20*time.Millisecond).Should(Equal(5))

		before := cacheState(h.sched)
		draft := defaultProfile(draftName)
		r := h.review(review.Request{PendingPods: true, Draft: &draft})
		Expect(r.WhatIf[0].Name).To(Equal("first"), "the high-priority pod comes first in queue order")
		placed := map[string]string{}
		var unplaced []review.WhatIfPod
		for _, p := range r.WhatIf {
			if p.Node != "" {
				placed[p.Name] = p.Node
			} else {
				unplaced = append(unplaced, p)
			}
		}
		Expect(placed).To(HaveLen(3))
		Expect(sets.New(maps(placed)...).Len()).To(Equal(3), "each placed pod is assumed for the next: one per node")
		Expect(unplaced).To(HaveLen(2))
		Expect(unplaced[0].Message).To(HavePrefix("0/3 nodes are available: 3 Insufficient cpu."))

		Expect(cacheState(h.sched)).To(Equal(before))
		for _, p := range []string{"a", "b", "c", "d", "first"} {
			Expect(getPod(h.ns, p).Spec.NodeName).To(BeEmpty())
			Expect(getPod(h.ns, p).Status.Conditions).To(BeEmpty())
			Expect(eventsFor(h.ns, p)).To(BeEmpty())
		}
		Expect(h.sched.Serving(draftName)).To(BeFalse())
	})

	It("names, every time, the pods the queue then leaves pending: priority, creation time, then namespace and name", func() {
		h := startScheduler()
		name := uniqueName("order")
		createNode("n1", "2", "4Gi")
		createNode("n2", "2", "4Gi")
		createNode("n3", "2", "4Gi")
		// Eight pods of equal priority, one per node fits: created in an
		// order their names do not sort in, most within one second (the
		// resolution of creationTimestamp).
		var created []*v1.Pod
		for _, p := range []string{"p5", "p2", "p7", "p0", "p3", "p6", "p1", "p4"} {
			created = append(created, createPod(newPod(h.ns, p, name, "1500m", "1Gi")))
		}
		slices.SortFunc(created, func(a, b *v1.Pod) int {
			if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
		var order []string
		for _, p := range created {
			order = append(order, p.Name)
		}
		Eventually(func() int {
			r, err := h.reviews.Review(context.Background(), review.Request{PendingPods: true, PendingSchedulerName: name, Draft: ptr.To(defaultProfile(name))})
			Expect(err).NotTo(HaveOccurred())
			return len(r.WhatIf)
		}, 10*time.Second, 20*time.Millisecond).Should(Equal(8))

		whatIf := func() (names []string, placed []string) {
			r := h.review(review.Request{PendingPods: true, PendingSchedulerName: name, Draft: ptr.To(defaultProfile(name))})
			for _, p := range r.WhatIf {
				names = append(names, p.Name)
				if p.Node != "" {
					placed = append(placed, p.Name)
				}
			}
			return names, placed
		}
		names, placed := whatIf()
		Expect(names).To(Equal(order))
		Expect(placed).To(Equal(order[:3]))
		for range 5 {
			again, _ := whatIf()
			Expect(again).To(Equal(names), "two what-ifs of the same state agree")
		}

		By("going live: the queue places the pods the what-if named, and leaves the others pending")
		h.apply(defaultProfile(name))
		for _, p := range order[:3] {
			waitBound(h.ns, p, 10*time.Second)
		}
		Eventually(failedSchedulingNotes(h.ns, order[7]), 10*time.Second, 20*time.Millisecond).ShouldNot(BeEmpty())
		for _, p := range order[3:] {
			Expect(getPod(h.ns, p).Spec.NodeName).To(BeEmpty(), "pod %s of %v", p, order)
		}
	})

	It("above 100 nodes searches the nodes as the live cycle does, and predicts the nodes it then binds", func() {
		h := startScheduler()
		name := uniqueName("sample")
		// 150 nodes, memory in step with CPU (so balance scores alike):
		// two small ones, which bin packing prefers, the smallest beyond
		// the first 100 nodes a search from the start takes.
		for i := range 150 {
			size := 100
			switch i {
			case 50:
				size = 8
			case 140:
				size = 4
			}
			createNode(fmt.Sprintf("s-%03d", i), fmt.Sprint(size), fmt.Sprintf("%dGi", size))
		}
		for _, p := range []string{"p1", "p2", "p3"} {
			createPod(newPod(h.ns, p, name, "1", "1Gi"))
		}
		draft := defaultProfile(name, mostAllocated)
		var r *review.Answer
		Eventually(func() int {
			r = h.review(review.Request{PendingPods: true, Draft: &draft})
			return len(r.WhatIf)
		}, 10*time.Second, 20*time.Millisecond).Should(Equal(3))
		predicted := map[string]string{}
		for _, p := range r.WhatIf {
			Expect(p.Node).NotTo(BeEmpty(), "pod %s", p.Name)
			predicted[p.Name] = p.Node
		}

		h.apply(defaultProfile(name, mostAllocated))
		bound := map[string]string{}
		for _, p := range []string{"p1", "p2", "p3"} {
			bound[p] = waitBound(h.ns, p, 10*time.Second)
		}
		Expect(bound).To(Equal(predicted))
	})

	It("answers reviews while the profile swaps and pods bind, losing no pod and blocking no cycle", func() {
		h := startScheduler()
		name := uniqueName("review")
		least := defaultProfile(name)
		most := defaultProfile(name, mostAllocated)
		h.apply(least)
		for i := range 3 {
			createNode(fmt.Sprintf("n%d", i), "8", "16Gi")
		}
		bindsBefore, failsBefore := bindCalls.Load(), bindFails.Load()
		ctx, stop := context.WithCancel(context.Background())
		var answered atomic.Int64
		reviewErr := make(chan error, 1)
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			tmpl := newPod(h.ns, "template", name, "100m", "100Mi")
			for ctx.Err() == nil {
				r, err := h.reviews.Review(ctx, review.Request{Pod: tmpl})
				switch {
				case errors.Is(err, review.ErrNotReady), ctx.Err() != nil:
					continue
				case err != nil:
					reviewErr <- err
					return
				case r.Pod.SelectedNode == "":
					reviewErr <- fmt.Errorf("no node for the template: %s", r.Pod.Message)
					return
				}
				answered.Add(1)
			}
		}()
		const pods = 20
		for i := range pods {
			if i%2 == 0 {
				h.apply(most)
			} else {
				h.apply(least)
			}
			createPod(newPod(h.ns, fmt.Sprintf("p%d", i), name, "100m", "100Mi"))
		}
		for i := range pods {
			waitBound(h.ns, fmt.Sprintf("p%d", i), 20*time.Second)
		}
		Eventually(answered.Load, 20*time.Second, 20*time.Millisecond).Should(BeNumerically(">=", 5))
		stop()
		Eventually(done, 20*time.Second).Should(BeClosed())
		Expect(reviewErr).NotTo(Receive())
		Expect(bindCalls.Load()-bindsBefore).To(BeEquivalentTo(pods), "each pod bound once")
		Expect(bindFails.Load() - failsBefore).To(BeZero())
	})

	It("closes what each review builds: goroutines stay flat over many reviews", func() {
		h := startScheduler()
		name := uniqueName("review")
		live := defaultProfile(name)
		h.apply(live)
		createNode("n1", "4", "8Gi")
		tmpl := newPod(h.ns, "template", name, "100m", "100Mi")
		Eventually(func() error {
			_, err := h.reviews.Review(context.Background(), review.Request{Pod: tmpl})
			return err
		}, 10*time.Second, 20*time.Millisecond).Should(Succeed())
		baseline := runtime.NumGoroutine()
		for range 100 {
			h.review(review.Request{Pod: tmpl})
			h.review(review.Request{Pod: tmpl, Draft: &live})
		}
		Eventually(runtime.NumGoroutine, 20*time.Second, 100*time.Millisecond).Should(BeNumerically("<=", baseline+10))
		GinkgoWriter.Printf("goroutines: baseline %d, after 200 reviews %d\n", baseline, runtime.NumGoroutine())
	})

	It("builds one review framework per profile generation, shared by its reviews and closed with it; a draft builds and closes its own", func() {
		h := startScheduler()
		name := uniqueName("review")
		least := defaultProfile(name)
		most := defaultProfile(name, mostAllocated)
		h.apply(least)
		createNode("busy", "4", "8Gi")
		createNode("idle", "4", "8Gi")
		createPod(newPod(h.ns, "ballast", name, "2", "4Gi", withNodeName("busy")))
		Eventually(func() int {
			n := h.sched.Cache().Dump().Nodes["busy"]
			if n == nil {
				return 0
			}
			return len(n.Pods)
		}, 10*time.Second, 10*time.Millisecond).Should(Equal(1))
		tmpl := newPod(h.ns, "web", name, "1", "1Gi")
		// The metrics are the process's: this spec counts from what the
		// specs before it left.
		builds0, open0, snapshots0 := scheduler.ReviewMetrics()
		metrics := func() (builds, open, snapshots float64) {
			b, o, s := scheduler.ReviewMetrics()
			return b - builds0, o - open0, s - snapshots0
		}

		// Every review of one generation shares one framework: a build per
		// review is what made reviews slow the scheduling loop.
		const reviews = 20
		for range reviews {
			Expect(h.review(review.Request{Pod: tmpl}).Pod.SelectedNode).To(Equal("idle"))
		}
		builds, open, snapshots := metrics()
		Expect(builds).To(BeEquivalentTo(1))
		Expect(open).To(BeEquivalentTo(1))
		// And one snapshot, which each review updates with the nodes that
		// changed since the last one, never a copy of the whole cluster
		// per review.
		Expect(snapshots).To(BeEquivalentTo(1))

		// A new generation gets its own, built at its first review; the
		// replaced one is closed with its generation.
		h.apply(most)
		for range reviews {
			Expect(h.review(review.Request{Pod: tmpl}).Pod.SelectedNode).To(Equal("busy"))
		}
		builds, open, _ = metrics()
		Expect(builds).To(BeEquivalentTo(2))
		Expect(open).To(BeEquivalentTo(1))

		// Drafts build their own each time and close it.
		for range 3 {
			Expect(h.review(review.Request{Pod: tmpl, Draft: &least}).Pod.SelectedNode).To(Equal("idle"))
		}
		builds, open, snapshots = metrics()
		Expect(builds).To(BeEquivalentTo(5))
		Expect(open).To(BeEquivalentTo(1))
		Expect(snapshots).To(BeEquivalentTo(1), "every generation and draft reviews on the one snapshot")

		// A removed profile closes its review framework too.
		Expect(h.sched.Remove(context.Background(), name)).To(BeTrue())
		_, open, _ = metrics()
		Expect(open).To(BeZero())
		_, err := h.reviews.Review(context.Background(), review.Request{Pod: tmpl})
		Expect(err).To(MatchError(review.ErrNotServing))
	})

	It("evaluates on one goroutine whatever the scheduler's parallelism, with the answer of the cycle's parallel passes", func() {
		// A review filters and scores every node. With the scheduler's 16
		// workers it took every core from the scheduling cycle's own
		// parallel passes while it ran; with one it takes at most one.
		h := startScheduler(scheduler.WithParallelism(16))
		name := uniqueName("review")
		h.apply(defaultProfile(name))
		for i := range 40 {
			cpus := 2 // too small for the pod
			if i >= 8 {
				cpus = 3 + i
			}
			createNode(fmt.Sprintf("n%02d", i), strconv.Itoa(cpus), "16Gi")
		}
		Eventually(func() int { return len(h.sched.Cache().Dump().Nodes) }, 10*time.Second, 10*time.Millisecond).Should(Equal(40))
		live, rev := h.sched.FrameworkParallelism(name)
		Expect(live).To(Equal(16))
		Expect(rev).To(BeZero(), "no review framework before the first review")

		createPod(newPod(h.ns, "web", name, "2500m", "1Gi", withGates("hold")))
		var r *review.Answer
		Eventually(func() (err error) {
			r, err = h.reviews.Review(context.Background(), review.Request{PodNamespace: h.ns, PodName: "web"})
			return err
		}, 10*time.Second, 20*time.Millisecond).Should(Succeed())
		live, rev = h.sched.FrameworkParallelism(name)
		Expect(live).To(Equal(16), "the live framework keeps the scheduler's parallelism")
		Expect(rev).To(Equal(1))
		Expect(r.Pod.Feasible).To(HaveLen(32), "the nodes with 2 CPUs are rejected")
		Expect(r.Pod.Rejected).To(HaveLen(8))
		Expect(r.Pod.Feasible[0].Total).To(BeNumerically(">", r.Pod.Feasible[1].Total), "the best node is unique")

		By("listing the scores of the first ScoredNodes nodes only, with the same ranking")
		short := h.review(review.Request{PodNamespace: h.ns, PodName: "web", ScoredNodes: 3})
		Expect(short.Pod.SelectedNode).To(Equal(r.Pod.SelectedNode))
		Expect(short.Pod.Feasible).To(HaveLen(len(r.Pod.Feasible)))
		for i, n := range short.Pod.Feasible {
			Expect(n.Name).To(Equal(r.Pod.Feasible[i].Name))
			Expect(n.Total).To(Equal(r.Pod.Feasible[i].Total))
			if i < 3 {
				Expect(n.Scores).To(Equal(r.Pod.Feasible[i].Scores))
				Expect(n.Scores).NotTo(BeEmpty())
			} else {
				Expect(n.Scores).To(BeNil(), "node %d of the ranking", i)
			}
		}

		ungate(h.ns, "web")
		Expect(waitBound(h.ns, "web", 10*time.Second)).To(Equal(r.Pod.SelectedNode), "the cycle, on 16 workers, picks the node the review named")
	})

	It("names the extender that rejects a node, adds its weighted priority, and predicts the bind", func() {
		h := startScheduler()
		name := uniqueName("review")
		ext := newFakeExtender()
		ext.reject["refused"] = true
		ext.scores["small"] = 10
		cfg := ext.config()
		cfg.FilterVerb, cfg.PrioritizeVerb, cfg.Weight = "filter", "prioritize", 5
		h.apply(withExtenders(defaultProfile(name), cfg))
		createNode("refused", "64", "256Gi")
		createNode("small", "2", "4Gi")
		createNode("large", "64", "256Gi")
		createPod(newPod(h.ns, "web", name, "100m", "100Mi", withGates("hold")))

		var r *review.Answer
		Eventually(func() (err error) {
			r, err = h.reviews.Review(context.Background(), review.Request{PodNamespace: h.ns, PodName: "web"})
			return err
		}, 10*time.Second, 20*time.Millisecond).Should(Succeed())
		Expect(r.SnapshotNodes).To(Equal(3))
		Expect(r.Pod.Rejected).To(ConsistOf(review.NodeRejection{
			Node: "refused", Plugin: ext.srv.URL, Reasons: []string{"refused by extender"},
		}))
		Expect(r.Pod.SelectedNode).To(Equal("small"))
		Expect(r.Pod.Feasible[0].Scores).To(ContainElement(review.ScoreDetail{
			Name: ext.srv.URL, Extender: true, Weighted: 10 * 5 * 10,
		}))
		filters, _, binds := ext.counts()
		Expect(filters).To(BeNumerically(">=", 1))
		Expect(binds).To(BeZero())

		ungate(h.ns, "web")
		Expect(waitBound(h.ns, "web", 10*time.Second)).To(Equal(r.Pod.SelectedNode))
	})

	It("allocates a pod's DRA claim on the node with the device, writing nothing to the claim", func() {
		h := startScheduler()
		name := uniqueName("review")
		h.apply(defaultProfile(name))
		ctx := context.Background()
		createNode("gpu-node", "4", "8Gi")
		createNode("plain", "8", "16Gi")
		class := &resourcev1.DeviceClass{
			ObjectMeta: metav1.ObjectMeta{Name: uniqueName("gpu")},
			Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
				CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`},
			}}},
		}
		_, err := cs.ResourceV1().DeviceClasses().Create(ctx, class, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			_ = cs.ResourceV1().DeviceClasses().Delete(context.Background(), class.Name, metav1.DeleteOptions{})
		})
		slice := &resourcev1.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: uniqueName("gpu-node-slice")},
			Spec: resourcev1.ResourceSliceSpec{
				Driver:   "gpu.example.com",
				NodeName: ptr.To("gpu-node"),
				Pool:     resourcev1.ResourcePool{Name: "gpu-node", Generation: 1, ResourceSliceCount: 1},
				Devices:  []resourcev1.Device{{Name: "gpu-0"}},
			},
		}
		_, err = cs.ResourceV1().ResourceSlices().Create(ctx, slice, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			_ = cs.ResourceV1().ResourceSlices().Delete(context.Background(), slice.Name, metav1.DeleteOptions{})
		})
		claim := &resourcev1.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "gpu"},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
				Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class.Name},
			}}}},
		}
		_, err = cs.ResourceV1().ResourceClaims(h.ns).Create(ctx, claim, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		pod := newPod(h.ns, "trainer", name, "100m", "100Mi", withGates("hold"))
		pod.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("gpu")}}
		pod.Spec.Containers[0].Resources.Claims = []v1.ResourceClaim{{Name: "gpu"}}
		createPod(pod)

		var r *review.Answer
		Eventually(func(g Gomega) {
			var err error
			r, err = h.reviews.Review(ctx, review.Request{PodNamespace: h.ns, PodName: "trainer"})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(r.Pod.SelectedNode).To(Equal("gpu-node"), "%+v %s", r.Pod.Rejected, r.Pod.Message)
		}, 20*time.Second, 50*time.Millisecond).Should(Succeed())
		Expect(r.Pod.Rejected).To(ConsistOf(And(HaveField("Node", "plain"), HaveField("Plugin", "DynamicResources"))))
		got, err := cs.ResourceV1().ResourceClaims(h.ns).Get(ctx, "gpu", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status.Allocation).To(BeNil(), "a review allocates nothing")
		Expect(got.Status.ReservedFor).To(BeEmpty())

		ungate(h.ns, "trainer")
		Expect(waitBound(h.ns, "trainer", 20*time.Second)).To(Equal("gpu-node"))
	})

	It("refuses unknown pods, unserved names and drafts that do not build", func() {
		h := startScheduler()
		name := uniqueName("review")
		h.apply(defaultProfile(name))
		Eventually(func() error {
			_, err := h.reviews.Review(context.Background(), review.Request{PodNamespace: h.ns, PodName: "nope"})
			return err
		}, 10*time.Second, 20*time.Millisecond).Should(MatchError(review.ErrPodNotFound))
		_, err := h.reviews.Review(context.Background(), review.Request{PodNamespace: h.ns, PodName: "nope"})
		Expect(err).To(MatchError(review.ErrPodNotFound))
		_, err = h.reviews.Review(context.Background(), review.Request{Pod: newPod(h.ns, "x", "nobody", "1", "1Gi")})
		Expect(err).To(MatchError(review.ErrNotServing))
		bad := defaultProfile(name, func(p *config.KubeSchedulerProfile) {
			p.Plugins.Filter.Enabled = append(p.Plugins.Filter.Enabled, config.Plugin{Name: "NoSuchPlugin"})
		})
		_, applyErr := h.sched.Validate(context.Background(), bad)
		_, err = h.reviews.Review(context.Background(), review.Request{Pod: newPod(h.ns, "x", name, "1", "1Gi"), Draft: &bad})
		var be *review.BuildError
		Expect(err).To(BeAssignableToTypeOf(be))
		Expect(err.Error()).To(Equal(applyErr.Error()))
		Expect(h.sched.Serving(name)).To(BeTrue())
	})
})

func maps(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
