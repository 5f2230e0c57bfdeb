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
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func profile(name string, spec v1alpha1.SchedulerProfileSpec) *v1alpha1.SchedulerProfile {
	return &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1}, Spec: spec}
}

func args(json string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(json)} }

func enabledNames(ps config.PluginSet) []string {
	var out []string
	for _, p := range ps.Enabled {
		out = append(out, p.Name)
	}
	return out
}

// convertProfileCase is one case of TestConvertProfile; FuzzConvertProfile
// seeds its corpus with every one.
type convertProfileCase struct {
	name      string
	spec      v1alpha1.SchedulerProfileSpec
	extenders []config.Extender
	reason    string
	contains  []string
	check     func(g Gomega, p *config.KubeSchedulerProfile)
}

func convertProfileCases() []convertProfileCase {
	mostAllocated := v1alpha1.PluginConfig{Name: "NodeResourcesFit", Args: args(`{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1}]}}`)}
	return []convertProfileCase{{
		name: "empty spec means the default plugin set under metadata.name",
		check: func(g Gomega, p *config.KubeSchedulerProfile) {
			g.Expect(p.SchedulerName).To(Equal("p"))
			g.Expect(enabledNames(p.Plugins.MultiPoint)).To(ContainElements("PrioritySort", "NodeResourcesFit", "DefaultBinder", "PodTopologySpread"))
			var names []string
			for _, pc := range p.PluginConfig {
				names = append(names, pc.Name)
			}
			g.Expect(names).To(ContainElements("NodeResourcesFit", "DefaultPreemption", "PodTopologySpread"))
		},
	}, {
		name: "plugin args decode into typed internal args with defaults",
		spec: v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("bin-packing"), PercentageOfNodesToScore: ptr.To[int32](40), PluginConfig: []v1alpha1.PluginConfig{mostAllocated}},
		check: func(g Gomega, p *config.KubeSchedulerProfile) {
			g.Expect(p.SchedulerName).To(Equal("bin-packing"))
			g.Expect(*p.PercentageOfNodesToScore).To(BeEquivalentTo(40))
			var fit *config.NodeResourcesFitArgs
			for _, pc := range p.PluginConfig {
				if a, ok := pc.Args.(*config.NodeResourcesFitArgs); ok {
					fit = a
				}
			}
			g.Expect(fit).NotTo(BeNil())
			g.Expect(fit.ScoringStrategy.Type).To(Equal(config.MostAllocated))
		},
	}, {
		name: "explicit plugins are merged with the defaults",
		spec: v1alpha1.SchedulerProfileSpec{Plugins: &v1alpha1.Plugins{Score: v1alpha1.PluginSet{
			Disabled: []v1alpha1.Plugin{{Name: "*"}},
			Enabled:  []v1alpha1.Plugin{{Name: "NodeResourcesFit", Weight: ptr.To[int32](5)}},
		}}},
		check: func(g Gomega, p *config.KubeSchedulerProfile) {
			g.Expect(enabledNames(p.Plugins.Score)).To(Equal([]string{"NodeResourcesFit"}))
			g.Expect(p.Plugins.Score.Enabled[0].Weight).To(BeEquivalentTo(5))
		},
	}, {
		name:     "unknown field in plugin args is refused, naming the plugin",
		spec:     v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: args(`{"scoringStrategy":{"type":"MostAllocated"},"notAField":1}`)}}},
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"NodeResourcesFit", "notAField", "unknown field spec.pluginConfig[0].args.notAField"},
	}, {
		name: "unknown fields nested in plugin args are refused, naming their paths",
		spec: v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{
			{Name: "PodTopologySpread", Args: args(`{"defaultingType":"List"}`)},
			{Name: "NodeResourcesFit", Args: args(`{"scoringStrategy":{"type":"MostAllocated","typo":1},"other":2}`)},
		}},
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"plugin NodeResourcesFit", "spec.pluginConfig[1].args.scoringStrategy.typo", "spec.pluginConfig[1].args.other"},
	}, {
		name:     "wrongly typed plugin args are refused, naming the plugin",
		spec:     v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: "PodTopologySpread", Args: args(`{"defaultingType":7}`)}}},
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"PodTopologySpread"},
	}, {
		name:     "plugin args that fail upstream validation are refused, naming the plugin and field",
		spec:     v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{mostAllocated, {Name: "InterPodAffinity", Args: args(`{"hardPodAffinityWeight":500}`)}}},
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"plugin InterPodAffinity", "spec.pluginConfig[1].args.hardPodAffinityWeight", "500"},
	}, {
		name:     "duplicate plugin config",
		spec:     v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{mostAllocated, mostAllocated}},
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"spec.pluginConfig[1]", "Duplicate"},
	}, {
		name: "two queueSort plugins (the CRD schema refuses this too)",
		spec: v1alpha1.SchedulerProfileSpec{Plugins: &v1alpha1.Plugins{QueueSort: v1alpha1.PluginSet{
			Disabled: []v1alpha1.Plugin{{Name: "*"}},
			Enabled:  []v1alpha1.Plugin{{Name: "PrioritySort"}, {Name: "OtherSort"}},
		}}},
		reason:   v1alpha1.ReasonInvalidSpec,
		contains: []string{"queue sort", "spec.plugins.queueSort"},
	}, {
		name:     "removed plugin",
		spec:     v1alpha1.SchedulerProfileSpec{Plugins: &v1alpha1.Plugins{Filter: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "EBSLimits"}}}}},
		reason:   v1alpha1.ReasonInvalidSpec,
		contains: []string{"EBSLimits"},
	}, {
		name:     "percentage out of range",
		spec:     v1alpha1.SchedulerProfileSpec{PercentageOfNodesToScore: ptr.To[int32](101)},
		reason:   v1alpha1.ReasonInvalidSpec,
		contains: []string{"spec.percentageOfNodesToScore"},
	}, {
		name:      "two binding extenders",
		extenders: []config.Extender{{URLPrefix: "http://a", BindVerb: "bind"}, {URLPrefix: "http://b", BindVerb: "bind"}},
		reason:    v1alpha1.ReasonInvalidSpec,
		contains:  []string{"only one extender can implement bind"},
	}}
}

func TestConvertProfile(t *testing.T) {
	for _, tt := range convertProfileCases() {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			p, refusal := convertProfile(profile("p", tt.spec), tt.extenders)
			expectConverted(t, g, p, refusal, tt.reason, tt.contains, tt.check)
		})
	}
}

// expectConverted checks a conversion against a table case: with no reason
// it is not refused and check passes on p; with one, it is refused for that
// reason with a message holding each of contains.
func expectConverted(t *testing.T, g Gomega, p *config.KubeSchedulerProfile, refusal *Refusal, reason string, contains []string, check func(Gomega, *config.KubeSchedulerProfile)) {
	t.Helper()
	if reason == "" {
		g.Expect(refusal).To(BeNil())
		check(g, p)
		return
	}
	g.Expect(refusal).NotTo(BeNil())
	t.Log(refusal.Message)
	g.Expect(refusal.Reason).To(Equal(reason), refusal.Message)
	for _, s := range contains {
		g.Expect(refusal.Message).To(ContainSubstring(s))
	}
}

func TestBuildRefusal(t *testing.T) {
	tests := []struct {
		err    error
		reason string
	}{
		{fmt.Errorf("building framework for %q: %w", "p", errors.New(`FilterPlugin "NoSuchPlugin" does not exist`)), v1alpha1.ReasonUnknownPlugin},
		{errors.New(`plugin "PrioritySort" does not extend FilterPlugin plugin`), v1alpha1.ReasonUnknownPlugin},
		{errors.New(`initializing plugin "NodeResourcesFit": bad`), v1alpha1.ReasonInvalidPluginArgs},
		{errors.New(`only one queue sort plugin required for profile with scheduler name "p", but got 0`), v1alpha1.ReasonInvalidSpec},
		{errors.New(`at least one bind plugin is needed for profile with scheduler name "p"`), v1alpha1.ReasonInvalidSpec},
		{errors.New(`initializing plugin "Boom": plugin Boom panicked while being built: boom`), v1alpha1.ReasonBuildFailed},
		{errors.New("something else"), v1alpha1.ReasonBuildFailed},
		{fmt.Errorf("wrapped: %w", refuse(v1alpha1.ReasonInvalidTLS, "x")), v1alpha1.ReasonInvalidTLS},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			g := NewWithT(t)
			r := buildRefusal(tt.err)
			g.Expect(r.Reason).To(Equal(tt.reason))
		})
	}
}
