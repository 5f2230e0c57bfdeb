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
	"testing"

	. "github.com/onsi/gomega"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// TestRefusalsNameTheField: the refusals a user is likely to meet name the
// full path of the field at fault, once, with the value and what was
// expected.
func TestRefusalsNameTheField(t *testing.T) {
	enable := func(set func(*v1alpha1.Plugins, v1alpha1.PluginSet), name string) v1alpha1.SchedulerProfileSpec {
		p := &v1alpha1.Plugins{}
		set(p, v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NodeAffinity"}, {Name: name}}})
		return v1alpha1.SchedulerProfileSpec{Plugins: p}
	}
	config := func(name, json string) v1alpha1.SchedulerProfileSpec {
		return v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeAffinity", Args: args(`{}`)}, {Name: name, Args: args(json)}}}
	}
	for _, tc := range []struct {
		name   string
		spec   v1alpha1.SchedulerProfileSpec
		reason string
		want   string
	}{
		{"misspelled score plugin", enable(func(p *v1alpha1.Plugins, s v1alpha1.PluginSet) { p.Score = s }, "NodeResourceFit"), v1alpha1.ReasonUnknownPlugin,
			`spec.plugins.score.enabled[1].name: plugin "NodeResourceFit" does not exist (neither in-tree nor out-of-tree); did you mean "NodeResourcesFit"?`},
		{"misspelled filter plugin", enable(func(p *v1alpha1.Plugins, s v1alpha1.PluginSet) { p.Filter = s }, "TaintTolerations"), v1alpha1.ReasonUnknownPlugin,
			`spec.plugins.filter.enabled[1].name: plugin "TaintTolerations" does not exist (neither in-tree nor out-of-tree); did you mean "TaintToleration"?`},
		{"misspelled multiPoint plugin", enable(func(p *v1alpha1.Plugins, s v1alpha1.PluginSet) { p.MultiPoint = s }, "PodTopologySpreads"), v1alpha1.ReasonUnknownPlugin,
			`spec.plugins.multiPoint.enabled[1].name: plugin "PodTopologySpreads" does not exist (neither in-tree nor out-of-tree); did you mean "PodTopologySpread"?`},
		{"misspelled preFilter plugin", enable(func(p *v1alpha1.Plugins, s v1alpha1.PluginSet) { p.PreFilter = s }, "InterPodAfinity"), v1alpha1.ReasonUnknownPlugin,
			`spec.plugins.preFilter.enabled[1].name: plugin "InterPodAfinity" does not exist (neither in-tree nor out-of-tree); did you mean "InterPodAffinity"?`},
		{"misspelled postFilter plugin", enable(func(p *v1alpha1.Plugins, s v1alpha1.PluginSet) { p.PostFilter = s }, "DefaultPreemptions"), v1alpha1.ReasonUnknownPlugin,
			`spec.plugins.postFilter.enabled[1].name: plugin "DefaultPreemptions" does not exist (neither in-tree nor out-of-tree); did you mean "DefaultPreemption"?`},
		{"misspelled bind plugin", enable(func(p *v1alpha1.Plugins, s v1alpha1.PluginSet) { p.Bind = s }, "DefaultBind"), v1alpha1.ReasonUnknownPlugin,
			`spec.plugins.bind.enabled[1].name: plugin "DefaultBind" does not exist (neither in-tree nor out-of-tree); did you mean "DefaultBinder"?`},
		{"a name like no plugin", enable(func(p *v1alpha1.Plugins, s v1alpha1.PluginSet) { p.Reserve = s }, "Completely"), v1alpha1.ReasonUnknownPlugin,
			`spec.plugins.reserve.enabled[1].name: plugin "Completely" does not exist (neither in-tree nor out-of-tree)`},
		{"misspelled pluginConfig name", config("NodeResourceFit", `{}`), v1alpha1.ReasonUnknownPlugin,
			`spec.pluginConfig[1].name: plugin "NodeResourceFit" is not registered (neither in-tree nor out-of-tree); its args would be ignored; did you mean "NodeResourcesFit"?`},
		{"misspelled args field", config("NodeResourcesFit", `{"scoringStrategyy":{"type":"MostAllocated"}}`), v1alpha1.ReasonInvalidPluginArgs,
			`plugin NodeResourcesFit: unknown field spec.pluginConfig[1].args.scoringStrategyy`},
		{"wrong enum", config("NodeResourcesFit", `{"scoringStrategy":{"type":"Nope"}}`), v1alpha1.ReasonInvalidPluginArgs,
			`plugin NodeResourcesFit: spec.pluginConfig[1].args.scoringStrategy.type: Unsupported value: "Nope": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`},
		{"wrong enum of another plugin", config("PodTopologySpread", `{"defaultingType":"Whatever"}`), v1alpha1.ReasonInvalidPluginArgs,
			`plugin PodTopologySpread: spec.pluginConfig[1].args.defaultingType: Unsupported value: "Whatever": supported values: "System", "List"`},
		{"wrong type", config("NodeResourcesFit", `{"ignoredResources":"x"}`), v1alpha1.ReasonInvalidPluginArgs,
			`plugin NodeResourcesFit: spec.pluginConfig[1].args.ignoredResources: Invalid value: "x": must be of type array`},
		{"out of range", config("InterPodAffinity", `{"hardPodAffinityWeight":1000}`), v1alpha1.ReasonInvalidPluginArgs,
			`plugin InterPodAffinity: spec.pluginConfig[1].args.hardPodAffinityWeight: Invalid value: 1000: not in valid range [0, 100]`},
		{"a resource weight out of range", config("NodeResourcesFit", `{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1000}]}}`), v1alpha1.ReasonInvalidPluginArgs,
			`plugin NodeResourcesFit: spec.pluginConfig[1].args.scoringStrategy.resources[0].weight: Invalid value: 1000: resource weight of cpu not in valid range (0, 100]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			_, r := Plugins{}.convert(profile("p", tc.spec), nil)
			g.Expect(r).NotTo(BeNil())
			g.Expect(r.Reason).To(Equal(tc.reason))
			g.Expect(r.Message).To(Equal(tc.want))
		})
	}
}
