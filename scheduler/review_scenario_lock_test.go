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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv/fakeextender"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

var _ = Describe("A long scenario", func() {
	It("holds the reviews' snapshot only while it plans: another review is answered while its runs go on", func() {
		h := startScheduler()
		name := uniqueName("long")
		h.apply(defaultProfile(name))
		createNode("long-1", "4", "8Gi")
		createPod(newPod(h.ns, "small", name+"-nobody", "1", "1Gi"))
		Eventually(func() error { _, err := h.sched.Cache().GetNode("long-1"); return err }, 10*time.Second, 10*time.Millisecond).Should(Succeed())

		// The draft's extender holds each filter call until released;
		// ext.Entered says a run has started (the plan is done).
		ext := fakeextender.StartHeld()
		DeferCleanup(ext.Close)
		draft := withExtenders(defaultProfile(name+"-draft"), config.Extender{URLPrefix: ext.URL, FilterVerb: "filter", HTTPTimeout: metav1.Duration{Duration: time.Minute}})

		done := make(chan error, 1)
		go func() {
			defer GinkgoRecover()
			_, err := h.reviews.Review(context.Background(), review.Request{Draft: &draft, Scenario: &review.Scenario{
				Pods: []review.ScenarioPods{{Template: newPod(h.ns, "many", name, "1", "1Gi"), Replicas: 2}},
			}})
			done <- err
		}()
		Eventually(ext.Entered).WithTimeout(30*time.Second).Should(Receive(), "the scenario's run calls the extender")

		By("another review, of the live profile, while the scenario's run waits on its extender")
		// On its own goroutine: were the snapshot still held, it would wait
		// until the extender is released (at cleanup), and fail here.
		small := make(chan *review.Answer, 1)
		go func() {
			defer GinkgoRecover()
			r, err := h.reviews.Review(context.Background(), review.Request{SchedulerName: name, PodNamespace: h.ns, PodName: "small"})
			Expect(err).NotTo(HaveOccurred())
			small <- r
		}()
		var r *review.Answer
		Eventually(small).WithTimeout(15 * time.Second).Should(Receive(&r))
		Expect(r.Pod).NotTo(BeNil())
		Expect(r.Pod.SelectedNode).To(Equal("long-1"))
		Expect(ext.Answered()).To(BeZero(), "answered while the scenario's run was still waiting")
		Expect(done).NotTo(Receive())

		ext.Release()
		Eventually(done).WithTimeout(30 * time.Second).Should(Receive(BeNil()))
	})
})
