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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv/fakeextender"
)

var _ = Describe("SchedulingReviews of two namespaces", func() {
	It("answers one namespace's small review while another's scenario runs", func() {
		id := rand.String(5)
		// The draft's extender holds each filter call until released.
		ext := fakeextender.StartHeld()
		DeferCleanup(ext.Close)
		ec := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "slow-" + id}, Spec: v1alpha1.ExtenderConfigSpec{
			URLPrefix: ext.URL, FilterVerb: "filter", HTTPTimeout: &metav1.Duration{Duration: time.Minute}}}
		Expect(k8s.Create(suiteCtx, ec)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, ec))).To(Succeed()) })
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(ec), ec)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(ec.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		}).WithTimeout(timeout).Should(Succeed())
		live := "sr-two-" + id
		Expect(k8s.Create(suiteCtx, newProfile(live, v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
		DeferCleanup(deleteProfile, live)
		expectLive(live, timeout)

		template := &v1alpha1.ReviewPodTemplate{Spec: v1alpha1.PodSpecTemplate(corev1.PodSpec{
			SchedulerName: live, Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}})}
		long := newReview(createNamespace("review-long"), "long", v1alpha1.SchedulingReviewSpec{
			ProfileSpec: &v1alpha1.SchedulerProfileSpec{Extenders: []string{ec.Name}},
			Scenario:    &v1alpha1.ReviewScenario{Pods: []v1alpha1.ScenarioPods{{PodTemplate: template, Replicas: 1}}},
		})
		Expect(k8s.Create(suiteCtx, long)).To(Succeed())
		Eventually(ext.Entered).WithTimeout(timeout).Should(Receive(), "the scenario's run calls the extender")

		By("another namespace's review, while the scenario's run waits on its extender")
		small := newReview(createNamespace("review-small"), "small", v1alpha1.SchedulingReviewSpec{Profile: live, PodTemplate: template})
		Expect(k8s.Create(suiteCtx, small)).To(Succeed())
		got := answered(small)
		Expect(condition(got, v1alpha1.ConditionComplete)).NotTo(BeNil(), "%+v", got.Status.Conditions)
		Expect(ext.Answered()).To(BeZero(), "answered while the scenario still ran")

		ext.Release()
		got = answered(long)
		Expect(condition(got, v1alpha1.ConditionComplete)).NotTo(BeNil(), "%+v", got.Status.Conditions)
	})
})
