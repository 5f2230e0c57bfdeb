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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

var _ = Describe("Cache", func() {
	It("assumes pods held at Permit: ten 1-CPU pods on one 4-CPU node, exactly 4 bound", func() {
		h := startScheduler(scheduler.WithOutOfTreeRegistry(testRegistry))
		recorded.reset()
		name := uniqueName("cache")
		h.apply(defaultProfile(name, withHooks))
		createNode("n1", "4", "64Gi")
		// The node in the cache first: a pod tried before it is marked
		// unschedulable, and keeps that condition while it waits at
		// Permit once the node comes.
		Eventually(func() int { return len(h.sched.Cache().Dump().Nodes) }, 10*time.Second, 10*time.Millisecond).Should(Equal(1))
		for i := 0; i < 10; i++ {
			createPod(newPod(h.ns, fmt.Sprintf("p-%d", i), name, "1", "1Gi", withPodLabels(labelPermit, "wait")))
		}
		Eventually(recorded.waitingCount, 10*time.Second, 10*time.Millisecond).Should(Equal(4))
		Eventually(func() int {
			n := 0
			for i := 0; i < 10; i++ {
				if c := scheduledCondition(h.ns, fmt.Sprintf("p-%d", i))(); c != nil && c.Reason == v1.PodReasonUnschedulable {
					n++
				}
			}
			return n
		}, 10*time.Second, 50*time.Millisecond).Should(Equal(6))
		Expect(countByNode(podNodes(h.ns))).To(BeEmpty(), "nothing is bound while Permit holds")
		Consistently(recorded.waitingCount, 500*time.Millisecond, 50*time.Millisecond).Should(Equal(4))

		Expect(recorded.allowWaiting()).To(Equal(4))
		Eventually(func() map[string]int { return countByNode(podNodes(h.ns)) }, 10*time.Second, 20*time.Millisecond).Should(Equal(map[string]int{"n1": 4}))
		Consistently(func() map[string]int { return countByNode(podNodes(h.ns)) }, time.Second, 100*time.Millisecond).Should(Equal(map[string]int{"n1": 4}))
	})

	It("forgets a pod whose bind failed and retries it", func() {
		h := startScheduler(scheduler.WithOutOfTreeRegistry(testRegistry), scheduler.WithPodBackoff(100*time.Millisecond, time.Second))
		recorded.reset()
		name := uniqueName("cache")
		h.apply(defaultProfile(name, withHooks))
		createNode("n1", "1", "4Gi")
		createPod(newPod(h.ns, "flaky", name, "1", "1Gi", withPodLabels(labelBind, "fail-once")))
		Expect(waitBound(h.ns, "flaky", 10*time.Second)).To(Equal("n1"))
		// The first attempt reserved the whole node; had it not been
		// forgotten, the retry would not fit.
		Expect(recorded.of("flaky")).To(Equal([]string{
			"Reserve", "Permit", "PreBind", "Bind", "Unreserve",
			"Reserve", "Permit", "PreBind", "Bind", "PostBind",
		}))
	})

	It("counts pods bound by another scheduler", func() {
		h := startScheduler()
		name := uniqueName("cache")
		h.apply(defaultProfile(name))
		createNode("n1", "4", "8Gi")
		createPod(newPod(h.ns, "foreign", "someone-else", "3", "1Gi", withNodeName("n1")))
		createPod(newPod(h.ns, "ours", name, "2", "1Gi"))
		cond := waitUnschedulable(h.ns, "ours", 10*time.Second)
		Expect(cond.Message).To(ContainSubstring("1 Insufficient cpu"))
		Expect(getPod(h.ns, "foreign").Status.Conditions).To(BeEmpty(), "a pod of another scheduler is not touched")

		zero := int64(0)
		Expect(cs.CoreV1().Pods(h.ns).Delete(context.Background(), "foreign", metav1.DeleteOptions{GracePeriodSeconds: &zero})).To(Succeed())
		Expect(waitBound(h.ns, "ours", 5*time.Second)).To(Equal("n1"))
	})

	It("respects a node's new taint and its deletion at the next cycle", func() {
		h := startScheduler()
		name := uniqueName("cache")
		h.apply(defaultProfile(name))
		createNode("a", "4", "8Gi")
		createNode("b", "4", "8Gi")

		node, err := cs.CoreV1().Nodes().Get(context.Background(), "a", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		node.Spec.Taints = []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}}
		_, err = cs.CoreV1().Nodes().Update(context.Background(), node, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() bool {
			n, err := h.sched.Cache().GetNode("a")
			return err == nil && len(n.Node().Spec.Taints) == 1
		}, 5*time.Second, 10*time.Millisecond).Should(BeTrue())
		for i := 0; i < 3; i++ {
			createPod(newPod(h.ns, fmt.Sprintf("p-%d", i), name, "100m", "100Mi"))
			Expect(waitBound(h.ns, fmt.Sprintf("p-%d", i), 5*time.Second)).To(Equal("b"))
		}

		Expect(cs.CoreV1().Nodes().Delete(context.Background(), "b", metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() bool {
			n, err := h.sched.Cache().GetNode("b")
			return err != nil || n.Node() == nil
		}, 5*time.Second, 10*time.Millisecond).Should(BeTrue())
		createPod(newPod(h.ns, "after-delete", name, "100m", "100Mi"))
		cond := waitUnschedulable(h.ns, "after-delete", 5*time.Second)
		Expect(cond.Message).To(HavePrefix("0/1 nodes are available: 1 node(s) had untolerated taint(s)."))
	})
})
