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

package controllers_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// scraped is every sample of the operator's registry named name whose
// labels include want, by its full label set.
func scraped(g Gomega, name string, want map[string]string) map[string]float64 {
	families, err := ctrlmetrics.Registry.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]float64{}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			key := ""
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
				key += l.GetName() + "=" + l.GetValue() + ","
			}
			for k, v := range want {
				if labels[k] != v {
					continue metrics
				}
			}
			switch {
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

var _ = Describe("Health as metrics", func() {
	It("reports a broken profile Stalled within a scrape, its serving generation once fixed, and no series once deleted", func() {
		const name = "health-broken"
		sp := newProfile(name, v1alpha1.SchedulerProfileSpec{Plugins: &v1alpha1.Plugins{
			Score: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NodeResourceFit", Weight: ptr.To[int32](2)}}},
		}})
		Expect(k8s.Create(suiteCtx, sp)).To(Succeed())
		DeferCleanup(deleteProfile, name)
		expectRefused(name, v1alpha1.ReasonUnknownPlugin, timeout)

		conditions := func(g Gomega, condition string) map[string]float64 {
			byStatus := map[string]float64{}
			for key, v := range scraped(g, "profile_scheduler_profile_condition", map[string]string{"profile": name, "condition": condition}) {
				for _, s := range []string{"True", "False", "Unknown"} {
					if key == "condition="+condition+",profile="+name+",status="+s+"," {
						byStatus[s] = v
					}
				}
			}
			return byStatus
		}
		Eventually(func(g Gomega) {
			g.Expect(conditions(g, v1alpha1.ConditionStalled)).To(Equal(map[string]float64{"True": 1, "False": 0, "Unknown": 0}))
			g.Expect(conditions(g, v1alpha1.ConditionReady)).To(Equal(map[string]float64{"True": 0, "False": 1, "Unknown": 0}))
			g.Expect(scraped(g, "profile_scheduler_profile_serving_generation", map[string]string{"profile": name})).To(ConsistOf(0.0))
			g.Expect(scraped(g, "profile_scheduler_profile_info", map[string]string{"profile": name, "scheduler_name": name})).To(ConsistOf(1.0))
		}).WithTimeout(timeout).Should(Succeed(), "the status says Stalled: the next scrape says so too")

		By("fixing the plugin's name, the profile serves generation 2")
		live := getProfile(name)
		live.Spec.Plugins.Score.Enabled[0].Name = "NodeResourcesFit"
		Expect(k8s.Update(suiteCtx, live)).To(Succeed())
		expectLive(name, timeout)
		Eventually(func(g Gomega) {
			g.Expect(conditions(g, v1alpha1.ConditionReady)).To(Equal(map[string]float64{"True": 1, "False": 0, "Unknown": 0}))
			g.Expect(conditions(g, v1alpha1.ConditionStalled)).To(Equal(map[string]float64{"True": 0, "False": 1, "Unknown": 0}))
			g.Expect(scraped(g, "profile_scheduler_profile_serving_generation", map[string]string{"profile": name})).To(ConsistOf(2.0))
			g.Expect(scraped(g, "profile_scheduler_profile_candidate_generation", map[string]string{"profile": name})).To(ConsistOf(0.0))
		}).WithTimeout(timeout).Should(Succeed())

		By("deleting it, every series of the profile goes")
		deleteProfile(name)
		Eventually(func(g Gomega) {
			for _, metric := range []string{"profile_scheduler_profile_condition", "profile_scheduler_profile_info",
				"profile_scheduler_profile_serving_generation", "profile_scheduler_profile_candidate_generation",
				"profile_scheduler_refused_generations_total"} {
				g.Expect(scraped(g, metric, map[string]string{"profile": name})).To(BeEmpty(), metric)
			}
		}).WithTimeout(timeout).Should(Succeed())
	})

	It("counts reviews by kind and result", func() {
		ns := createNamespace("review-metrics")
		count := func(g Gomega, kind, result string) float64 {
			got := scraped(g, "profile_scheduler_reviews_total", map[string]string{"kind": kind, "result": result})
			g.Expect(got).To(HaveLen(1), "every kind and result is exported from the start")
			for _, v := range got {
				return v
			}
			return 0
		}
		failures := func(g Gomega, reason string) float64 {
			sum := 0.0
			for _, v := range scraped(g, "profile_scheduler_review_failures_total", map[string]string{"kind": "pod", "reason": reason}) {
				sum += v
			}
			return sum
		}
		var before, beforeNotFound float64
		Eventually(func(g Gomega) {
			before, beforeNotFound = count(g, "pod", "failed"), failures(g, v1alpha1.ReasonPodNotFound)
			g.Expect(scraped(g, "profile_scheduler_review_failures_total", map[string]string{"kind": "scenario", "reason": v1alpha1.ReasonEvaluationFailed})).To(HaveLen(1))
		}).Should(Succeed())
		sr := newReview(ns, "no-such-pod", v1alpha1.SchedulingReviewSpec{PodName: "absent"})
		Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
		got := answered(sr)
		Expect(condition(got, v1alpha1.ConditionFailed)).NotTo(BeNil())
		Expect(condition(got, v1alpha1.ConditionFailed).Reason).To(Equal(v1alpha1.ReasonPodNotFound))
		Eventually(func(g Gomega) {
			g.Expect(count(g, "pod", "failed")).To(Equal(before + 1))
			g.Expect(failures(g, v1alpha1.ReasonPodNotFound)).To(Equal(beforeNotFound + 1))
		}).WithTimeout(timeout).Should(Succeed())
	})
})
