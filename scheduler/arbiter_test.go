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
	"sync"
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

// bindDirectly binds pod to node as another scheduler would.
func bindDirectly(ns, pod, node string) {
	GinkgoHelper()
	Expect(cs.CoreV1().Pods(ns).Bind(context.Background(), &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pod},
		Target:     v1.ObjectReference{Kind: "Node", Name: node},
	}, metav1.CreateOptions{})).To(Succeed())
}

var _ = Describe("The bind arbiter", func() {
	const other = "another-scheduler"
	var h *harness
	var arb *scheduler.Arbiter
	var leading atomic.Bool
	BeforeEach(func() {
		h = startScheduler()
		leading.Store(true)
		var err error
		arb, err = h.sched.NewArbiter(leading.Load, scheduler.WithArbiterLookups(cs, 5, 10))
		Expect(err).NotTo(HaveOccurred())
	})
	decide := func(pod, node string) scheduler.ArbiterDecision {
		GinkgoHelper()
		return arb.Decide(context.Background(), h.ns, pod, "", node, false)
	}
	waitSeen := func(pods ...string) {
		GinkgoHelper()
		Eventually(func() []string {
			var missing []string
			for _, p := range pods {
				if _, err := h.sched.Cache().GetNode("arb-1"); err != nil {
					return []string{"node"}
				}
				found := false
				ni, _ := h.sched.Cache().GetNode("arb-1")
				for _, pi := range ni.GetPods() {
					if pi.GetPod().Name == p {
						found = true
					}
				}
				if !found {
					missing = append(missing, p)
				}
			}
			return missing
		}, 10*time.Second, 10*time.Millisecond).Should(BeEmpty())
	}

	It("admits a bind only while its node has room, counting the binds it admitted that the cache has not seen", func() {
		createNode("arb-1", "2", "8Gi")
		createPod(newPod(h.ns, "a", other, "1500m", "1Gi"))
		createPod(newPod(h.ns, "b", other, "1", "1Gi"))
		createPod(newPod(h.ns, "c", other, "500m", "1Gi"))
		Eventually(func() bool { _, err := h.sched.Cache().GetNode("arb-1"); return err == nil }, 10*time.Second, 10*time.Millisecond).Should(BeTrue())
		Eventually(func() string { return decide("c", "no-such-node").Outcome }, 10*time.Second, 20*time.Millisecond).Should(Equal(scheduler.ArbiterUnknownNode), "the informer has the pods")

		d := decide("a", "arb-1")
		Expect(d.Allowed).To(BeTrue(), d.Message)
		Expect(d.Outcome).To(Equal(scheduler.ArbiterAdmitted))
		Expect(scheduler.ArbiterHolds()).To(BeEquivalentTo(1))

		By("refusing a pod the held bind leaves no room for, naming node, pod, resource and the binds in flight")
		d = decide("b", "arb-1")
		Expect(d.Allowed).To(BeFalse())
		Expect(d.Outcome).To(Equal(scheduler.ArbiterRefused))
		Expect(d.Resource).To(Equal("cpu"))
		Expect(d.Message).To(Equal(fmt.Sprintf("node arb-1 has no room for %s/b: cpu 1 requested, 500m free (after 1 bind in flight)", h.ns)))
		Expect(decide("c", "arb-1").Allowed).To(BeTrue(), "500m still fits")

		By("releasing the holds once the cache sees the binds: the room stays taken")
		bindDirectly(h.ns, "a", "arb-1")
		bindDirectly(h.ns, "c", "arb-1")
		waitSeen("a", "c")
		Eventually(scheduler.ArbiterHolds, 5*time.Second, 10*time.Millisecond).Should(BeZero())
		d = decide("b", "arb-1")
		Expect(d.Allowed).To(BeFalse())
		Expect(d.Message).To(Equal(fmt.Sprintf("node arb-1 has no room for %s/b: cpu 1 requested, 0 free", h.ns)))

		By("admitting, unjudged, a bind to a node the cache does not have, a pod nobody has, and any bind while not leading")
		Expect(decide("b", "no-such-node")).To(HaveField("Outcome", scheduler.ArbiterUnknownNode))
		Expect(decide("no-such-pod", "arb-1")).To(And(HaveField("Allowed", true), HaveField("Outcome", scheduler.ArbiterUnknownPod)))
		leading.Store(false)
		Expect(decide("b", "arb-1")).To(And(HaveField("Allowed", true), HaveField("Outcome", scheduler.ArbiterNotLeader)))
	})

	It("judges a dry-run bind without holding its room", func() {
		createNode("arb-1", "1", "4Gi")
		createPod(newPod(h.ns, "x", other, "1", "1Gi"))
		createPod(newPod(h.ns, "y", other, "1", "1Gi"))
		Eventually(func() bool { _, err := h.sched.Cache().GetNode("arb-1"); return err == nil }, 10*time.Second, 10*time.Millisecond).Should(BeTrue())
		Eventually(func() string { return decide("y", "no-such-node").Outcome }, 10*time.Second, 20*time.Millisecond).Should(Equal(scheduler.ArbiterUnknownNode))

		d := arb.Decide(context.Background(), h.ns, "x", "", "arb-1", true)
		Expect(d).To(And(HaveField("Allowed", true), HaveField("Outcome", scheduler.ArbiterAdmitted)))
		Expect(scheduler.ArbiterHolds()).To(BeZero(), "nothing of a dry run lands")
		Expect(decide("y", "arb-1").Allowed).To(BeTrue(), "the dry run held no room")
		d = arb.Decide(context.Background(), h.ns, "x", "", "arb-1", true)
		Expect(d.Outcome).To(Equal(scheduler.ArbiterRefused), "a dry run is judged all the same")
	})

	It("looks pods it does not know up on its own client, at a bounded rate, and admits the others unjudged", func() {
		createNode("arb-1", "1", "4Gi")
		Eventually(func() bool { _, err := h.sched.Cache().GetNode("arb-1"); return err == nil }, 10*time.Second, 10*time.Millisecond).Should(BeTrue())
		var lookups atomic.Int64
		cfg := rest.CopyConfig(restCfg)
		cfg.QPS, cfg.Burst = 1000, 1000
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/pods/") {
					lookups.Add(1)
				}
				return rt.RoundTrip(req)
			})
		}
		own, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		limited, err := h.sched.NewArbiter(leading.Load, scheduler.WithArbiterLookups(own, 5, 10))
		Expect(err).NotTo(HaveOccurred())

		By("500 binds of pods that do not exist, posted as fast as they come")
		start := time.Now()
		outcomes := map[string]int{}
		for i := range 500 {
			d := limited.Decide(context.Background(), h.ns, fmt.Sprintf("ghost-%d", i), "", "arb-1", false)
			Expect(d.Allowed).To(BeTrue())
			outcomes[d.Outcome]++
		}
		elapsed := time.Since(start)
		Expect(lookups.Load()).To(BeNumerically("<=", 10+int64(5*elapsed.Seconds())+1), "at most the burst and 5 a second, in %s", elapsed)
		Expect(lookups.Load()).To(BeNumerically(">=", 1))
		Expect(outcomes[scheduler.ArbiterUnknownPod]).To(BeEquivalentTo(lookups.Load()))
		Expect(outcomes[scheduler.ArbiterLookupLimited]).To(Equal(500 - int(lookups.Load())))
	})

	It("admits exactly as many of many concurrent binds to one node as fit", func() {
		createNode("arb-1", "4", "16Gi")
		const n = 12
		for i := range n {
			createPod(newPod(h.ns, fmt.Sprintf("p-%d", i), other, "1", "1Gi"))
		}
		Eventually(func() int {
			pods, _ := cs.CoreV1().Pods(h.ns).List(context.Background(), metav1.ListOptions{})
			return len(pods.Items)
		}, 10*time.Second, 10*time.Millisecond).Should(Equal(n))
		// The informer has them all before the race starts.
		Eventually(func() error {
			for i := range n {
				if d := decide(fmt.Sprintf("p-%d", i), "no-such-node"); d.Outcome != scheduler.ArbiterUnknownNode {
					return fmt.Errorf("p-%d: %s", i, d.Outcome)
				}
			}
			return nil
		}, 10*time.Second, 20*time.Millisecond).Should(Succeed())
		var wg sync.WaitGroup
		var admitted atomic.Int32
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				if decide(fmt.Sprintf("p-%d", i), "arb-1").Allowed {
					admitted.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		Expect(admitted.Load()).To(BeEquivalentTo(4))
	})

	It("gives the room back when a bind never commits, and when the pod is deleted", func() {
		createNode("arb-1", "1", "4Gi")
		createPod(newPod(h.ns, "x", other, "1", "1Gi"))
		createPod(newPod(h.ns, "y", other, "1", "1Gi"))
		Eventually(func() bool { _, err := h.sched.Cache().GetNode("arb-1"); return err == nil }, 10*time.Second, 10*time.Millisecond).Should(BeTrue())
		Eventually(func() string { return decide("x", "no-such-node").Outcome }, 10*time.Second, 20*time.Millisecond).Should(Equal(scheduler.ArbiterUnknownNode))

		By("a hold ends at its deadline")
		arb.SetHold(300 * time.Millisecond)
		Expect(decide("x", "arb-1").Allowed).To(BeTrue())
		Expect(decide("y", "arb-1").Allowed).To(BeFalse(), "x holds the room")
		Eventually(func() bool { return decide("y", "arb-1").Allowed }, 5*time.Second, 50*time.Millisecond).Should(BeTrue(), "x's bind never came")

		By("a deleted pod's hold ends at once")
		arb.SetHold(time.Hour)
		Expect(cs.CoreV1().Pods(h.ns).Delete(context.Background(), "y", metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() bool { return decide("x", "arb-1").Allowed }, 5*time.Second, 20*time.Millisecond).Should(BeTrue())
	})
})
