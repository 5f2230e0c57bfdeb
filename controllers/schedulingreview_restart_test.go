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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

var _ = Describe("A SchedulingReview the operator was answering when it went away", func() {
	It("is answered Failed after the restart, not answered again", func() {
		ns := createNamespace("review-restart")
		op.stop()
		// As the operator that died left it: marked Answering by a
		// process that is gone.
		sr := newReview(ns, "interrupted", v1alpha1.SchedulingReviewSpec{PodName: "web"})
		Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
		sr.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionAnswering, Status: metav1.ConditionTrue,
			Reason: v1alpha1.ReasonAnswering, Message: "answered by operator process gone", LastTransitionTime: metav1.Now()}}
		Expect(k8s.Status().Update(suiteCtx, sr)).To(Succeed())
		fresh := newReview(ns, "fresh", v1alpha1.SchedulingReviewSpec{PodName: "web"})
		Expect(k8s.Create(suiteCtx, fresh)).To(Succeed())
		op = startOperator()

		got := answered(sr)
		failed := condition(got, v1alpha1.ConditionFailed)
		Expect(failed).NotTo(BeNil())
		Expect(failed.Reason).To(Equal(v1alpha1.ReasonOperatorRestarted))
		Expect(failed.Message).To(HavePrefix("the operator restarted while answering this review"))
		Expect(condition(got, v1alpha1.ConditionAnswering)).To(BeNil())

		By("a review no process was answering is answered as ever, and keeps no Answering condition")
		got = answered(fresh)
		Expect(condition(got, v1alpha1.ConditionFailed)).To(HaveField("Reason", v1alpha1.ReasonPodNotFound))
		Expect(condition(got, v1alpha1.ConditionAnswering)).To(BeNil())
	})
})
