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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

var _ = Describe("SchedulingReview scenarios", func() {
	It("never changes the live cache, queue, nodes or pods, and answers while the profile swaps", func() {
		h := startScheduler()
		name := uniqueName("scenario")
		least := defaultProfile(name)
		most := defaultProfile(name, mostAllocated)
		h.apply(least)
		for i := range 3 {
			createNode(fmt.Sprintf("n%d", i), "4", "8Gi")
		}
		for i := range 6 {
			createPod(newPod(h.ns, fmt.Sprintf("run-%d", i), name, "1", "1Gi"))
		}
		bound := map[string]string{}
		for i := range 6 {
			pod := fmt.Sprintf("run-%d", i)
			bound[pod] = waitBound(h.ns, pod, 20*time.Second)
		}
		// Pending: no node has 8 CPUs.
		createPod(newPod(h.ns, "big", name, "8", "1Gi"))
		Eventually(failedSchedulingNotes(h.ns, "big"), 20*time.Second, 50*time.Millisecond).ShouldNot(BeEmpty())
		active, backoff, unschedulable := h.sched.Queue().Pending()
		queued := len(active) + len(backoff) + len(unschedulable)
		before := cacheState(h.sched)

		big := &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "big", Labels: map[string]string{"pool": "big"}},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse("16"), v1.ResourceMemory: resource.MustParse("32Gi"), v1.ResourcePods: resource.MustParse("110"),
			}},
		}
		sc := &review.Scenario{
			RemoveNodes: []string{"n0"},
			AddNodes:    []review.NodeShape{{FromNode: "n1", Count: 1}},
			Pods:        []review.ScenarioPods{{Template: newPod(h.ns, "extra", name, "1", "1Gi"), Replicas: 2}},
			ReportBy:    "pool",
			Minimize:    &review.Minimize{Shape: review.NodeShape{Template: big}, Max: 5},
		}
		var r *review.Answer
		Eventually(func(g Gomega) {
			var err error
			r, err = h.reviews.Review(context.Background(), review.Request{SchedulerName: name, PendingPods: true, Scenario: sc})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(r.Scenario.Pods).To(ContainElement(HaveField("Name", "big")))
		}, 10*time.Second, 50*time.Millisecond).Should(Succeed())
		s := r.Scenario
		Expect(s.RemovedNodes).To(Equal(1))
		Expect(s.Minimize.Count).To(Equal(1), "one 16-CPU node takes the 8-CPU pod: %+v", s.Minimize.Tried)
		Expect(s.AddedNodes).To(Equal(2))
		Expect(s.Unplaced()).To(BeZero(), "%+v", s.Pods)
		sources := map[review.PodSource]int{}
		for _, p := range s.Pods {
			sources[p.Source]++
			if p.Name == "big" {
				Expect(p.Node).To(Equal("big-1"))
			}
		}
		Expect(sources).To(HaveKeyWithValue(review.SourcePending, 1))
		Expect(sources).To(HaveKeyWithValue(review.SourceAdded, 2))
		Expect(sources[review.SourceEvicted]).To(Equal(countOn(bound, "n0")))
		Expect(s.Pools).To(ContainElement(And(HaveField("Value", "big"), HaveField("After.Nodes", 1), HaveField("Before.Nodes", 0))))

		By("leaving the cache, the queue, the nodes and the pods as they were")
		Expect(cacheState(h.sched)).To(Equal(before))
		active, backoff, unschedulable = h.sched.Queue().Pending()
		Expect(len(active) + len(backoff) + len(unschedulable)).To(Equal(queued))
		nodeList, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(nodeList.Items).To(HaveLen(3))
		for pod, node := range bound {
			Expect(getPod(h.ns, pod).Spec.NodeName).To(Equal(node))
		}
		Expect(getPod(h.ns, "big").Spec.NodeName).To(BeEmpty())

		By("with a draft: every framework a run builds is closed")
		builds0, open0, _ := scheduler.ReviewMetrics()
		r = h.review(review.Request{Draft: &most, Scenario: &review.Scenario{
			RemoveNodes: []string{"n0"},
			Minimize:    &review.Minimize{Shape: review.NodeShape{FromNode: "n1"}, Max: 4},
		}})
		Expect(r.Scenario.Minimize.Count).To(Equal(0), "the pods of n0 fit on the others")
		builds, open, _ := scheduler.ReviewMetrics()
		Expect(builds-builds0).To(BeEquivalentTo(1+len(r.Scenario.Minimize.Tried)), "the draft's, then one per run")
		Expect(open).To(Equal(open0))

		By("placing a pod group all or nothing: a group that does not fit gives its room back")
		r = h.review(review.Request{SchedulerName: name, Scenario: &review.Scenario{Pods: []review.ScenarioPods{
			{Template: newPod(h.ns, "gang", name, "2", "1Gi"), Replicas: 4, MinCount: 4},
			{Template: newPod(h.ns, "single", name, "2", "1Gi"), Replicas: 3},
		}}})
		Expect(r.Scenario.Groups).To(ConsistOf(And(HaveField("Name", "gang"), HaveField("Members", 4), HaveField("Placed", 0),
			HaveField("Message", ContainSubstring("fewer than its minCount 4")))))
		for _, p := range r.Scenario.Pods {
			if p.Source != review.SourceAdded {
				continue
			}
			if strings.HasPrefix(p.Name, "gang-") {
				Expect(p.Node).To(BeEmpty(), p.Name)
			} else {
				Expect(p.Node).NotTo(BeEmpty(), "%s: the group's room was given back: %s", p.Name, p.Message)
			}
		}
		Expect(cacheState(h.sched)).To(Equal(before))

		By("answering while the profile swaps, and the live profile still binding")
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		answers := 0
		go func() {
			defer GinkgoRecover()
			for ctx.Err() == nil {
				_, err := h.reviews.Review(ctx, review.Request{SchedulerName: name, Scenario: &review.Scenario{RemoveNodes: []string{"n2"}}})
				if err != nil && !errors.Is(err, review.ErrNotServing) && ctx.Err() == nil {
					done <- err
					return
				}
				answers++
			}
			done <- nil
		}()
		for i := range 6 {
			if i%2 == 0 {
				h.apply(most)
			} else {
				h.apply(least)
			}
			createPod(newPod(h.ns, fmt.Sprintf("late-%d", i), name, "100m", "100Mi"))
		}
		for i := range 6 {
			waitBound(h.ns, fmt.Sprintf("late-%d", i), 20*time.Second)
		}
		stop()
		Eventually(done, 20*time.Second).Should(Receive(BeNil()))
		Expect(answers).To(BeNumerically(">", 0))
	})
})

func countOn(bound map[string]string, node string) int {
	n := 0
	for _, b := range bound {
		if b == node {
			n++
		}
	}
	return n
}

var _ = Describe("SchedulingReview scenarios with pod groups", func() {
	BeforeEach(enableGenericWorkload)

	It("places the cluster's pending and evicted pod groups as the pod-group cycle does: all or nothing, a short group waiting", func() {
		h := startScheduler()
		name := uniqueName("scenario-gang")
		h.apply(defaultProfile(name))

		By("a gang of 2 bound on the only node, then a node of 3 CPUs for a gang of 4 and a gang short of its minCount")
		createNode("sg-2", "2", "8Gi")
		createPodGroup(h.ns, "pair", 2)
		pair := createGang(h.ns, "pair", "pair", name, 2, "1")
		for _, p := range pair {
			Expect(waitBound(h.ns, p, 20*time.Second)).To(Equal("sg-2"))
		}
		createNode("sg-1", "3", "16Gi")
		createPodGroup(h.ns, "train", 4)
		train := createGang(h.ns, "train", "train", name, 4, "1")
		createPodGroup(h.ns, "few", 3)
		few := createGang(h.ns, "few", "few", name, 2, "1")
		Expect(waitGroupCondition(h.ns, "train", metav1.ConditionFalse).Reason).To(Equal("Unschedulable"), "3 of the 4 members fit")
		Eventually(func() int { return h.countedMembers("train") + h.countedMembers("few") }, 10*time.Second, 20*time.Millisecond).Should(Equal(6))
		// No live cycle assumes a member while the reviews take their
		// snapshots: the profile is reviewed as a draft.
		Expect(h.sched.Remove(context.Background(), name)).To(BeTrue())
		draft := defaultProfile(name)
		before := cacheState(h.sched)

		byName := func(s *review.ScenarioAnswer) map[string]review.ScenarioPod {
			out := map[string]review.ScenarioPod{}
			for _, p := range s.Pods {
				out[p.Name] = p
			}
			return out
		}
		By("draining the gang's node: the evicted pair is placed whole where the pending gang of 4 leaves room, the short gang waits")
		var r *review.Answer
		Eventually(func() int {
			r = h.review(review.Request{Draft: &draft, PendingPods: true, PendingSchedulerName: name, Scenario: &review.Scenario{RemoveNodes: []string{"sg-2"}}})
			return len(r.Scenario.Pods)
		}, 10*time.Second, 50*time.Millisecond).Should(Equal(8))
		pods := byName(r.Scenario)
		for _, p := range train {
			Expect(pods[p].Node).To(BeEmpty(), "all or nothing: 3 CPUs for 4 members (%s)", p)
			Expect(pods[p].Group).To(Equal("train"))
			Expect(pods[p].Source).To(Equal(review.SourcePending))
		}
		for _, p := range few {
			Expect(pods[p].Node).To(BeEmpty(), "the queue holds a group short of its minCount back (%s)", p)
			Expect(pods[p].Message).To(ContainSubstring("waiting for minCount pods"))
		}
		for _, p := range pair {
			Expect(pods[p].Node).To(Equal("sg-1"), "%s: %s", p, pods[p].Message)
			Expect(pods[p].Source).To(Equal(review.SourceEvicted))
			Expect(pods[p].FromNode).To(Equal("sg-2"))
			Expect(pods[p].Group).To(Equal("pair"))
		}
		Expect(r.Scenario.Unplaced()).To(Equal(6))

		By("minimizing: no count of nodes places the short gang; the gang of 4 needs one more node")
		r = h.review(review.Request{Draft: &draft, PendingPods: true, PendingSchedulerName: name, Scenario: &review.Scenario{
			Minimize: &review.Minimize{Shape: review.NodeShape{FromNode: "sg-2"}, Max: 2},
		}})
		Expect(r.Scenario.Minimize.Count).To(Equal(-1), "%+v", r.Scenario.Minimize.Tried)
		Expect(r.Scenario.Minimize.Tried).To(Equal([]review.MinimizeTrial{{Count: 0, Unplaced: 6}, {Count: 2, Unplaced: 2}}))
		pods = byName(r.Scenario)
		for _, p := range train {
			Expect(pods[p].Node).NotTo(BeEmpty(), "with 2 nodes more the gang fits (%s)", p)
		}
		for _, p := range few {
			Expect(pods[p].Node).To(BeEmpty(), p)
		}

		By("with max 0: no member the queue holds back is placed")
		r = h.review(review.Request{Draft: &draft, PendingPods: true, PendingSchedulerName: name, Scenario: &review.Scenario{
			Minimize: &review.Minimize{Shape: review.NodeShape{FromNode: "sg-2"}, Max: 0},
		}})
		Expect(r.Scenario.Minimize.Tried).To(Equal([]review.MinimizeTrial{{Count: 0, Unplaced: 6}}))
		Expect(r.Scenario.Unplaced()).To(Equal(6))
		Expect(cacheState(h.sched)).To(Equal(before), "the reviews leave the live cache as it was")
	})
})
