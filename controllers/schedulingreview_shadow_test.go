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
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv/fakeextender"
)

var _ = Describe("A rollout's shadow beside a tenant's reviews", func() {
	It("keeps judging while fifty reviews created at once are answered", func() {
		const pool = "ro-busy"
		const reviews = 50
		servingOnPool(pool, 2)
		ns := createNamespace(pool)

		By("generation 2 in a shadow step that outlasts the spec")
		sp := getProfile(pool)
		sp.Spec.PluginConfig = fitArgs("MostAllocated")
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps:    []v1alpha1.RolloutStep{shadowStep(10 * time.Minute)},
			Analysis: &v1alpha1.RolloutAnalysis{MinSamples: ptr.To[int32](1)},
		}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		Expect(rolloutIn(pool, v1alpha1.RolloutProgressing, timeout).Status.Rollout.StepKind).To(Equal(v1alpha1.StepShadow))
		judged := func() int64 {
			w, _ := op.sched.Window(pool, false)
			return w.Shadow.Judged
		}

		By("a tenant's reviews, with a draft whose extender holds every call")
		id := rand.String(5)
		ext := fakeextender.StartHeld()
		DeferCleanup(ext.Close)
		// Every call enters; the held ones, and those after the release,
		// are drained here so none waits on the channel.
		var entered atomic.Int32
		drained := make(chan struct{})
		DeferCleanup(func() { close(drained) })
		go func() {
			for {
				select {
				case <-ext.Entered:
					entered.Add(1)
				case <-drained:
					return
				}
			}
		}()
		ec := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "held-" + id}, Spec: v1alpha1.ExtenderConfigSpec{
			URLPrefix: ext.URL, FilterVerb: "filter", HTTPTimeout: &metav1.Duration{Duration: time.Minute}}}
		Expect(k8s.Create(suiteCtx, ec)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, ec))).To(Succeed()) })
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(ec), ec)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(ec.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		}).WithTimeout(timeout).Should(Succeed())
		tenant := createNamespace("tenant")
		// A pod nobody schedules, for the what-if reviews to place.
		idle := "idle-" + id
		createPod(tenant, "waiting", idle, requestingNothing)
		template := &v1alpha1.ReviewPodTemplate{Spec: v1alpha1.PodSpecTemplate(corev1.PodSpec{
			SchedulerName: idle, Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}})}
		draft := &v1alpha1.SchedulerProfileSpec{Extenders: []string{ec.Name}}
		created := make([]*v1alpha1.SchedulingReview, 0, reviews)
		for i := range reviews {
			spec := v1alpha1.SchedulingReviewSpec{ProfileSpec: draft, PodTemplate: template}
			if i%2 == 1 {
				spec = v1alpha1.SchedulingReviewSpec{ProfileSpec: draft, PendingPods: true, SchedulerName: idle}
			}
			sr := newReview(tenant, fmt.Sprintf("r-%d", i), spec)
			Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
			created = append(created, sr)
		}
		Eventually(entered.Load).WithTimeout(timeout).Should(BeNumerically(">=", 1), "a review waits on the extender")

		By("the serving generation places pods and the shadow judges each, while the reviews wait")
		before := judged()
		for i := range 6 {
			boundNode(createPod(ns, fmt.Sprintf("s-%d", i), pool, onPool(pool), requestingNothing), timeout)
			Eventually(judged).WithTimeout(10*time.Second).WithPolling(50*time.Millisecond).Should(BeNumerically(">", before+int64(i)),
				"the shadow judged pod %d while the reviews held their snapshots", i)
		}
		Expect(ext.Answered()).To(BeZero(), "judged while every review still waited")

		By("every review is answered once the extender lets them through")
		ext.Release()
		for _, sr := range created {
			got := answered(sr)
			Expect(condition(got, v1alpha1.ConditionComplete)).NotTo(BeNil(), "%s: %+v", sr.Name, got.Status.Conditions)
		}
	})
})
