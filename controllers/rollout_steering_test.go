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
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// createLabelledNamespace creates a namespace with labels for one spec's
// pods.
func createLabelledNamespace(prefix string, labels map[string]string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: labels}}
	Expect(k8s.Create(suiteCtx, ns)).To(Succeed())
	return ns.Name
}

func pauseStep(d *time.Duration, onTimeout string) v1alpha1.RolloutStep {
	p := &v1alpha1.PauseStep{OnTimeout: onTimeout}
	if d != nil {
		p.Duration = &metav1.Duration{Duration: *d}
	}
	return v1alpha1.RolloutStep{Pause: p}
}

// failingCanary makes a profile named pool serve its pool, then rolls a
// change out to a 10-minute canary of half its pods that keeps every pod
// off the pool, looked at every 2 s; it returns a namespace for the
// pool's pods.
func failingCanary(pool string) string {
	GinkgoHelper()
	servingOnPool(pool, 2)
	ns := createNamespace(pool)
	sp := getProfile(pool)
	sp.Spec.PluginConfig = excludingPool(pool)
	sp.Spec.Rollout = &v1alpha1.Rollout{
		Steps:    []v1alpha1.RolloutStep{canary(50, 10*time.Minute)},
		Analysis: &v1alpha1.RolloutAnalysis{Interval: &metav1.Duration{Duration: 2 * time.Second}, MinSamples: ptr.To[int32](5)},
	}
	Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
	return ns
}

var _ = Describe("SchedulerProfile rollout, steered", func() {
	It("rolls a change that fails every canary pod back within seconds of its first failures, not at the end of its 10-minute step", func() {
		const pool = "st-fast"
		ns := failingCanary(pool)
		rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)

		// Enough pods for the serving generation's share to bound its own
		// unschedulable rate: a look compares the new generation's at the
		// low end of its interval with the serving one's at the high end.
		start := time.Now()
		pods := createPods(ns, "w", pool, pool, 60)
		refused := expectRefused(pool, v1alpha1.ReasonRolledBack, 30*time.Second)
		took := time.Since(start)
		GinkgoWriter.Printf("rolled back %s after the first pods were created\n", took.Round(100*time.Millisecond))
		Expect(took).To(BeNumerically("<", 15*time.Second))
		ro := refused.Status.Rollout
		Expect(ro.Message).To(ContainSubstring("UnschedulableRatio"))
		Expect(ro.Message).To(ContainSubstring("certain while the step runs"))
		Expect(ro.History[0].Outcome).To(Equal(v1alpha1.RolloutRolledBack))
		for _, p := range pods {
			boundNode(p, timeout)
		}
	})

	It("keeps looking at a running step after a restart: the 10-minute canary that fails every pod is rolled back within seconds by the new process, once", func() {
		const pool = "st-restart"
		ns := failingCanary(pool)
		Eventually(func(g Gomega) {
			ro := getProfile(pool).Status.Rollout
			g.Expect(ro).NotTo(BeNil())
			g.Expect(ro.Phase).To(Equal(v1alpha1.RolloutProgressing))
			g.Expect(ro.Looks).To(BeNumerically(">=", 1), "looked at while the step runs")
		}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())

		By("the operator is restarted in the middle of the step")
		op.stop()
		op = startOperator()
		resumed := rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(resumed.Status.Rollout.Step).To(BeEquivalentTo(1))
		Expect(resumed.Status.Rollout.Message).To(ContainSubstring("resumed"))
		Expect(op.sched.Candidate(pool)).To(Equal(resumed.Generation))

		start := time.Now()
		pods := createPods(ns, "w", pool, pool, 60)
		refused := expectRefused(pool, v1alpha1.ReasonRolledBack, 30*time.Second)
		took := time.Since(start)
		GinkgoWriter.Printf("rolled back %s after the first pods were created, by the restarted process\n", took.Round(100*time.Millisecond))
		Expect(took).To(BeNumerically("<", 15*time.Second))
		ro := refused.Status.Rollout
		Expect(ro.Message).To(ContainSubstring("certain while the step runs"))
		rolledBack := 0
		for _, h := range ro.History {
			if h.Generation == refused.Generation && h.Outcome == v1alpha1.RolloutRolledBack {
				rolledBack++
			}
		}
		Expect(rolledBack).To(Equal(1), "one verdict, not lost and not doubled: %+v", ro.History)
		for _, p := range pods {
			boundNode(p, timeout)
		}
		Consistently(func() string { return getProfile(pool).Status.Rollout.Phase }).WithTimeout(3 * time.Second).Should(Equal(v1alpha1.RolloutRolledBack))
	})

	It("judges a canary whose selector matches no pod by onInsufficientSamples: extended, then failed for want of samples", func() {
		const pool = "st-nobody"
		servingOnPool(pool, 2)
		ns := createLabelledNamespace(pool, map[string]string{"team": "b"})

		sp := getProfile(pool)
		sp.Spec.PluginConfig = fitArgs("MostAllocated")
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps: []v1alpha1.RolloutStep{{Canary: &v1alpha1.CanaryStep{Percent: 100, Duration: metav1.Duration{Duration: 10 * time.Second},
				Selector: &v1alpha1.CanarySelector{NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"team": "nobody"}}}}}},
			Analysis: &v1alpha1.RolloutAnalysis{MinSamples: ptr.To[int32](3), MaxExtensions: ptr.To[int32](1)},
		}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		for _, p := range createPods(ns, "b", pool, pool, 6) {
			boundNode(p, timeout)
		}
		Eventually(func(g Gomega) {
			ro := getProfile(pool).Status.Rollout
			g.Expect(ro.Extensions).To(BeEquivalentTo(1))
			g.Expect(ro.Matched).NotTo(BeNil())
			g.Expect(*ro.Matched).To(BeZero(), "the selector matched none of the pods tried")
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		refused := expectRefused(pool, v1alpha1.ReasonRolledBack, 30*time.Second)
		Expect(refused.Status.Rollout.Message).To(ContainSubstring("fewer than 3 samples after 1 extensions of step 1 (onInsufficientSamples: Fail)"))
		Expect(refused.Status.ActiveGeneration).To(BeEquivalentTo(1))
	})

	It("limits a canary to one team's namespace: only its pods go to the new generation, and status says so", func() {
		const pool = "st-team"
		servingOnPool(pool, 2)
		mine := createLabelledNamespace(pool+"-a", map[string]string{"team": "a"})
		theirs := createLabelledNamespace(pool+"-b", map[string]string{"team": "b"})

		sp := getProfile(pool)
		sp.Spec.PluginConfig = fitArgs("MostAllocated")
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps: []v1alpha1.RolloutStep{{Canary: &v1alpha1.CanaryStep{Percent: 100, Duration: metav1.Duration{Duration: 10 * time.Minute},
				Selector: &v1alpha1.CanarySelector{NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}}}}},
		}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		rolling := rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(rolling.Status.Rollout.Covers).To(Equal("pods of namespaces team=a"))
		Expect(rolling.Status.Rollout.Percent).To(BeEquivalentTo(100))

		for _, p := range append(createPods(mine, "a", pool, pool, 6), createPods(theirs, "b", pool, pool, 6)...) {
			boundNode(p, timeout)
		}
		w, ok := op.sched.Window(pool, false)
		Expect(ok).To(BeTrue())
		Expect(w.Candidate.Attempts).To(BeEquivalentTo(6), "the new generation scheduled team a's pods, and only them")
		Expect(w.Serving.Attempts).To(BeEquivalentTo(6), "the serving generation scheduled team b's")
		Expect(w.Matched).To(BeEquivalentTo(6))
		Eventually(func(g Gomega) {
			ro := getProfile(pool).Status.Rollout
			g.Expect(ro.Matched).NotTo(BeNil())
			g.Expect(*ro.Matched).To(BeEquivalentTo(6))
			g.Expect(ro.Looks).To(BeNumerically(">=", 1))
		}).WithTimeout(30 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})

	It("refuses a canary of 100% without a selector, and a rollout that starts with a pause, naming the field", func() {
		sp := newProfile("st-bad", v1alpha1.SchedulerProfileSpec{Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{canary(100, time.Minute)}}})
		err := k8s.Create(suiteCtx, sp)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("percent 100 needs a selector"))
		Expect(err.Error()).To(ContainSubstring("spec.rollout.steps[0].canary.percent"))
		d := time.Minute
		sp = newProfile("st-bad", v1alpha1.SchedulerProfileSpec{Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{pauseStep(&d, "")}}})
		err = k8s.Create(suiteCtx, sp)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("the first step cannot be a pause"))
	})

	It("holds at a pause step until it is promoted, at the canary's share", func() {
		const pool = "st-gate"
		servingOnPool(pool, 1)
		sp := getProfile(pool)
		sp.Spec.PluginConfig = fitArgs("MostAllocated")
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps:    []v1alpha1.RolloutStep{canary(30, 10*time.Second), pauseStep(nil, "")},
			Analysis: &v1alpha1.RolloutAnalysis{MinSamples: ptr.To[int32](0)},
		}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		Eventually(func(g Gomega) {
			ro := getProfile(pool).Status.Rollout
			g.Expect(ro).NotTo(BeNil())
			g.Expect(ro.Step).To(BeEquivalentTo(2))
			g.Expect(ro.StepKind).To(Equal(v1alpha1.StepPause))
			g.Expect(ro.Percent).To(BeEquivalentTo(30), "the pause holds the canary before it")
			g.Expect(ro.Summary).To(HavePrefix("pause until promoted"))
		}).WithTimeout(40 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		Consistently(func() string { return getProfile(pool).Status.Rollout.Phase }).WithTimeout(3 * time.Second).Should(Equal(v1alpha1.RolloutProgressing))
		Expect(op.sched.Candidate(pool)).To(BeEquivalentTo(2))

		held := getProfile(pool)
		held.Annotations = map[string]string{v1alpha1.AnnotationRolloutPromote: fmt.Sprintf("%d/2", held.Generation)}
		Expect(k8s.Update(suiteCtx, held)).To(Succeed())
		Expect(expectLive(pool, timeout).Status.Rollout.Phase).To(Equal(v1alpha1.RolloutPromoted))
	})

	DescribeTable("ends a timed pause by its onTimeout: the next step (here the promotion), or a rollback of a gate nobody opened",
		func(pool, onTimeout, phase string) {
			servingOnPool(pool, 1)
			d := 10 * time.Second
			sp := getProfile(pool)
			sp.Spec.PluginConfig = fitArgs("MostAllocated")
			sp.Spec.Rollout = &v1alpha1.Rollout{
				Steps:    []v1alpha1.RolloutStep{canary(30, 10*time.Second), pauseStep(&d, onTimeout)},
				Analysis: &v1alpha1.RolloutAnalysis{MinSamples: ptr.To[int32](0)},
			}
			Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
			Eventually(func(g Gomega) {
				ro := getProfile(pool).Status.Rollout
				g.Expect(ro).NotTo(BeNil())
				g.Expect(ro.StepKind).To(Equal(v1alpha1.StepPause))
			}).WithTimeout(40 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
			paused := time.Now()
			ended := rolloutIn(pool, phase, 40*time.Second)
			Expect(time.Since(paused)).To(BeNumerically(">=", 8*time.Second), "the pause held for its duration")
			Expect(ended.Status.Rollout.History[0].Outcome).To(Equal(phase))
			if phase == v1alpha1.RolloutRolledBack {
				Expect(ended.Status.Rollout.Message).To(ContainSubstring("pause step 2 ended after 10s without a promotion (onTimeout: Rollback)"))
				Expect(ended.Status.ActiveGeneration).To(BeEquivalentTo(1))
			} else {
				Expect(ended.Status.ActiveGeneration).To(Equal(ended.Generation))
			}
		},
		Entry("onTimeout Continue (the default)", "st-pause-on", "", v1alpha1.RolloutPromoted),
		Entry("onTimeout Rollback", "st-pause-back", v1alpha1.PauseRollback, v1alpha1.RolloutRolledBack),
	)

	It("rolls back a failed canary held by onFailure Pause once its pauseTimeout passes", func() {
		const pool = "st-hold"
		servingOnPool(pool, 2)
		ns := createNamespace(pool)
		sp := getProfile(pool)
		sp.Spec.PluginConfig = excludingPool(pool)
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps:        []v1alpha1.RolloutStep{canary(50, 10*time.Minute)},
			Analysis:     &v1alpha1.RolloutAnalysis{Interval: &metav1.Duration{Duration: 2 * time.Second}, MinSamples: ptr.To[int32](5)},
			OnFailure:    v1alpha1.RolloutPause,
			PauseTimeout: &metav1.Duration{Duration: 10 * time.Second},
		}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		pods := createPods(ns, "w", pool, pool, 60)
		held := rolloutIn(pool, v1alpha1.RolloutPaused, 30*time.Second)
		Expect(held.Status.Rollout.HeldSince).NotTo(BeNil())
		refused := expectRefused(pool, v1alpha1.ReasonRolledBack, 30*time.Second)
		Expect(refused.Status.Rollout.Message).To(ContainSubstring("past pauseTimeout"))
		Expect(refused.Status.Rollout.History[0].Time.Sub(held.Status.Rollout.HeldSince.Time)).To(BeNumerically(">=", 9*time.Second))
		for _, p := range pods {
			boundNode(p, timeout)
		}
	})
})

// changeProfile applies change to the latest profile named name, again
// on a conflict with the operator's own writes.
func changeProfile(name string, change func(sp *v1alpha1.SchedulerProfile)) *v1alpha1.SchedulerProfile {
	var sp *v1alpha1.SchedulerProfile
	Eventually(func() error {
		sp = getProfile(name)
		if sp.Annotations == nil {
			sp.Annotations = map[string]string{}
		}
		change(sp)
		return k8s.Update(suiteCtx, sp)
	}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())
	return sp
}

var _ = Describe("SchedulerProfile history", func() {
	It("keeps the specs that served, undoes to the one before and promotes it at once, and retries a rolled-back generation", func() {
		const pool = "st-undo"
		servingOnPool(pool, 2)
		revisionsOf := func() []appsv1.ControllerRevision {
			var list appsv1.ControllerRevisionList
			Expect(k8s.List(suiteCtx, &list, client.MatchingLabels{v1alpha1.LabelProfile: pool})).To(Succeed())
			slices.SortFunc(list.Items, func(a, b appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
			return list.Items
		}
		Eventually(revisionsOf).WithTimeout(timeout).Should(HaveLen(1), "generation 1 went live")

		By("generation 2 (MostAllocated) goes live at once: revision 2")
		changeProfile(pool, func(sp *v1alpha1.SchedulerProfile) { sp.Spec.PluginConfig = fitArgs("MostAllocated") })
		Eventually(func(g Gomega) {
			revs := revisionsOf()
			g.Expect(revs).To(HaveLen(2))
			g.Expect(revs[1].Revision).To(BeEquivalentTo(2))
			g.Expect(revs[1].Annotations[v1alpha1.AnnotationRevisionGeneration]).To(Equal("2"))
			g.Expect(revs[1].OwnerReferences).To(HaveLen(1))
			g.Expect(revs[1].OwnerReferences[0].Name).To(Equal(pool))
		}).WithTimeout(timeout).Should(Succeed())
		expectLive(pool, timeout)

		By("undo to revision 1, while generation 2 serves: generation 3 has generation 1's spec, live at once")
		sp := changeProfile(pool, func(sp *v1alpha1.SchedulerProfile) {
			sp.Spec.Rollout = &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{canary(50, 10*time.Minute)}}
		})
		Expect(sp.Generation).To(BeEquivalentTo(3), "spec.rollout added")
		changeProfile(pool, func(sp *v1alpha1.SchedulerProfile) {
			sp.Annotations[v1alpha1.AnnotationRolloutUndo] = fmt.Sprintf("1@%d", sp.Generation)
		})
		Eventually(func(g Gomega) {
			sp := getProfile(pool)
			g.Expect(sp.Generation).To(BeEquivalentTo(4))
			g.Expect(sp.Spec.PluginConfig).To(BeEmpty(), "generation 1's spec")
			g.Expect(sp.Spec.Rollout).NotTo(BeNil(), "spec.rollout kept")
			g.Expect(sp.Status.ActiveGeneration).To(BeEquivalentTo(4))
		}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(op.sched.Candidate(pool)).To(BeZero(), "promoted at once: it served before")
		Eventually(func(g Gomega) {
			revs := revisionsOf()
			g.Expect(revs[len(revs)-1].Annotations[v1alpha1.AnnotationRevisionGeneration]).To(Equal("4"))
			g.Expect(revs[len(revs)-1].Revision).To(BeEquivalentTo(3), "the spec of revision 1 is the newest again")
		}).WithTimeout(timeout).Should(Succeed())
		Consistently(func() int64 { return getProfile(pool).Generation }).WithTimeout(2*time.Second).Should(BeEquivalentTo(4), "the annotation left in place undoes nothing twice")

		By("a change rolled back, then retried: rolled out again from its first step")
		changeProfile(pool, func(sp *v1alpha1.SchedulerProfile) { sp.Spec.PluginConfig = excludingPool(pool) })
		rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		changeProfile(pool, func(sp *v1alpha1.SchedulerProfile) {
			sp.Annotations[v1alpha1.AnnotationRolloutAbort] = strconv.FormatInt(sp.Generation, 10)
		})
		rolloutIn(pool, v1alpha1.RolloutAborted, timeout)
		changeProfile(pool, func(sp *v1alpha1.SchedulerProfile) {
			delete(sp.Annotations, v1alpha1.AnnotationRolloutAbort)
			sp.Annotations[v1alpha1.AnnotationRolloutRetry] = fmt.Sprintf("%d/1", sp.Generation)
		})
		retried := rolloutIn(pool, v1alpha1.RolloutProgressing, timeout)
		Expect(retried.Status.Rollout.Step).To(BeEquivalentTo(1))
		Expect(retried.Status.Rollout.Retried).To(Equal(fmt.Sprintf("%d/1", retried.Generation)))
		Expect(retried.Status.Rollout.History[0].Reason).To(Equal("Retried"))
		Expect(op.sched.Candidate(pool)).To(Equal(retried.Generation))
	})

	It("refuses an undo to a revision that no longer builds as any bad spec, and goes on with the generation serving", func() {
		const pool = "st-undo-bad"
		rolloutPool(pool, 2)
		Expect(k8s.Create(suiteCtx, admitted(newProfile(pool, v1alpha1.SchedulerProfileSpec{})))).To(Succeed())
		expectLive(pool, timeout)
		DeferCleanup(func() { deleteProfile(pool) })

		By("a revision whose spec names a plugin this scheduler does not have (one that served an older build, say)")
		bad, err := json.Marshal(v1alpha1.SchedulerProfileSpec{Plugins: &v1alpha1.Plugins{Score: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "RetiredScorer", Weight: ptr.To[int32](1)}}}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(k8s.Create(suiteCtx, &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: pool + "-retired", Labels: map[string]string{v1alpha1.LabelProfile: pool},
				Annotations: map[string]string{v1alpha1.AnnotationRevisionGeneration: "0"}},
			Data: runtime.RawExtension{Raw: bad}, Revision: 99,
		})).To(Succeed())

		sp := changeProfile(pool, func(sp *v1alpha1.SchedulerProfile) {
			sp.Annotations[v1alpha1.AnnotationRolloutUndo] = fmt.Sprintf("99@%d", sp.Generation)
		})
		Eventually(func(g Gomega) {
			var list eventsv1.EventList
			g.Expect(k8s.List(suiteCtx, &list)).To(Succeed())
			g.Expect(slices.ContainsFunc(list.Items, func(e eventsv1.Event) bool {
				return e.Regarding.Name == pool && e.Type == corev1.EventTypeWarning && e.Action == "Undo" &&
					strings.Contains(e.Note, "the spec of revision 99 was refused, generation 1 stays") && strings.Contains(e.Note, "RetiredScorer")
			})).To(BeTrue())
		}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(getProfile(pool).Generation).To(Equal(sp.Generation), "the spec was not written")
		Expect(getProfile(pool).Status.ActiveGeneration).To(BeEquivalentTo(1))

		By("the profile still reconciles: the next change goes live")
		changeProfile(pool, func(sp *v1alpha1.SchedulerProfile) {
			delete(sp.Annotations, v1alpha1.AnnotationRolloutUndo)
			sp.Spec.PluginConfig = fitArgs("MostAllocated")
		})
		expectLive(pool, timeout)
		Expect(getProfile(pool).Status.ActiveGeneration).To(BeEquivalentTo(2))
	})
})
