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
	"fmt"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// rolloutPool makes n nodes of a pool of their own, tainted so that only
// the pods of onPool(pool) go there, deleted when the spec ends.
func rolloutPool(pool string, n int) {
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("%s-%d", pool, i)
		createNode(name, map[string]string{"pool": pool}, []corev1.Taint{{Key: "pool", Value: pool, Effect: corev1.TaintEffectNoSchedule}})
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
		})
	}
}

// servingOnPool makes a pool of n nodes and a profile named as the pool
// with upstream's default plugins, live, deleted when the spec ends.
func servingOnPool(pool string, n int) {
	rolloutPool(pool, n)
	Expect(k8s.Create(suiteCtx, newProfile(pool, v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
	expectLive(pool, timeout)
	DeferCleanup(func() { deleteProfile(pool) })
}

// excludingPool is NodeAffinity's args that keep every pod off pool: a
// bad policy for the pods that run there.
func excludingPool(pool string) []v1alpha1.PluginConfig {
	return []v1alpha1.PluginConfig{{Name: "NodeAffinity", Args: raw(fmt.Sprintf(
		`{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"NotIn","values":[%q]}]}]}}}`, pool))}}
}

func canary(percent int32, d time.Duration) v1alpha1.RolloutStep {
	return v1alpha1.RolloutStep{Canary: &v1alpha1.CanaryStep{Percent: percent, Duration: metav1.Duration{Duration: d}}}
}

func shadowStep(d time.Duration) v1alpha1.RolloutStep {
	return v1alpha1.RolloutStep{Shadow: &v1alpha1.ShadowStep{Duration: metav1.Duration{Duration: d}}}
}

// rolloutOf waits until the profile's status.rollout is in phase and
// returns the profile.
func rolloutIn(name, phase string, timeout time.Duration) *v1alpha1.SchedulerProfile {
	var sp *v1alpha1.SchedulerProfile
	Eventually(func(g Gomega) {
		sp = getProfile(name)
		g.Expect(sp.Status.Rollout).NotTo(BeNil())
		g.Expect(sp.Status.Rollout.Generation).To(Equal(sp.Generation))
		g.Expect(sp.Status.Rollout.Phase).To(Equal(phase), sp.Status.Rollout.Message)
	}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
	return sp
}

// createPods creates n pods of the pool that request nothing.
func createPods(ns, prefix, schedulerName, pool string, n int) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, n)
	for i := range n {
		pods = append(pods, createPod(ns, fmt.Sprintf("%s-%d", prefix, i), schedulerName, onPool(pool), requestingNothing))
	}
	return pods
}

var _ = Describe("SchedulerProfile rollout", func() {
	It("rolls a bad change back on its own, with only the canary's share of pods touched", func() {
		const pool = "ro-bad"
		servingOnPool(pool, 2)
		ns := createNamespace(pool)

		By("generation 2 keeps every pod off the pool, rolled out to a 30% canary")
		sp := getProfile(pool)
		sp.Spec.PluginConfig = excludingPool(pool)
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps:    []v1alpha1.RolloutStep{canary(30, 10*time.Second), canary(60, 10*time.Second)},
			Analysis: &v1alpha1.RolloutAnalysis{MinSamples: ptr.To[int32](3), MaxExtensions: ptr.To[int32](1)},
		}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		rolling := rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(rolling.Status.Rollout.Step).To(BeEquivalentTo(1))
		Expect(rolling.Status.Rollout.Summary).To(HavePrefix("canary 30% "))
		Expect(rolling.Status.ActiveGeneration).To(BeEquivalentTo(1), "generation 1 serves the other pods")
		Expect(kstatusOf(Default, rolling).Status).To(Equal(status.InProgressStatus))
		reconciling := meta.FindStatusCondition(rolling.Status.Conditions, v1alpha1.ConditionReconciling)
		Expect(reconciling.Status).To(Equal(metav1.ConditionTrue))
		Expect(reconciling.Reason).To(Equal(v1alpha1.ReasonRollingOut))
		Expect(reconciling.Message).To(ContainSubstring("step 1 of 2"))

		pods := createPods(ns, "w", pool, pool, 30)
		By("the analysis fails at the end of the step and generation 1 serves every pod again")
		refused := expectRefused(pool, v1alpha1.ReasonRolledBack, 40*time.Second)
		Expect(refused.Status.ActiveGeneration).To(BeEquivalentTo(1))
		Expect(readyMessage(refused)).To(ContainSubstring("UnschedulableRatio"))
		ro := refused.Status.Rollout
		Expect(ro.Phase).To(Equal(v1alpha1.RolloutRolledBack))
		Expect(ro.History).NotTo(BeEmpty())
		Expect(ro.History[0].Outcome).To(Equal(v1alpha1.RolloutRolledBack))
		var unsched *v1alpha1.RolloutMetric
		for i := range ro.Analysis {
			if ro.Analysis[i].Metric == "UnschedulableRatio" {
				unsched = &ro.Analysis[i]
			}
		}
		Expect(unsched).NotTo(BeNil())
		Expect(unsched.Verdict).To(Equal("Fail"))
		Expect(unsched.Samples).To(BeNumerically(">=", 3))
		Expect(unsched.Samples).To(BeNumerically("<", 30), "only the canary's share went to generation 2")

		By("every pod is bound, by generation 1, once the canary is gone")
		for _, p := range pods {
			boundNode(p, timeout)
		}
		Eventually(func(g Gomega) {
			g.Expect(eventReasons(pool)).To(ContainElements(v1alpha1.EventRolloutStep, v1alpha1.EventRolledBack))
		}).WithTimeout(timeout).Should(Succeed())

		By("the rolled-back generation is not tried again")
		Consistently(func() string { return getProfile(pool).Status.Rollout.Phase }).
			WithTimeout(2 * time.Second).Should(Equal(v1alpha1.RolloutRolledBack))
	})

	It("promotes a good change through shadow and canary, and resumes after a restart", func() {
		const pool = "ro-good"
		servingOnPool(pool, 2)
		ns := createNamespace(pool)

		sp := getProfile(pool)
		sp.Spec.PluginConfig = fitArgs("MostAllocated")
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps: []v1alpha1.RolloutStep{shadowStep(10 * time.Second), canary(50, 15*time.Second)},
			Analysis: &v1alpha1.RolloutAnalysis{MinSamples: ptr.To[int32](3), MaxExtensions: ptr.To[int32](0),
				OnInsufficientSamples: "Pass", MinShadowAgreement: ptr.To(0.5)},
		}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		shadowing := rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(shadowing.Status.Rollout.StepKind).To(Equal(v1alpha1.StepShadow))

		By("in shadow, generation 1 binds and generation 2 judges")
		for _, p := range createPods(ns, "s", pool, pool, 8) {
			boundNode(p, timeout)
		}
		Eventually(func(g Gomega) {
			ro := getProfile(pool).Status.Rollout
			g.Expect(ro.Shadow).NotTo(BeNil())
			g.Expect(ro.Shadow.Judged).To(BeNumerically(">=", 1))
		}).WithTimeout(40 * time.Second).WithPolling(time.Second).Should(Succeed())

		By("in the canary step, the operator is restarted")
		Eventually(func(g Gomega) {
			ro := getProfile(pool).Status.Rollout
			g.Expect(ro.Step).To(BeEquivalentTo(2))
		}).WithTimeout(40 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		shadowed := getProfile(pool).Status.Rollout.Shadow
		Expect(shadowed.ServingPlaced).To(BeNumerically(">=", 1))
		Expect(shadowed.FeasibleWhereServingPlaced).To(Equal(shadowed.ServingPlaced), "MostAllocated filters nothing out")
		op.stop()
		op = startOperator()
		resumed := rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(resumed.Status.Rollout.Step).To(BeEquivalentTo(2), "no step skipped")
		Expect(resumed.Status.ActiveGeneration).To(BeEquivalentTo(1))
		Expect(op.sched.Candidate(pool)).To(BeEquivalentTo(2))
		for _, p := range createPods(ns, "c", pool, pool, 10) {
			boundNode(p, timeout)
		}

		By("generation 2 is promoted")
		live := expectLive(pool, 60*time.Second)
		Expect(live.Status.ActiveGeneration).To(BeEquivalentTo(2))
		Expect(live.Status.Rollout.Phase).To(Equal(v1alpha1.RolloutPromoted))
		Expect(live.Status.Rollout.Summary).To(Equal("promoted"))
		Expect(live.Status.Rollout.History[0].Outcome).To(Equal(v1alpha1.RolloutPromoted))
		Expect(op.sched.Candidate(pool)).To(BeZero())
		Expect(eventReasons(pool)).To(ContainElement(v1alpha1.EventPromoted))

		By("restarted after the promotion, the operator serves generation 2 at once, with no rollout")
		op.stop()
		op = startOperator()
		Expect(expectLive(pool, timeout).Status.Rollout.Phase).To(Equal(v1alpha1.RolloutPromoted))
		Consistently(func() int64 { return op.sched.Candidate(pool) }).WithTimeout(2 * time.Second).Should(BeZero())
		boundNode(createPod(ns, "after", pool, onPool(pool), requestingNothing), timeout)
	})

	DescribeTable("contains a canary plugin's panic wherever it happens: the canary rolled back on its errors, every pod bound in the end, none left assumed, the operator alive",
		func(pool string, plugins v1alpha1.Plugins, step v1alpha1.RolloutStep, reason string) {
			pods := panickingRollout(pool, plugins, step)
			// A rolled-back candidate's pods are scheduled again by the
			// serving generation.
			for _, p := range pods {
				boundNode(p, timeout)
			}
			refused := expectRefused(pool, v1alpha1.ReasonRolledBack, 40*time.Second)
			Expect(readyMessage(refused)).To(MatchRegexp(reason))
			Expect(op.sched.Serving(pool)).To(BeTrue())
			// A pod left assumed would hold its node's room in the cache
			// for ever: once every pod is bound the cache holds none as
			// assumed.
			Eventually(func() int { return op.sched.AssumedPods(pool) }).WithTimeout(timeout).Should(BeZero())
		},
		Entry("Filter, in the parallel workers", "ro-panic", enabledAt("Filter", panicFilterName), canary(50, 10*time.Second), "Errors"),
		Entry("PreFilter, in the cycle", "ro-panic-prefilter", enabledAt("PreFilter", panicPreFilterName), canary(50, 10*time.Second), "Errors"),
		Entry("Score, in the parallel workers", "ro-panic-score", enabledAt("Score", panicScoreName), canary(50, 10*time.Second), "Errors"),
		Entry("Reserve, past the assume", "ro-panic-reserve", enabledAt("Reserve", panicReserveName), canary(50, 10*time.Second), "Errors"),
		Entry("Permit", "ro-panic-permit", enabledAt("Permit", panicPermitName), canary(50, 10*time.Second), "Errors"),
		Entry("PreBind, in the binding cycle", "ro-panic-prebind", enabledAt("PreBind", panicPreBindName), canary(50, 10*time.Second), "Errors"),
		Entry("Bind", "ro-panic-bind", enabledAt("Bind", panicBindName), canary(50, 10*time.Second), "Errors"),
		Entry("PostBind, the pod bound", "ro-panic-postbind", enabledAt("PostBind", panicPostBindName), canary(50, 10*time.Second), "Errors"),
		// Nodes whose Filter panicked are neither feasible nor refused:
		// the shadow agrees on none, and its panics count as errors.
		Entry("Filter, in the shadow's judgement", "ro-panic-shadow", enabledAt("Filter", panicFilterName), shadowStep(10*time.Second), "Errors|ShadowAgreement"),
	)

	It("contains a canary plugin's panic across a restart: the rollout resumes, the new process contains the panics too and rolls the canary back, no pod stuck", func() {
		const pool = "ro-panic-restart"
		pods := panickingRollout(pool, enabledAt("Reserve", panicReserveName), canary(50, 10*time.Minute))
		By("the operator is restarted while the candidate panics")
		Eventually(func() int64 {
			w, _ := op.sched.Window(pool, false)
			return w.Candidate.Errors
		}).WithTimeout(timeout).Should(BeNumerically(">=", 1))
		op.stop()
		op = startOperator()
		resumed := rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(resumed.Status.Rollout.Step).To(BeEquivalentTo(1))
		ns := pods[0].Namespace
		pods = append(pods, createPods(ns, "after", pool, pool, 10)...)
		for _, p := range pods {
			boundNode(p, timeout)
		}
		refused := expectRefused(pool, v1alpha1.ReasonRolledBack, 40*time.Second)
		Expect(readyMessage(refused)).To(ContainSubstring("Errors"))
		Expect(op.sched.Serving(pool)).To(BeTrue())
		Eventually(func() int { return op.sched.AssumedPods(pool) }).WithTimeout(timeout).Should(BeZero())
	})

	It("rolls the newest of two changes out, and retires both generations when the profile is deleted", func() {
		const pool = "ro-twice"
		servingOnPool(pool, 1)
		steps := []v1alpha1.RolloutStep{canary(10, 10*time.Minute)}

		sp := getProfile(pool)
		sp.Spec.PluginConfig = fitArgs("MostAllocated")
		sp.Spec.Rollout = &v1alpha1.Rollout{Steps: steps}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(op.sched.Candidate(pool)).To(BeEquivalentTo(2))

		By("generation 3 replaces generation 2 from step 1; generation 2 never serves every pod")
		sp = getProfile(pool)
		sp.Spec.PluginConfig = fitArgs("LeastAllocated")
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		third := rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(third.Status.Rollout.Step).To(BeEquivalentTo(1))
		Expect(third.Status.Rollout.History).NotTo(BeEmpty())
		Expect(third.Status.Rollout.History[0].Generation).To(BeEquivalentTo(2))
		Expect(third.Status.Rollout.History[0].Outcome).To(Equal(v1alpha1.RolloutSuperseded))
		Expect(third.Status.ActiveGeneration).To(BeEquivalentTo(1))
		Expect(op.sched.Candidate(pool)).To(BeEquivalentTo(3))

		By("deleting the profile mid-rollout retires both generations")
		deleteProfile(pool)
		Eventually(func() bool { return op.sched.Serving(pool) }).WithTimeout(timeout).Should(BeFalse())
		Expect(op.sched.Candidate(pool)).To(BeZero())
	})

	It("rolls a change of a referenced ExtenderConfig out through the profile's rollout", func() {
		const name = "ro-ext"
		ext := startExtender(false)
		ec := newExtenderConfig(name, ext.URL)
		Expect(k8s.Create(suiteCtx, ec)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, ec))).To(Succeed()) })
		sp := newProfile(name, v1alpha1.SchedulerProfileSpec{Extenders: []string{name},
			Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{canary(50, 10*time.Minute)}}})
		Expect(k8s.Create(suiteCtx, sp)).To(Succeed())
		DeferCleanup(func() { deleteProfile(name) })
		live := expectLive(name, timeout)
		Expect(live.Status.Rollout).To(BeNil(), "the first generation goes live at once")

		By("the ExtenderConfig changes: the same generation of the profile is rolled out with it")
		Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(ec), ec)).To(Succeed())
		ec.Spec.HTTPTimeout = &metav1.Duration{Duration: 3 * time.Second}
		Expect(k8s.Update(suiteCtx, ec)).To(Succeed())
		rolling := rolloutIn(name, v1alpha1.RolloutProgressing, timeout)
		Expect(rolling.Status.Extenders[0].Generation).To(BeEquivalentTo(1), "the serving generation still calls the extender as it was")
		Expect(meta.FindStatusCondition(rolling.Status.Conditions, v1alpha1.ConditionReconciling).Reason).To(Equal(v1alpha1.ReasonRollingOut))

		By("promoted at once by the annotation, the profile calls the new ExtenderConfig")
		rolling.Annotations = map[string]string{v1alpha1.AnnotationRolloutPromote: fmt.Sprintf("%d/full", rolling.Generation)}
		Expect(k8s.Update(suiteCtx, rolling)).To(Succeed())
		Eventually(func(g Gomega) {
			sp := getProfile(name)
			g.Expect(sp.Status.Rollout.Phase).To(Equal(v1alpha1.RolloutPromoted))
			g.Expect(sp.Status.Extenders[0].Generation).To(BeEquivalentTo(2))
		}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
		expectLive(name, timeout)
	})

	It("extends a step without pods, holds it with onFailure Pause, and promotes it on the annotation", func() {
		const pool = "ro-quiet"
		servingOnPool(pool, 1)

		sp := getProfile(pool)
		sp.Spec.PluginConfig = fitArgs("MostAllocated")
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps:     []v1alpha1.RolloutStep{canary(20, 10*time.Second)},
			Analysis:  &v1alpha1.RolloutAnalysis{MinSamples: ptr.To[int32](5), MaxExtensions: ptr.To[int32](1)},
			OnFailure: v1alpha1.RolloutPause,
		}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())

		By("no pod arrives: the step is extended once, then held for want of samples")
		Eventually(func(g Gomega) {
			ro := getProfile(pool).Status.Rollout
			g.Expect(ro).NotTo(BeNil())
			g.Expect(ro.Extensions).To(BeEquivalentTo(1))
		}).WithTimeout(30 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		held := rolloutIn(pool, v1alpha1.RolloutPaused, 30*time.Second)
		Expect(held.Status.Rollout.Message).To(ContainSubstring("fewer than 5 samples after 1 extensions of step 1"))
		Expect(held.Status.Rollout.Summary).To(Equal("paused: canary 20%"))
		reconciling := meta.FindStatusCondition(held.Status.Conditions, v1alpha1.ConditionReconciling)
		Expect(reconciling.Reason).To(Equal(v1alpha1.ReasonRolloutPaused))
		Expect(op.sched.Candidate(pool)).To(Equal(held.Generation), "a held canary keeps its share")

		By("promoting the held step promotes the generation")
		held.Annotations = map[string]string{v1alpha1.AnnotationRolloutPromote: fmt.Sprintf("%d/1", held.Generation)}
		Expect(k8s.Update(suiteCtx, held)).To(Succeed())
		live := expectLive(pool, timeout)
		Expect(live.Status.Rollout.Phase).To(Equal(v1alpha1.RolloutPromoted))
	})

	It("refuses a rollout of a QueueSort change, and aborts on the annotation", func() {
		const pool = "ro-ctl"
		servingOnPool(pool, 1)
		steps := []v1alpha1.RolloutStep{canary(10, 10*time.Minute)}

		sp := getProfile(pool)
		sp.Spec.Plugins = &v1alpha1.Plugins{QueueSort: v1alpha1.PluginSet{
			Disabled: []v1alpha1.Plugin{{Name: "PrioritySort"}}, Enabled: []v1alpha1.Plugin{{Name: secondSortName}}}}
		sp.Spec.Rollout = &v1alpha1.Rollout{Steps: steps}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		refused := expectRefused(pool, v1alpha1.ReasonQueueSortChanged, timeout)
		Expect(readyMessage(refused)).To(ContainSubstring("spec.plugins.queueSort: a rollout cannot split a change of the QueueSort plugin (PrioritySort to SecondSort)"))
		Expect(refused.Status.ActiveGeneration).To(BeEquivalentTo(1))
		Expect(op.sched.Candidate(pool)).To(BeZero())

		By("a rollout aborted by its annotation leaves generation 1 serving")
		sp = getProfile(pool)
		sp.Spec.Plugins = nil
		sp.Spec.PluginConfig = fitArgs("MostAllocated")
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		rolling := rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(op.sched.Candidate(pool)).To(Equal(rolling.Generation))
		rolling.Annotations = map[string]string{v1alpha1.AnnotationRolloutAbort: strconv.FormatInt(rolling.Generation, 10)}
		Expect(k8s.Update(suiteCtx, rolling)).To(Succeed())
		aborted := expectRefused(pool, v1alpha1.ReasonRolloutAborted, timeout)
		Expect(aborted.Status.ActiveGeneration).To(BeEquivalentTo(1))
		Expect(op.sched.Candidate(pool)).To(BeZero())

		By("spec.rollout removed: the next generation goes live at once")
		sp = getProfile(pool)
		sp.Spec.Rollout = nil
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		Expect(expectLive(pool, timeout).Status.ActiveGeneration).To(Equal(sp.Generation), "the generation Update wrote")
	})
})

// panickingRollout serves pool, rolls plugins out on it with one step,
// and creates ten pods of pool while the step runs.
func panickingRollout(pool string, plugins v1alpha1.Plugins, step v1alpha1.RolloutStep) []*corev1.Pod {
	GinkgoHelper()
	servingOnPool(pool, 2)
	ns := createNamespace(pool)
	sp := getProfile(pool)
	sp.Spec.Plugins = &plugins
	sp.Spec.Rollout = &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{step}}
	Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
	rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
	return createPods(ns, "p", pool, pool, 10)
}

// enabledAt enables plugin at one extension point; at Bind it replaces
// the default binder.
func enabledAt(point, plugin string) v1alpha1.Plugins {
	set := v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: plugin}}}
	var p v1alpha1.Plugins
	switch point {
	case "Filter":
		p.Filter = set
	case "PreFilter":
		p.PreFilter = set
	case "Score":
		set.Enabled[0].Weight = ptr.To[int32](1)
		p.Score = set
	case "Reserve":
		p.Reserve = set
	case "Permit":
		p.Permit = set
	case "PreBind":
		p.PreBind = set
	case "Bind":
		set.Disabled = []v1alpha1.Plugin{{Name: "*"}}
		p.Bind = set
	case "PostBind":
		p.PostBind = set
	}
	return p
}
