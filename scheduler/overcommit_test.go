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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// nodeEvents lists the events about node with reason.
func nodeEvents(node, reason string) []eventsv1.Event {
	GinkgoHelper()
	list, err := cs.EventsV1().Events(metav1.NamespaceAll).List(context.Background(), metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Kind == "Node" && e.Regarding.Name == node && e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

var _ = Describe("Overcommitted nodes", func() {
	It("reports a node overcommitted by direct binds once per episode, naming the pods and their schedulers", func() {
		h := startScheduler()
		name := uniqueName("overcommit")
		h.apply(defaultProfile(name))
		node := uniqueName("oc-node")
		createNode(node, "2", "4Gi")
		before := scheduler.NodeOvercommits(otherScheduler)

		bindAsOther(h.ns, "a", node, "1")
		bindAsOther(h.ns, "b", node, "1")
		Consistently(scheduler.OvercommittedNodes, time.Second, 50*time.Millisecond).Should(BeZero(), "a node filled exactly is not overcommitted")

		bindAsOther(h.ns, "c", node, "500m")
		Eventually(func() int { return len(nodeEvents(node, scheduler.EventReasonOvercommitted)) }, 10*time.Second, 50*time.Millisecond).Should(Equal(1))
		e := nodeEvents(node, scheduler.EventReasonOvercommitted)[0]
		Expect(e.Type).To(Equal("Warning"))
		Expect(e.Note).To(ContainSubstring("cpu 2500m > 2"))
		Expect(e.Note).To(ContainSubstring(h.ns + "/c (" + otherScheduler + ")"))
		Expect(scheduler.NodeOvercommits(otherScheduler) - before).To(BeEquivalentTo(1))
		Expect(scheduler.OvercommittedNodes()).To(BeEquivalentTo(1))

		// A review of a pod on the node says where it is bound and that
		// the node is overcommitted, by whom.
		r := h.review(review.Request{PodNamespace: h.ns, PodName: "a", SchedulerName: name})
		Expect(r.Pod.BoundNode).To(Equal(node))
		Expect(r.Pod.Overcommitted).NotTo(BeNil())
		Expect(r.Pod.Overcommitted.Describe("")).To(HavePrefix("cpu 2500m > 2; bound pods: "))
		Expect(r.Pod.Overcommitted.Describe("")).To(ContainSubstring(h.ns + "/c (" + otherScheduler + ")"))

		// More pods on the same node: the same episode, no new report.
		bindAsOther(h.ns, "d", node, "100m")
		Consistently(func() int { return len(nodeEvents(node, scheduler.EventReasonOvercommitted)) }, 2*time.Second, 100*time.Millisecond).Should(Equal(1))
		Expect(scheduler.NodeOvercommits(otherScheduler) - before).To(BeEquivalentTo(1))

		// Back within allocatable, then over again: a second episode.
		deleteNow(h.ns, "c")
		deleteNow(h.ns, "d")
		Eventually(scheduler.OvercommittedNodes, 10*time.Second, 50*time.Millisecond).Should(BeZero())
		r = h.review(review.Request{PodNamespace: h.ns, PodName: "a", SchedulerName: name})
		Expect(r.Pod.BoundNode).To(Equal(node))
		Expect(r.Pod.Overcommitted).To(BeNil(), "a node within its allocatable")
		bindAsOther(h.ns, "e", node, "1")
		Eventually(func() float64 { return scheduler.NodeOvercommits(otherScheduler) - before }, 10*time.Second, 50*time.Millisecond).Should(BeEquivalentTo(2))
		Expect(scheduler.OvercommittedNodes()).To(BeEquivalentTo(1))
	})
})
