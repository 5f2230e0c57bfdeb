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

package e2e

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
)

const leaseDuration = 4 * time.Second

var _ = Describe("leader election", Ordered, func() {
	const profile = "ha"
	ns := "leader-election"

	leaderFlags := []string{
		"--leader-elect",
		"--leader-elect-namespace=default",
		"--leader-elect-lease-duration=" + leaseDuration.String(),
		"--leader-elect-renew-deadline=3s",
		"--leader-elect-retry-period=500ms",
	}

	BeforeAll(func(ctx SpecContext) {
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		Expect(local.CreateNodes(ctx, k8s, []local.NodeSpec{
			{Name: "le-1", Zone: "zone-a", CPU: "32", Memory: "128Gi", Pods: "110"},
			{Name: "le-2", Zone: "zone-b", CPU: "32", Memory: "128Gi", Pods: "110"},
			{Name: "le-3", Zone: "zone-c", CPU: "32", Memory: "128Gi", Pods: "110"},
		})).To(Succeed())
		Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: profile}})).To(Succeed())
	})

	newPod := func(i int) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("pod-%03d", i)},
			Spec: corev1.PodSpec{
				SchedulerName: profile,
				Containers:    []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}},
			},
		}
	}
	boundCount := func(g Gomega, ctx SpecContext) int {
		var pods corev1.PodList
		g.Expect(k8s.List(ctx, &pods, client.InNamespace(ns))).To(Succeed())
		n := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				n++
			}
		}
		return n
	}

	It("binds only through the leader, hands over after the leader dies, and binds nothing twice", func(ctx SpecContext) {
		By("starting instance a, which becomes leader and makes the profile live")
		a := startInstance("instance-a", leaderFlags...)
		Eventually(func(g Gomega) {
			var sp v1alpha1.SchedulerProfile
			g.Expect(k8s.Get(ctx, client.ObjectKey{Name: profile}, &sp)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		Eventually(a.ready).WithTimeout(30 * time.Second).Should(Succeed())

		By("starting instance b as a standby; a standby is ready too")
		b := startInstance("instance-b", leaderFlags...)
		Eventually(b.ready).WithTimeout(60 * time.Second).Should(Succeed())

		By("creating pods: only the leader binds them")
		const first = 30
		for i := range first {
			Expect(k8s.Create(ctx, newPod(i))).To(Succeed())
			time.Sleep(20 * time.Millisecond) // a steady stream, not a burst
		}
		Eventually(func(g Gomega) int { return boundCount(g, ctx) }).
			WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Equal(first))

		By("killing the leader while pods keep coming")
		a.kill()
		killedAt := time.Now()
		const second = 30
		for i := first; i < first+second; i++ {
			Expect(k8s.Create(ctx, newPod(i))).To(Succeed())
			time.Sleep(100 * time.Millisecond)
		}
		Eventually(func(g Gomega) int { return boundCount(g, ctx) }).
			WithTimeout(leaseDuration + 30*time.Second).WithPolling(100 * time.Millisecond).Should(Equal(first + second))

		By("reading the API server's audit log")
		var byA, byB, conflicts, other int
		perPod := map[string]int{}
		var firstByB time.Time
		for _, bd := range bindings(ctx) {
			if !strings.HasPrefix(bd.Pod, ns+"/") {
				continue // another spec's pods
			}
			if bd.Code != 201 {
				conflicts++
				continue
			}
			perPod[bd.Pod]++
			switch bd.User {
			case "instance-a":
				byA++
				Expect(bd.At.Before(killedAt)).To(BeTrue(), "instance-a bound %s after it was killed", bd.Pod)
			case "instance-b":
				byB++
				Expect(bd.At.After(killedAt)).To(BeTrue(), "standby instance-b bound %s while instance-a led", bd.Pod)
				if firstByB.IsZero() || bd.At.Before(firstByB) {
					firstByB = bd.At
				}
			default:
				other++
			}
		}
		handover := firstByB.Sub(killedAt)
		GinkgoWriter.Printf("bindings: instance-a %d, instance-b %d, failed %d; first bind by the new leader %v after the kill\n",
			byA, byB, conflicts, handover)
		AddReportEntry("handover", handover.String())
		Expect(other).To(BeZero())
		Expect(conflicts).To(BeZero(), "a binding was refused: some pod was bound twice")
		Expect(byA).To(Equal(first))
		Expect(byB).To(Equal(second))
		Expect(perPod).To(HaveLen(first + second))
		for pod, n := range perPod {
			Expect(n).To(Equal(1), "pod %s bound %d times", pod, n)
		}
		// The follower takes over once the lease expires: within the lease
		// duration plus a retry period and the time to sync its informers.
		Expect(handover).To(BeNumerically("<", leaseDuration+10*time.Second))
	})
})
