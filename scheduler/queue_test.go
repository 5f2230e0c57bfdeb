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
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

func queued(h *harness, ns, name string) bool {
	active, backoff, unsched := h.sched.Queue().Pending()
	for _, list := range [][]*v1.Pod{active, backoff, unsched} {
		for _, p := range list {
			if p.Namespace == ns && p.Name == name {
				return true
			}
		}
	}
	return false
}

// bindWithScheduledEvent serves a default profile on h, and checks that a
// pod naming it is bound to the only node and gets a Scheduled event.
func bindWithScheduledEvent(h *harness) {
	GinkgoHelper()
	name := uniqueName("queue")
	h.apply(defaultProfile(name))
	createNode("n1", "4", "8Gi")
	createPod(newPod(h.ns, "p", name, "1", "1Gi"))
	Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n1"))
	Eventually(func() []string { return eventsFor(h.ns, "p") }, 10*time.Second, 50*time.Millisecond).Should(ContainElement("Scheduled"))
}

var _ = Describe("Queue", func() {
	It("binds a pod for a served profile and records a Scheduled event", func() {
		bindWithScheduledEvent(startScheduler())
	})

	It("publishes events with the event client when one is given", func() {
		var posts atomic.Int64
		ecfg := rest.CopyConfig(restCfg)
		ecfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/events") {
					posts.Add(1)
				}
				return rt.RoundTrip(r)
			})
		}
		ecs, err := kubernetes.NewForConfig(ecfg)
		Expect(err).NotTo(HaveOccurred())
		bindWithScheduledEvent(startScheduler(scheduler.WithEventClient(ecs)))
		Expect(posts.Load()).To(BeNumerically(">", 0))
	})

	It("marks an unfit pod Unschedulable with upstream's message, then binds it within 2s of a fitting node being added", func() {
		h := startScheduler()
		name := uniqueName("queue")
		h.apply(defaultProfile(name))
		createNode("small-1", "1", "4Gi")
		createNode("small-2", "1", "4Gi")
		createNode("tainted", "16", "32Gi", withTaint("dedicated", "gpu", v1.TaintEffectNoSchedule))
		createPod(newPod(h.ns, "big", name, "2", "1Gi"))
		cond := waitUnschedulable(h.ns, "big", 10*time.Second)
		Expect(cond.Message).To(Equal("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. " +
			"preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."))
		Eventually(func() []string { return eventsFor(h.ns, "big") }, 10*time.Second, 50*time.Millisecond).Should(ContainElement("FailedScheduling"))

		start := time.Now()
		createNode("fits", "4", "8Gi")
		Eventually(nodeOf(h.ns, "big"), 2*time.Second, 10*time.Millisecond).Should(Equal("fits"))
		GinkgoWriter.Printf("bound %v after the node was added\n", time.Since(start))
	})

	// How long each back-off lasts is proven with a fake clock in
	// scheduler/queue (TestFailedPodBacksOffLongerEachTime); here the
	// real scheduler retries, never before the initial back-off, and binds.
	It("retries a pod whose Reserve fails with an error, after a back-off, until it binds", func() {
		h := startScheduler(scheduler.WithOutOfTreeRegistry(testRegistry), scheduler.WithPodBackoff(100*time.Millisecond, 2*time.Second))
		recorded.reset()
		name := uniqueName("queue")
		h.apply(defaultProfile(name, withHooks))
		createNode("n1", "4", "8Gi")
		// The pod is refused at Reserve with an error five times.
		createPod(newPod(h.ns, "flaky", name, "1", "1Gi", withPodLabels(labelReserve, "error-5")))
		Expect(waitBound(h.ns, "flaky", 20*time.Second)).To(Equal("n1"))
		times := recorded.timesOf("flaky", "Reserve")
		Expect(times).To(HaveLen(6))
		for i := 1; i < len(times); i++ {
			Expect(times[i].Sub(times[i-1])).To(BeNumerically(">=", 100*time.Millisecond), "attempt %d came before the back-off ended", i+1)
		}
	})

	It("keeps a gated pod waiting until its gates are removed", func() {
		h := startScheduler()
		name := uniqueName("queue")
		h.apply(defaultProfile(name))
		createNode("n1", "4", "8Gi")
		createPod(newPod(h.ns, "gated", name, "1", "1Gi", withGates("example.com/wait")))
		Eventually(func() bool { return queued(h, h.ns, "gated") }, 5*time.Second, 10*time.Millisecond).Should(BeTrue())
		Consistently(nodeOf(h.ns, "gated"), time.Second, 50*time.Millisecond).Should(BeEmpty())
		Expect(eventsFor(h.ns, "gated")).NotTo(ContainElement("FailedScheduling"))

		p := getPod(h.ns, "gated")
		p.Spec.SchedulingGates = nil
		_, err := cs.CoreV1().Pods(h.ns).Update(context.Background(), p, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(waitBound(h.ns, "gated", 5*time.Second)).To(Equal("n1"))
	})

	It("drops a pending pod from the queue when it is deleted", func() {
		h := startScheduler()
		name := uniqueName("queue")
		h.apply(defaultProfile(name))
		createNode("n1", "1", "1Gi")
		createPod(newPod(h.ns, "huge", name, "8", "1Gi"))
		waitUnschedulable(h.ns, "huge", 10*time.Second)
		Expect(queued(h, h.ns, "huge")).To(BeTrue())
		Expect(cs.CoreV1().Pods(h.ns).Delete(context.Background(), "huge", metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() bool { return queued(h, h.ns, "huge") }, 5*time.Second, 10*time.Millisecond).Should(BeFalse())
	})

	It("leaves pods of an unserved schedulerName untouched, and binds them within 1s once a profile serves it", func() {
		h := startScheduler()
		name := uniqueName("queue")
		createNode("n1", "4", "8Gi")
		for i := 0; i < 3; i++ {
			createPod(newPod(h.ns, fmt.Sprintf("waiting-%d", i), name, "100m", "100Mi"))
		}
		Consistently(func() bool {
			for i := 0; i < 3; i++ {
				p := getPod(h.ns, fmt.Sprintf("waiting-%d", i))
				if p.Spec.NodeName != "" || len(p.Status.Conditions) > 0 || p.Status.NominatedNodeName != "" {
					return false
				}
			}
			return true
		}, 1500*time.Millisecond, 100*time.Millisecond).Should(BeTrue())
		Expect(queued(h, h.ns, "waiting-0")).To(BeFalse())
		Expect(eventsFor(h.ns, "waiting-0")).To(BeEmpty())

		start := time.Now()
		h.apply(defaultProfile(name))
		for i := 0; i < 3; i++ {
			Eventually(nodeOf(h.ns, fmt.Sprintf("waiting-%d", i)), time.Second-time.Since(start), 10*time.Millisecond).Should(Equal("n1"))
		}
		GinkgoWriter.Printf("all bound %v after Apply\n", time.Since(start))
	})

	It("serves profiles applied before Start as soon as it runs", func() {
		name := uniqueName("queue")
		h := startSchedulerAfter(func(s *scheduler.Scheduler, _ string) {
			_, err := s.Apply(context.Background(), defaultProfile(name))
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Serving(name)).To(BeTrue())
		})
		createNode("n1", "4", "8Gi")
		createPod(newPod(h.ns, "p", name, "1", "1Gi"))
		Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n1"))
	})

	It("schedules higher priority pods first", func() {
		name := uniqueName("queue")
		// Both pods exist before the scheduler starts, so both are queued
		// before the first cycle: the heap decides.
		h := startSchedulerAfter(func(s *scheduler.Scheduler, ns string) {
			createNode("n1", "1", "8Gi")
			createPod(newPod(ns, "low", name, "1", "1Gi", withPriorityClass("low")))
			createPod(newPod(ns, "high", name, "1", "1Gi", withPriorityClass("high")))
			_, err := s.Apply(context.Background(), defaultProfile(name))
			Expect(err).NotTo(HaveOccurred())
		})
		Expect(waitBound(h.ns, "high", 10*time.Second)).To(Equal("n1"))
		cond := waitUnschedulable(h.ns, "low", 10*time.Second)
		Expect(cond.Message).To(ContainSubstring("Insufficient cpu"))
		Expect(nodeOf(h.ns, "low")()).To(BeEmpty())
	})

	It("stops touching the pods of a removed profile and serves them again when re-applied", func() {
		h := startScheduler()
		name := uniqueName("queue")
		h.apply(defaultProfile(name))
		createPod(newPod(h.ns, "orphan", name, "1", "1Gi"))
		Eventually(func() bool { return queued(h, h.ns, "orphan") }, 5*time.Second, 10*time.Millisecond).Should(BeTrue())
		Expect(h.sched.Remove(context.Background(), name)).To(BeTrue())
		Expect(h.sched.Serving(name)).To(BeFalse())
		Expect(queued(h, h.ns, "orphan")).To(BeFalse())
		createNode("n1", "4", "8Gi")
		Consistently(nodeOf(h.ns, "orphan"), time.Second, 50*time.Millisecond).Should(BeEmpty())
		h.apply(defaultProfile(name))
		Expect(waitBound(h.ns, "orphan", 5*time.Second)).To(Equal("n1"))
	})
})
