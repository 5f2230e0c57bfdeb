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
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func admitted(sp *v1alpha1.SchedulerProfile) *v1alpha1.SchedulerProfile {
	sp.Labels = map[string]string{admissionLabel: "true"}
	return sp
}

var _ = Describe("Admission webhook", func() {
	BeforeEach(func() {
		// The operator patches its self-signed CA into the configuration.
		Eventually(func(g Gomega) {
			vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: webhookConfig}, vwc)).To(Succeed())
			g.Expect(vwc.Webhooks[0].ClientConfig.CABundle).NotTo(BeEmpty())
		}).WithTimeout(timeout).Should(Succeed())
	})

	DescribeTable("rejects a profile whose framework cannot be built, naming the plugin",
		func(sp *v1alpha1.SchedulerProfile, mentions ...string) {
			var err error
			Eventually(func() error {
				err = k8s.Create(suiteCtx, admitted(sp.DeepCopy()))
				if err == nil {
					return nil
				}
				if apierrors.IsInvalid(err) {
					return nil
				}
				return err // the webhook server may still be starting
			}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
			Expect(err).To(HaveOccurred(), "%s was admitted", sp.Name)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), err.Error())
			for _, m := range mentions {
				Expect(err.Error()).To(ContainSubstring(m))
			}
		},
		Entry("unknown plugin", newProfile("wh-unknown", v1alpha1.SchedulerProfileSpec{
			Plugins: &v1alpha1.Plugins{Score: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchScorer", Weight: ptr.To[int32](2)}}}},
		}), "UnknownPlugin", `"NoSuchScorer" does not exist`),
		Entry("unknown field in args", newProfile("wh-bad-args", v1alpha1.SchedulerProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{"scoringStrategy":{"type":"MostAllocated"},"bogus":1}`)}},
		}), "InvalidPluginArgs", "NodeResourcesFit", "unknown field spec.pluginConfig[0].args.bogus"),
		Entry("args the plugin refuses", newProfile("wh-args-value", v1alpha1.SchedulerProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{"scoringStrategy":{"type":"Biggest"}}`)}},
		}), "NodeResourcesFit", "Biggest"),
		Entry("default-scheduler", newProfile("wh-default", v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("default-scheduler")}),
			"DefaultSchedulerReserved"),
		Entry("a rollout metric's successCondition that is no bool", newProfile("wh-metric", v1alpha1.SchedulerProfileSpec{Rollout: &v1alpha1.Rollout{
			Steps:    []v1alpha1.RolloutStep{{Canary: &v1alpha1.CanaryStep{Percent: 10, Duration: metav1.Duration{Duration: time.Minute}}}},
			Analysis: &v1alpha1.RolloutAnalysis{Metrics: []v1alpha1.AnalysisMetric{{Name: "queue-wait", Query: "up", SuccessCondition: "result"}}},
		}}), "InvalidSpec", `spec.rollout.analysis.metrics[0].successCondition: metric "queue-wait": the condition is a list(double), not a bool`),
	)

	It("lets the controller manage and delete a bad profile created before the webhook saw it", func() {
		// Not selected by the webhook at creation: the controller refuses it.
		Expect(k8s.Create(suiteCtx, newProfile("wh-preexisting", v1alpha1.SchedulerProfileSpec{
			Plugins: &v1alpha1.Plugins{Filter: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchFilter"}}}},
		}))).To(Succeed())
		expectRefused("wh-preexisting", v1alpha1.ReasonUnknownPlugin, timeout)
		// Now selected: an update of metadata alone is admitted.
		sp := getProfile("wh-preexisting")
		sp.Labels = map[string]string{admissionLabel: "true", "team": "a"}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		deleteProfile("wh-preexisting")
	})

	It("admits a good profile, which then goes live", func() {
		Eventually(func() error {
			return k8s.Create(suiteCtx, admitted(newProfile("wh-good", v1alpha1.SchedulerProfileSpec{PluginConfig: fitArgs("MostAllocated")})))
		}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
		expectLive("wh-good", timeout)

		By("an update to a bad spec is rejected too, and the live generation stays")
		sp := getProfile("wh-good")
		sp.Spec.Plugins = &v1alpha1.Plugins{Filter: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchFilter"}}}}
		err := k8s.Update(suiteCtx, sp)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("NoSuchFilter"))
		Expect(expectLive("wh-good", timeout).Generation).To(BeEquivalentTo(1))
		deleteProfile("wh-good")
	})
})
