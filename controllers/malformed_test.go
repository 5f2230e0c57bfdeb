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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// Objects written as JSON, past the Go types, the way kubectl apply or a
// GitOps tool writes them: whatever the API server accepts in a schemaless
// field must not stop the operator's informer for that kind, so every
// other object of the kind is still served (DESIGN contract 11).

func unstructuredObject(kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind(kind))
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func deleteObject(obj client.Object) {
	Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, obj))).To(Succeed())
}

var _ = Describe("A malformed object of ours", func() {
	var ns string
	BeforeEach(func() {
		ns = createNamespace("malformed")
	})

	DescribeTable("in a review's pod template fails that review alone, naming the field, and the others are answered",
		func(podSpec map[string]any, field string) {
			bad := unstructuredObject("SchedulingReview", ns, "bad", map[string]any{
				"podTemplate":             map[string]any{"spec": podSpec},
				"ttlSecondsAfterFinished": int64(2),
			})
			Expect(k8s.Create(suiteCtx, bad)).To(Succeed(), "the API server stores it: the pod spec has no schema")
			DeferCleanup(deleteObject, bad)

			good := newReview(ns, "good", v1alpha1.SchedulingReviewSpec{PodTemplate: &v1alpha1.ReviewPodTemplate{
				Spec: v1alpha1.PodSpecTemplate(corev1.PodSpec{SchedulerName: "nobody", Containers: []corev1.Container{{Name: "c", Image: "pause"}}}),
			}})
			Expect(k8s.Create(suiteCtx, good)).To(Succeed())
			DeferCleanup(deleteObject, good)
			Expect(condition(answered(good), v1alpha1.ConditionFailed)).To(HaveField("Reason", v1alpha1.ReasonProfileNotServing),
				"a review created after the malformed one is answered")

			got := answered(newReview(ns, "bad", v1alpha1.SchedulingReviewSpec{}))
			failed := condition(got, v1alpha1.ConditionFailed)
			Expect(failed).NotTo(BeNil())
			Expect(failed.Reason).To(Equal(v1alpha1.ReasonInvalidPodTemplate))
			Expect(failed.Message).To(HavePrefix(field))
			Expect(got.Status.Result).To(BeNil())

			By("expiring after its TTL, like any answered review")
			Eventually(func() bool {
				return apierrors.IsNotFound(k8s.Get(suiteCtx, client.ObjectKeyFromObject(bad), &v1alpha1.SchedulingReview{}))
			}).WithTimeout(timeout).Should(BeTrue())
		},
		Entry("containers as a string", map[string]any{"containers": "not-a-list"},
			`spec.podTemplate.spec.containers: Invalid value: "not-a-list": must be of type array`),
		Entry("a cpu request that is not a quantity",
			map[string]any{"containers": []any{map[string]any{"name": "c", "resources": map[string]any{"requests": map[string]any{"cpu": "two"}}}}},
			`spec.podTemplate.spec.containers[0].resources.requests[cpu]: Invalid value: "two": quantities must match`),
		Entry("an unknown field", map[string]any{"containers": []any{map[string]any{"name": "c", "image": "pause"}}, "nodeSelektor": map[string]any{}},
			`spec.podTemplate.spec.nodeSelektor: Invalid value: unknown field`),
	)

	It("in a profile's plugin args is refused at admission or refuses that profile alone, naming the field, and the others serve", func() {
		err := k8s.Create(suiteCtx, unstructuredObject("SchedulerProfile", "", "malformed-args", map[string]any{
			"pluginConfig": []any{map[string]any{"name": "NodeResourcesFit", "args": "not-an-object"}},
		}))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "args that are no object: %v", err)
		Expect(err.Error()).To(ContainSubstring("spec.pluginConfig[0].args"))

		// Inside args nothing has a schema: the API server stores these.
		for name, args := range map[string]map[string]any{
			"malformed-args-type":  {"scoringStrategy": "MostAllocated"},
			"malformed-args-inner": {"scoringStrategy": map[string]any{"type": "MostAllocated", "resources": []any{map[string]any{"name": "cpu", "weight": "heavy"}}}},
		} {
			Expect(k8s.Create(suiteCtx, unstructuredObject("SchedulerProfile", "", name, map[string]any{
				"pluginConfig": []any{map[string]any{"name": "NodeResourcesFit", "args": args}},
			}))).To(Succeed())
			DeferCleanup(deleteProfile, name)
		}

		Expect(k8s.Create(suiteCtx, newProfile("after-malformed", v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
		DeferCleanup(deleteProfile, "after-malformed")
		expectLive("after-malformed", timeout)

		for name, field := range map[string]string{
			"malformed-args-type":  "spec.pluginConfig[0].args.scoringStrategy",
			"malformed-args-inner": "spec.pluginConfig[0].args.scoringStrategy.resources[0].weight",
		} {
			sp := expectRefused(name, v1alpha1.ReasonInvalidPluginArgs, timeout)
			Expect(readyMessage(sp)).To(ContainSubstring("NodeResourcesFit"))
			Expect(readyMessage(sp)).To(ContainSubstring(field))
		}
	})

	It("in an ExtenderConfig is refused at admission by its schema, naming the field, and the others serve", func() {
		for field, value := range map[string]any{
			"httpTimeout": "forever",
			"weight":      "heavy",
			"urlPrefix":   map[string]any{"a": "b"},
		} {
			spec := map[string]any{"urlPrefix": "http://127.0.0.1:1/", "filterVerb": "filter"}
			spec[field] = value
			err := k8s.Create(suiteCtx, unstructuredObject("ExtenderConfig", "", "malformed-extender", spec))
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%s: %v", field, err)
			Expect(err.Error()).To(ContainSubstring("spec." + field))
		}

		ec := &v1alpha1.ExtenderConfig{Spec: v1alpha1.ExtenderConfigSpec{URLPrefix: "http://127.0.0.1:1/", FilterVerb: "filter", Ignorable: true, Weight: 1}}
		ec.Name = "after-malformed"
		Expect(k8s.Create(suiteCtx, ec)).To(Succeed())
		DeferCleanup(deleteObject, ec)
		Eventually(func(g Gomega) {
			got := &v1alpha1.ExtenderConfig{}
			g.Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(ec), got)).To(Succeed())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())
	})
})
