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
	"slices"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// groupReview reviews the group name of ns and expects an answer.
func (h *harness) groupReview(ns, name string, draft *scheduler.Profile) *review.GroupAnswer {
	GinkgoHelper()
	r := h.review(review.Request{PodNamespace: ns, PodGroupName: name, Draft: draft})
	Expect(r.Pod).To(BeNil())
	Expect(r.Group).NotTo(BeNil())
	return r.Group
}

// countedMembers is how many pods of the group the scheduler's cache
// counts (what GangScheduling's PreEnqueue compares with minCount).
func (h *harness) countedMembers(group string) int {
	st, err := h.sched.Cache().PodGroupStates().Get(h.ns, group)
	if err != nil {
		return 0
	}
	return st.AllPodsCount()
}

// memberNodes returns the sorted nodes of the members a review places.
func memberNodes(g *review.GroupAnswer) []string {
	var out []string
	for _, m := range g.Members {
		if !m.Scheduled {
			out = append(out, m.Node)
		}
	}
	sort.Strings(out)
	return out
}

var _ = Describe("SchedulingReview of a pod group", func() {
	BeforeEach(enableGenericWorkload)

	It("names the real cycle's verdict and message for a pending gang, and the nodes it binds on once nodes are added", func() {
		h := startScheduler()
		name := uniqueName("gang-review")
		h.apply(defaultProfile(name))
		createNode("gr-1", "1", "4Gi")
		createNode("gr-2", "2", "8Gi")
		createPodGroup(h.ns, "train", 4)
		members := createGang(h.ns, "train", "train", name, 4, "1")

		By("waiting for the real cycle's verdict: 3 of 4 members fit")
		cycle := waitGroupCondition(h.ns, "train", metav1.ConditionFalse)
		Expect(cycle.Reason).To(Equal("Unschedulable"))
		before := cacheState(h.sched)

		g := h.groupReview(h.ns, "train", nil)
		Expect(g.Reason).To(Equal(cycle.Reason))
		Expect(g.Message).To(Equal(cycle.Message), "byte for byte the PodGroup condition's message")
		Expect(g.MinCount).To(BeEquivalentTo(4))
		Expect(g.Members).To(HaveLen(4))
		var placed, pending int
		for _, m := range g.Members {
			Expect(m.Message).NotTo(BeEmpty(), "no member binds: %s", m.Name)
			if m.Node != "" {
				placed++
			} else {
				pending++
				Eventually(failedSchedulingNotes(h.ns, m.Name), 10*time.Second, 50*time.Millisecond).Should(ContainElement(m.Message),
					"the member's reason is the FailedScheduling note the cycle wrote")
			}
		}
		Expect(placed).To(Equal(3), "the algorithm places 3 members before minCount cannot be met")
		Expect(pending).To(Equal(1))
		Expect(g.Preemption).NotTo(BeNil(), "workload-aware preemption was evaluated")
		Expect(g.Preemption.Victims).To(BeEmpty(), "nothing of lower priority runs")

		By("reviewing a member pod: the answer is its group's")
		r := h.review(review.Request{PodNamespace: h.ns, PodName: members[2]})
		Expect(r.Pod).To(BeNil())
		Expect(r.Group).NotTo(BeNil())
		Expect(r.Group.Name).To(Equal("train"))
		Expect(r.Group.Message).To(Equal(cycle.Message))
		Expect(cacheState(h.sched)).To(Equal(before), "a review leaves the live cache as it was")

		By("adding a node while no profile serves the gang, and reviewing with the same profile as a draft")
		Expect(h.sched.Remove(context.Background(), name)).To(BeTrue())
		createNode("gr-3", "4", "16Gi")
		Eventually(func() int64 {
			if n := h.sched.Cache().Dump().Nodes["gr-3"]; n != nil && n.Node() != nil && len(n.Node().Spec.Taints) == 0 {
				return n.Allocatable.MilliCPU
			}
			return 0
		}, 10*time.Second, 10*time.Millisecond).Should(BeEquivalentTo(4000), "the node is in the cache, ready (status written, not-ready taint lifted)")
		draft := defaultProfile(name)
		g = h.groupReview(h.ns, "train", &draft)
		Expect(g.Reason).To(Equal("Scheduled"), "%s %+v", g.Message, g.Members)
		for _, m := range g.Members {
			Expect(m.Message).To(BeEmpty())
			Expect(m.Node).NotTo(BeEmpty())
		}
		predicted := memberNodes(g)

		By("serving the profile again: the group binds where the review said")
		h.apply(defaultProfile(name))
		for _, p := range members {
			waitBound(h.ns, p, 20*time.Second)
		}
		Expect(nodesOf(h.ns, members)).To(Equal(predicted))
		c := waitGroupCondition(h.ns, "train", metav1.ConditionTrue)
		Expect(c.Reason).To(Equal(g.Reason))
		Expect(c.Message).To(Equal(g.Message))
	})

	It("names the victims workload-aware preemption then evicts, evicting none itself", func() {
		h := startScheduler()
		name := uniqueName("gang-preempt")
		h.apply(defaultProfile(name))
		createNode("gp-1", "2", "8Gi")
		createNode("gp-2", "2", "8Gi")
		// Low-priority pods fill both nodes. Without a kubelet a victim
		// is gone at once only with no grace period.
		var low []string
		for i := range 4 {
			n := fmt.Sprintf("low-%d", i)
			createPod(newPod(h.ns, n, name, "1", "1Gi", withPriorityClass("low"), func(p *v1.Pod) {
				p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
			}))
			low = append(low, n)
		}
		for _, p := range low {
			waitBound(h.ns, p, 20*time.Second)
		}

		By("reviewing the gang while no profile serves it")
		// Created gated while the profile serves, so the scheduler counts
		// the members (GangScheduling's minCount), then ungated while
		// none serves, so the real cycle leaves them pending.
		createPodGroup(h.ns, "hp", 2, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.PriorityClassName = "high" })
		gang := createGang(h.ns, "hp", "hp", name, 2, "1", withPriorityClass("high"), withGates("hold"))
		Eventually(func() int { return h.countedMembers("hp") }, 10*time.Second, 20*time.Millisecond).Should(Equal(2), "the scheduler counts both members")
		Expect(h.sched.Remove(context.Background(), name)).To(BeTrue())
		for _, p := range gang {
			ungate(h.ns, p)
		}
		draft := defaultProfile(name)
		var g *review.GroupAnswer
		Eventually(func() string {
			g = h.groupReview(h.ns, "hp", &draft)
			return g.Reason
		}, 10*time.Second, 50*time.Millisecond).Should(Equal("Unschedulable"), "once the scheduler has seen the gates lifted")
		Expect(g.Preemption).NotTo(BeNil())
		Expect(g.Preemption.Victims).NotTo(BeEmpty(), "%s", g.Message)
		Expect(g.Message).To(ContainSubstring(fmt.Sprintf("preempting %d victims", len(g.Preemption.Victims))))
		for _, p := range low {
			Expect(nodeOf(h.ns, p)()).NotTo(Equal("<deleted>"), "the review evicts nothing")
		}

		By("serving the profile: the real cycle evicts the victims the review named")
		h.apply(defaultProfile(name))
		for _, p := range gang {
			waitBound(h.ns, p, 30*time.Second)
		}
		var evicted []string
		for _, p := range low {
			if nodeOf(h.ns, p)() == "<deleted>" {
				evicted = append(evicted, h.ns+"/"+p)
			}
		}
		Expect(evicted).To(Equal(g.Preemption.Victims))
	})

	It("places members in upstream's member order, waits as the queue does below minCount, and refuses a group that does not exist", func() {
		h := startScheduler()
		name := uniqueName("gang-order")
		h.apply(defaultProfile(name))
		createNode("go-1", "8", "16Gi")

		By("a group below minCount is held back by GangScheduling: no cycle, no condition")
		createPodGroup(h.ns, "few", 3)
		createGang(h.ns, "few", "few", name, 2, "1")
		// A review of a group none of whose pods the informer has yet
		// is refused (no schedulerName to take): wait for both first.
		Eventually(func() int { return h.countedMembers("few") }, 10*time.Second, 20*time.Millisecond).Should(Equal(2))
		var g *review.GroupAnswer
		Eventually(func() []review.GroupMember {
			g = h.groupReview(h.ns, "few", nil)
			return g.Members
		}, 10*time.Second, 50*time.Millisecond).Should(HaveLen(2), "once the scheduler's informer has both pods")
		Expect(g.Reason).To(Equal(review.GroupWaiting))
		Expect(g.Message).To(Equal("GangScheduling: waiting for minCount pods from a gang to appear in scheduling queue"))
		Consistently(groupCondition(h.ns, "few"), time.Second, 100*time.Millisecond).Should(BeNil(), "the real cycle does not attempt it either")

		By("members of equal priority go by queue time, then name")
		createPodGroup(h.ns, "ordered", 4)
		for _, n := range []string{"m-d", "m-c", "m-b", "m-a"} {
			createPod(newPod(h.ns, n, name, "1", "1Gi", inGroup("ordered"), withGates("hold")))
		}
		pods, err := cs.CoreV1().Pods(h.ns).List(context.Background(), metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		var want []v1.Pod
		for _, p := range pods.Items {
			if strings.HasPrefix(p.Name, "m-") {
				want = append(want, p)
			}
		}
		slices.SortFunc(want, func(a, b v1.Pod) int {
			if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
		var wantNames []string
		for _, p := range want {
			wantNames = append(wantNames, p.Name)
		}
		Eventually(func() []string {
			g := h.groupReview(h.ns, "ordered", nil)
			var names []string
			for _, m := range g.Members {
				names = append(names, m.Name)
			}
			return names
		}, 10*time.Second, 50*time.Millisecond).Should(Equal(wantNames))
		g = h.groupReview(h.ns, "ordered", nil)
		Expect(g.Reason).To(Equal(review.GroupWaiting), "the scheduling gates hold the group")
		Expect(g.Message).To(HavePrefix("SchedulingGates: "))

		By("a group that does not exist")
		_, err = h.reviews.Review(context.Background(), review.Request{PodNamespace: h.ns, PodGroupName: "nope", SchedulerName: name})
		Expect(errors.Is(err, review.ErrPodGroupNotFound)).To(BeTrue(), "%v", err)
	})

	It("places pending pod groups all or nothing in what-if mode, the placed ones assumed for the pods after them", func() {
		h := startScheduler()
		name := uniqueName("gang-whatif")
		h.apply(defaultProfile(name))
		createNode("gw-1", "4", "16Gi")
		createPodGroup(h.ns, "fits", 2)
		createPodGroup(h.ns, "too-big", 3)
		// Gated so the real cycle leaves them pending; what-if leaves
		// gated pods out, so the gates come off before it.
		// "a-…" before "b-…": first in queue order even within one second.
		fits := createGang(h.ns, "a", "fits", name, 2, "1", withGates("hold"))
		big := createGang(h.ns, "b", "too-big", name, 3, "1", withGates("hold"))
		Eventually(func() int { return len(h.sched.Cache().Dump().Nodes) }, 10*time.Second, 10*time.Millisecond).Should(Equal(1))
		Eventually(func() int { return h.countedMembers("fits") + h.countedMembers("too-big") }, 10*time.Second, 20*time.Millisecond).Should(Equal(5),
			"the scheduler counts every member (GangScheduling's minCount) before no profile serves them")
		Expect(h.sched.Remove(context.Background(), name)).To(BeTrue())
		for _, p := range append(slices.Clone(fits), big...) {
			ungate(h.ns, p)
		}
		draft := defaultProfile(name)
		var r *review.Answer
		Eventually(func() int {
			r = h.review(review.Request{PendingPods: true, Draft: &draft})
			return len(r.WhatIf)
		}, 10*time.Second, 50*time.Millisecond).Should(Equal(5))
		byGroup := map[string][]review.WhatIfPod{}
		for _, p := range r.WhatIf {
			byGroup[p.Group] = append(byGroup[p.Group], p)
		}
		Expect(byGroup["fits"]).To(HaveLen(2))
		Expect(byGroup["too-big"]).To(HaveLen(3))
		for _, p := range byGroup["fits"] {
			Expect(p.Node).To(Equal("gw-1"), p.Name)
		}
		for _, p := range byGroup["too-big"] {
			Expect(p.Node).To(BeEmpty(), "all or nothing: 2 cpu are left for 3 members (%s)", p.Name)
			Expect(p.Message).NotTo(BeEmpty())
		}
	})
})
