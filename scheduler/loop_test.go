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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// slowProfile is a profile whose extender's filter answers after delay.
func slowProfile(name string, delay time.Duration) scheduler.Profile {
	GinkgoHelper()
	ext := newFakeExtender()
	ext.delay = delay
	cfg := ext.config()
	cfg.FilterVerb = "filter"
	return withExtenders(defaultProfile(name), cfg)
}

// inCycle reports whether name's loop runs a cycle now.
func inCycle(h *harness, name string) func() string {
	return func() string {
		st, _ := h.sched.LoopState(name)
		return st.Current
	}
}

// boundPods counts the pods of ns, among names, bound to a node.
func boundPods(ns string, names []string) func() int {
	return func() int {
		nodes := podNodes(ns)
		n := 0
		for _, name := range names {
			if nodes[name] != "" {
				n++
			}
		}
		return n
	}
}

var _ = Describe("Scheduling loops", func() {
	It("lets a profile's slow extender hold up only its own pods", func() {
		h := startScheduler()
		slow, fast := uniqueName("slow"), uniqueName("fast")
		h.apply(slowProfile(slow, 2*time.Second))
		h.apply(defaultProfile(fast))
		createNode("n1", "32", "64Gi")
		for i := range 2 {
			createPod(newPod(h.ns, slow+"-"+string(rune('a'+i)), slow, "100m", "100Mi"))
		}
		Eventually(inCycle(h, slow), 5*time.Second, 10*time.Millisecond).Should(HavePrefix("pod " + h.ns + "/" + slow))

		var fastPods []string
		for i := range 10 {
			fastPods = append(fastPods, fast+"-"+string(rune('a'+i)))
			createPod(newPod(h.ns, fastPods[i], fast, "100m", "100Mi"))
		}
		// Each slow pod takes 2 s; the fast profile's loop does not wait
		// for them.
		Eventually(boundPods(h.ns, fastPods), 1500*time.Millisecond, 20*time.Millisecond).Should(Equal(10))
		Expect(boundPods(h.ns, []string{slow + "-a", slow + "-b"})()).To(BeNumerically("<=", 1))

		st, ok := h.sched.LoopState(slow)
		Expect(ok).To(BeTrue())
		Expect(st.Own).To(BeTrue())
		Expect(st.Current).To(HavePrefix("pod "))
		Expect(st.BusyPercent).To(BeNumerically(">", 50), "the slow loop spends its time in cycles")
		st, _ = h.sched.LoopState(fast)
		Expect(st.Current).To(BeEmpty())
		Expect(st.Cycles).To(BeNumerically(">=", 10))
		Eventually(boundPods(h.ns, []string{slow + "-a", slow + "-b"}), 10*time.Second, 50*time.Millisecond).Should(Equal(2))
	})

	It("with profile loops off, serves every profile from one loop in upstream's order", func() {
		h := startScheduler(scheduler.WithProfileLoops(false))
		slow, fast := uniqueName("slow"), uniqueName("fast")
		h.apply(slowProfile(slow, time.Second))
		h.apply(defaultProfile(fast))
		createNode("n1", "32", "64Gi")
		createPod(newPod(h.ns, slow+"-a", slow, "100m", "100Mi"))
		Eventually(inCycle(h, slow), 5*time.Second, 10*time.Millisecond).Should(HavePrefix("pod "))
		createPod(newPod(h.ns, fast+"-a", fast, "100m", "100Mi"))
		// The one loop is in the slow profile's cycle.
		Consistently(nodeOf(h.ns, fast+"-a"), 600*time.Millisecond, 20*time.Millisecond).Should(BeEmpty())
		st, ok := h.sched.LoopState(fast)
		Expect(ok).To(BeTrue())
		Expect(st.Own).To(BeFalse())
		Expect(st.Current).To(HavePrefix("pod " + h.ns + "/" + slow))
		waitBound(h.ns, fast+"-a", 5*time.Second)
	})

	It("leaves the room a preemption freed to its preemptor when another loop assumes there", func() {
		h := startScheduler()
		slow, pre, fast := uniqueName("slow"), uniqueName("pre"), uniqueName("fast")
		h.apply(slowProfile(slow, 2*time.Second))
		h.apply(slowProfile(pre, 4*time.Second))
		h.apply(defaultProfile(fast))
		createNode("n1", "1", "4Gi")
		// The slow pod's cycle takes its snapshot with n1 empty, then
		// waits 2 s on its extender.
		createPod(newPod(h.ns, "slow-pod", slow, "600m", "100Mi"))
		Eventually(inCycle(h, slow), 5*time.Second, 10*time.Millisecond).Should(Equal("pod " + h.ns + "/slow-pod"))
		// Meanwhile a victim takes n1, a preemptor of another profile
		// evicts it (no node fits, so its extender is not asked) and is
		// nominated to n1; its next cycle waits 4 s on its extender.
		createPod(newPod(h.ns, "victim", fast, "600m", "100Mi", withPriorityClass("low")))
		Expect(waitBound(h.ns, "victim", 2*time.Second)).To(Equal("n1"))
		createPod(newPod(h.ns, "preemptor", pre, "600m", "100Mi", withPriorityClass("high")))
		Eventually(func() string { return getPod(h.ns, "preemptor").Status.NominatedNodeName }, 2*time.Second, 20*time.Millisecond).Should(Equal("n1"))
		// Without a kubelet the victim stays terminating; finish it.
		zero := int64(0)
		Expect(cs.CoreV1().Pods(h.ns).Delete(context.Background(), "victim", metav1.DeleteOptions{GracePeriodSeconds: &zero})).To(Succeed())

		// The slow pod's assume comes first, and finds n1's room nominated
		// to the preemptor: it loses the race and is scheduled again.
		Expect(waitBound(h.ns, "preemptor", 15*time.Second)).To(Equal("n1"))
		Expect(nodeOf(h.ns, "slow-pod")()).To(BeEmpty())
		st, _ := h.sched.LoopState(slow)
		Expect(st.AssumeConflicts).To(Equal(int64(1)))
	})

	It("settles two loops that pick the same room at assume: the loser is scheduled again at once, unpunished", func() {
		h := startScheduler()
		slow, fast := uniqueName("slow"), uniqueName("fast")
		h.apply(slowProfile(slow, time.Second))
		h.apply(defaultProfile(fast))
		createNode("n1", "1", "4Gi")
		// The slow pod's cycle takes its snapshot with n1 empty, then
		// waits a second on its extender; meanwhile the fast profile's
		// pod takes n1's room.
		createPod(newPod(h.ns, "slow-pod", slow, "600m", "100Mi"))
		Eventually(inCycle(h, slow), 5*time.Second, 10*time.Millisecond).Should(Equal("pod " + h.ns + "/slow-pod"))
		createPod(newPod(h.ns, "fast-pod", fast, "600m", "100Mi"))
		Expect(waitBound(h.ns, "fast-pod", 900*time.Millisecond)).To(Equal("n1"))

		// The slow pod lost n1 at assume and was scheduled again at once:
		// its second cycle finds n1 full. One attempt counts as
		// unschedulable, not two.
		cond := waitUnschedulable(h.ns, "slow-pod", 10*time.Second)
		Expect(cond.Message).To(ContainSubstring("Insufficient cpu"))
		Consistently(nodeOf(h.ns, "slow-pod"), 300*time.Millisecond, 20*time.Millisecond).Should(BeEmpty())
		st, _ := h.sched.LoopState(slow)
		Expect(st.AssumeConflicts).To(Equal(int64(1)))
		Expect(scheduler.ScheduleAttempts(slow, "unschedulable")).To(Equal(1.0))
		st, _ = h.sched.LoopState(fast)
		Expect(st.AssumeConflicts).To(BeZero())
	})

	It("overcommits no node when four profiles' loops fill shared nodes at once", func() {
		h := startScheduler()
		var names []string
		for i := range 4 {
			names = append(names, uniqueName(fmt.Sprintf("storm%d", i)))
			h.apply(defaultProfile(names[i]))
		}
		// Room for 4 pods of 500m per node, 20 in all, for 48 pods.
		for i := range 5 {
			createNode(fmt.Sprintf("n%d", i), "2", "64Gi")
		}
		var all []string
		for p := range 12 {
			for i, name := range names {
				pod := fmt.Sprintf("p%d-%02d", i, p)
				all = append(all, pod)
				go func() {
					defer GinkgoRecover()
					createPod(newPod(h.ns, pod, name, "500m", "100Mi"))
				}()
			}
		}
		Eventually(boundPods(h.ns, all), 20*time.Second, 50*time.Millisecond).Should(Equal(20))
		Consistently(func() map[string]int { return countByNode(podNodes(h.ns)) }, time.Second, 50*time.Millisecond).Should(
			And(HaveLen(5), HaveEach(4)), "4 pods of 500m on each node of 2 CPUs, none more")
		for _, pod := range all {
			if getPod(h.ns, pod).Spec.NodeName == "" {
				waitUnschedulable(h.ns, pod, 10*time.Second)
			}
		}
	})

	It("stops a removed profile's loop after its cycle and gives a profile added again a new one", func() {
		h := startScheduler()
		name := uniqueName("gone")
		before := scheduler.SchedulingLoops()
		h.apply(defaultProfile(name))
		createNode("n1", "4", "8Gi")
		Eventually(scheduler.SchedulingLoops, 5*time.Second, 10*time.Millisecond).Should(Equal(before + 1))
		createPod(newPod(h.ns, "first", name, "100m", "100Mi"))
		waitBound(h.ns, "first", 10*time.Second)

		Expect(h.sched.Remove(context.Background(), name)).To(BeTrue())
		Eventually(scheduler.SchedulingLoops, 5*time.Second, 10*time.Millisecond).Should(Equal(before))
		_, ok := h.sched.LoopState(name)
		Expect(ok).To(BeFalse())

		h.apply(defaultProfile(name))
		createPod(newPod(h.ns, "second", name, "100m", "100Mi"))
		waitBound(h.ns, "second", 10*time.Second)
		st, ok := h.sched.LoopState(name)
		Expect(ok).To(BeTrue())
		Expect(strings.TrimSpace(st.Current)).To(BeEmpty())
		Expect(scheduler.SchedulingLoops()).To(Equal(before + 1))
	})
})
