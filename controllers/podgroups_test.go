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
	"k8s.io/apimachinery/pkg/api/meta"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// pluginsAt returns the names status lists at an extension point.
func pluginsAt(sp *v1alpha1.SchedulerProfile, point string) []string {
	var out []string
	for _, ep := range sp.Status.Plugins {
		if ep.ExtensionPoint == point {
			for _, p := range ep.Plugins {
				out = append(out, p.Name)
			}
		}
	}
	return out
}

var _ = Describe("Profiles with the GenericWorkload gate on", func() {
	BeforeEach(func() {
		featuregatetesting.SetFeatureGateDuringTest(GinkgoTB(), utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	})

	It("lists upstream's pod-group plugins in status for the default plugin set", func() {
		Expect(k8s.Create(suiteCtx, newProfile("gang-default", v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
		sp := expectLive("gang-default", timeout)
		Expect(pluginsAt(sp, "PreEnqueue")).To(ContainElement("GangScheduling"))
		Expect(pluginsAt(sp, "Permit")).To(ContainElement("GangScheduling"))
		// As upstream's defaults: PodGroupPodsCount and the placement
		// generator come with TopologyAwareWorkloadScheduling only.
		Expect(pluginsAt(sp, "PlacementScore")).NotTo(ContainElement("PodGroupPodsCount"))
		Expect(pluginsAt(sp, "PodGroupPostFilter")).To(ContainElement("DefaultPreemption"))
		Expect(readyMessage(sp)).NotTo(ContainSubstring("warning"))
		deleteProfile("gang-default")
	})

	It("accepts a profile without GangScheduling, and says that pod groups' minCount is ignored under it", func() {
		spec := v1alpha1.SchedulerProfileSpec{
			Plugins: &v1alpha1.Plugins{MultiPoint: v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "GangScheduling"}}}},
		}
		const want = "plugin GangScheduling is not enabled while the GenericWorkload feature gate is on: pod groups' minCount will be ignored under this profile"

		By("the webhook admits it with a warning")
		wk8s, warnings := warningClient()
		Eventually(func() error {
			return wk8s.Create(suiteCtx, admitted(newProfile("gang-off", spec)))
		}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(warnings.get()).To(ContainElement(want))

		By("status and a Warning event say so")
		sp := expectLive("gang-off", timeout)
		Expect(pluginsAt(sp, "PreEnqueue")).NotTo(ContainElement("GangScheduling"))
		ready := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady)
		Expect(ready.Message).To(ContainSubstring(want))
		Eventually(func() []string { return eventReasons("gang-off") }).WithTimeout(timeout).
			Should(ContainElements(v1alpha1.EventActivated, v1alpha1.EventGangSchedulingDisabled))
		deleteProfile("gang-off")
	})
})
