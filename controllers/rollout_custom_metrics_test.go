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
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/controllers"
)

// prom is the suite's Prometheus API (--prometheus-address), started at
// its first use: a query is answered with the scalar a spec set for it,
// refused as Prometheus refuses a bad query otherwise.
var (
	promOnce sync.Once
	prom     *controllers.PromAPI
	promURL  string
)

func prometheusAPI() *controllers.PromAPI {
	promOnce.Do(func() {
		prom = controllers.NewPromAPI()
		promURL = httptest.NewServer(prom).URL
	})
	return prom
}

// rollOutWithMetrics makes a profile named pool serve its pool, then
// rolls a change the built-in metrics pass (another scoring strategy) out
// to a canary of half its pods for d, judged by analysis, and waits until
// the rollout runs; it returns a namespace for the pool's pods.
func rollOutWithMetrics(pool string, d time.Duration, analysis *v1alpha1.RolloutAnalysis) string {
	GinkgoHelper()
	servingOnPool(pool, 2)
	ns := createNamespace(pool)
	sp := getProfile(pool)
	sp.Spec.PluginConfig = fitArgs("MostAllocated")
	sp.Spec.Rollout = &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{canary(50, d)}, Analysis: analysis}
	Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
	rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
	return ns
}

var _ = Describe("SchedulerProfile rollout, your own metrics", func() {
	It("rolls back, within seconds, a change the built-in metrics pass when a Prometheus metric of its own fails", func() {
		const pool = "cm-bad"
		// The team's queue wait, as its own exporter reports it.
		prometheusAPI().AnswerScalar(`team_queue_wait_seconds{profile="cm-bad",generation="2"}`, "120")
		start := time.Now()
		ns := rollOutWithMetrics(pool, 10*time.Minute, &v1alpha1.RolloutAnalysis{Interval: &metav1.Duration{Duration: 2 * time.Second}, Metrics: []v1alpha1.AnalysisMetric{{
			Name: "queue-wait", Query: `team_queue_wait_seconds{profile="$profile",generation="$generation"}`, SuccessCondition: "result[0] < 30.0",
		}}})
		for _, p := range createPods(ns, "w", pool, pool, 10) {
			boundNode(p, timeout)
		}
		refused := expectRefused(pool, v1alpha1.ReasonRolledBack, 30*time.Second)
		GinkgoWriter.Printf("rolled back %s after the rollout started\n", time.Since(start).Round(100*time.Millisecond))
		Expect(time.Since(start)).To(BeNumerically("<", 20*time.Second))
		ro := refused.Status.Rollout
		Expect(ro.Message).To(ContainSubstring("metric queue-wait failed 1 of 1 measurements (failureLimit 0; 0 could not be taken): last result [120] against result[0] < 30.0 (certain while the step runs)"))
		Expect(ro.History[0].Outcome).To(Equal(v1alpha1.RolloutRolledBack))
		i := slices.IndexFunc(ro.Analysis, func(m v1alpha1.RolloutMetric) bool { return m.Metric == "queue-wait" })
		Expect(i).To(BeNumerically(">=", 0), "status.rollout.analysis shows the metric")
		Expect(ro.Analysis[i]).To(And(
			HaveField("New", "[120]"), HaveField("Threshold", "result[0] < 30.0"), HaveField("Verdict", "Fail"), HaveField("Failed", BeEquivalentTo(1))))
		for _, m := range ro.Analysis {
			if m.Metric != "queue-wait" {
				Expect(m.Verdict).NotTo(Equal("Fail"), "the built-in %s passes", m.Metric)
			}
		}
	})

	It("promotes a change whose metric passes, a query Prometheus refuses counted but ignored (onError: Ignore)", func() {
		const pool = "cm-good"
		prometheusAPI().AnswerScalar(`team_queue_wait_seconds{profile="cm-good",generation="2"}`, "3")
		ns := rollOutWithMetrics(pool, 10*time.Second, &v1alpha1.RolloutAnalysis{Interval: &metav1.Duration{Duration: 5 * time.Second}, MinSamples: ptr.To[int32](0), Metrics: []v1alpha1.AnalysisMetric{
			{Name: "queue-wait", Query: `team_queue_wait_seconds{profile="$profile",generation="$generation"}`,
				SuccessCondition: "result[0] < 30.0", Interval: &metav1.Duration{Duration: 10 * time.Second}},
			{Name: "gpu-fragmentation", Query: `no_such_metric{profile="$profile",generation="$generation",serving="$servingGeneration",window="$window"}`,
				SuccessCondition: "result[0] < 0.2", OnError: v1alpha1.MetricErrorIgnore},
		}})
		for _, p := range createPods(ns, "w", pool, pool, 6) {
			boundNode(p, timeout)
		}
		done := rolloutIn(pool, v1alpha1.RolloutPromoted, time.Minute)
		Expect(prometheusAPI().WasAsked(`team_queue_wait_seconds{profile="cm-good",generation="2"}`)).To(BeTrue())
		Expect(prometheusAPI().AskedLike(`^no_such_metric\{profile="cm-good",generation="2",serving="1",window="(5|6|10|11)s"\}$`)).To(BeTrue(),
			"the queries asked name the profile, both generations and the window so far")
		ro := done.Status.Rollout
		i := slices.IndexFunc(ro.Analysis, func(m v1alpha1.RolloutMetric) bool { return m.Metric == "gpu-fragmentation" })
		Expect(i).To(BeNumerically(">=", 0))
		Expect(ro.Analysis[i].Errored).To(BeNumerically(">=", 1))
		Expect(ro.Analysis[i].Failed).To(BeZero())
		Expect(ro.Analysis[i].Error).To(ContainSubstring("bad_data"))
		Expect(ro.Analysis[i].Verdict).To(Equal("Pass"))
	})

	It("refuses a successCondition that is not a CEL bool over result, naming the field, and keeps the generation serving", func() {
		const pool = "cm-cel"
		servingOnPool(pool, 2)
		sp := getProfile(pool)
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps: []v1alpha1.RolloutStep{canary(50, 10*time.Second)},
			Analysis: &v1alpha1.RolloutAnalysis{Metrics: []v1alpha1.AnalysisMetric{
				{Name: "queue-wait", Query: `up`, SuccessCondition: "result[0] + 1.0"},
			}},
		}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		refused := expectRefused(pool, v1alpha1.ReasonInvalidSpec, timeout)
		Expect(meta.FindStatusCondition(refused.Status.Conditions, v1alpha1.ConditionReady).Message).To(
			ContainSubstring(`spec.rollout.analysis.metrics[0].successCondition: metric "queue-wait": the condition is a double, not a bool`))
		Expect(refused.Status.ActiveGeneration).To(BeEquivalentTo(1))
		Expect(op.sched.Serving(pool)).To(BeTrue())
	})
})
