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

	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

var _ = Describe("A review past its deadline", func() {
	It("stops, returns the minimize trials it had run, and holds nothing the next review waits on", func() {
		h := startScheduler()
		name := uniqueName("deadline")
		ext := newFakeExtender()
		ext.reject["dl-1"] = true
		ext.delay = 2 * time.Second
		cfg := ext.config()
		cfg.FilterVerb = "filter"
		draft := withExtenders(defaultProfile(name), cfg)
		createNode("dl-1", "2", "4Gi")
		Eventually(func() error { _, err := h.sched.Cache().GetNode("dl-1"); return err }, 10*time.Second, 10*time.Millisecond).Should(Succeed())

		// Each run calls the slow extender once: the deadline passes in
		// the first run, and the review stops before the next.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r, err := h.reviews.Review(ctx, review.Request{Draft: &draft, Scenario: &review.Scenario{
			Pods:     []review.ScenarioPods{{Template: newPod(h.ns, "one", name, "1", "1Gi"), Replicas: 1}},
			Minimize: &review.Minimize{Shape: review.NodeShape{FromNode: "dl-1"}, Max: 5},
		}})
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(r).NotTo(BeNil())
		Expect(r.Scenario).NotTo(BeNil(), "what it had computed comes back with the error")
		Expect(r.Scenario.Minimize).NotTo(BeNil())
		Expect(len(r.Scenario.Minimize.Tried)).To(BeNumerically("<=", 1), "stopped before a second run")
		for _, t := range r.Scenario.Minimize.Tried {
			Expect(t).To(Equal(review.MinimizeTrial{Count: 0, Unplaced: 1}), "the extender refuses the cluster's node")
		}

		By("the next review is answered at once")
		ext.mu.Lock()
		ext.delay = 0
		ext.mu.Unlock()
		next, cancelNext := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancelNext()
		r, err = h.reviews.Review(next, review.Request{Draft: &draft, Scenario: &review.Scenario{
			Pods:     []review.ScenarioPods{{Template: newPod(h.ns, "one", name, "1", "1Gi"), Replicas: 1}},
			Minimize: &review.Minimize{Shape: review.NodeShape{FromNode: "dl-1"}, Max: 5},
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Scenario.Minimize.Count).To(Equal(1), "%+v", r.Scenario.Minimize.Tried)
	})
})
