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

package controllers

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func TestBoundReviewStatus(t *testing.T) {
	g := NewWithT(t)
	pods := make([]v1alpha1.WhatIfPod, 700)
	for i := range pods {
		pods[i] = v1alpha1.WhatIfPod{Pod: fmt.Sprintf("ns/p-%d", i), Message: strings.Repeat("é", 3000)}
	}
	st := v1alpha1.SchedulingReviewStatus{
		WhatIf: &v1alpha1.WhatIfResult{Pods: pods},
		Result: &v1alpha1.PodReviewResult{Message: strings.Repeat("x", 40000), Preemption: &v1alpha1.PreemptionResult{Victims: make([]string, 600)}},
	}
	boundReviewStatus(&st)
	g.Expect(st.WhatIf.Pods).To(HaveLen(maxStatusItems))
	for _, p := range st.WhatIf.Pods {
		g.Expect(len(p.Message)).To(BeNumerically("<=", maxPodMessage))
		g.Expect(utf8.ValidString(p.Message)).To(BeTrue(), "cut on a rune boundary")
	}
	g.Expect(len(st.Result.Message)).To(BeNumerically("<=", maxStatusMessage))
	g.Expect(st.Result.Preemption.Victims).To(HaveLen(maxStatusItems))
}

func TestPluginArgsBounded(t *testing.T) {
	g := NewWithT(t)
	big := fmt.Sprintf(`{"scoringStrategy":{"type":"MostAllocated"},"pad":%q}`, strings.Repeat("x", v1alpha1.MaxPluginArgsBytes))
	_, refusal := convertProfile(profile("p", v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{
		{Name: "NodeResourcesFit", Args: runtime.RawExtension{Raw: []byte(big)}},
	}}), nil)
	g.Expect(refusal).NotTo(BeNil())
	g.Expect(refusal.Reason).To(Equal(v1alpha1.ReasonInvalidPluginArgs))
	g.Expect(refusal.Message).To(ContainSubstring("spec.pluginConfig[0].args"))
}
