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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/pluginargs"
)

// tieredArgs are the typed args of the test plugin "Tiered", registered
// with pluginargs.Register in init.
type tieredArgs struct {
	metav1.TypeMeta `json:",inline"`
	Tier            string `json:"tier"`
	Max             *int32 `json:"max,omitempty"`
}

func (a *tieredArgs) DeepCopyObject() runtime.Object {
	c := *a
	if a.Max != nil {
		c.Max = ptr.To(*a.Max)
	}
	return &c
}

const tieredName = "Tiered"

func init() {
	if err := pluginargs.Register(tieredName, &tieredArgs{}, func(o runtime.Object) {
		a := o.(*tieredArgs)
		if a.Max == nil {
			a.Max = ptr.To[int32](10)
		}
	}); err != nil {
		panic(err)
	}
}

func validateTiered(path *field.Path, o runtime.Object) error {
	a := o.(*tieredArgs)
	var errs field.ErrorList
	if a.Tier == "" {
		errs = append(errs, field.Required(path.Child("tier"), "names the tier"))
	}
	if *a.Max < 1 {
		errs = append(errs, field.Invalid(path.Child("max"), *a.Max, "must be at least 1"))
	}
	return errs.ToAggregate()
}

var testPlugins = Plugins{OutOfTree: []string{tieredName, "Plain"}, Validators: map[string]pluginargs.Validator{tieredName: validateTiered}}

func enableTiered(spec v1alpha1.SchedulerProfileSpec) v1alpha1.SchedulerProfileSpec {
	spec.Plugins = &v1alpha1.Plugins{Score: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: tieredName, Weight: ptr.To[int32](2)}}}}
	return spec
}

func tieredArgsOf(p *config.KubeSchedulerProfile) *tieredArgs {
	for _, pc := range p.PluginConfig {
		if pc.Name == tieredName {
			a, _ := pc.Args.(*tieredArgs)
			return a
		}
	}
	return nil
}

// TestPluginConfig converts profiles the way the reconciler and the webhook
// do (convertProfile, then checkPluginConfig) and checks what is accepted,
// what is refused and how the refusal names what is at fault.
func TestPluginConfig(t *testing.T) {
	fit := v1alpha1.PluginConfig{Name: "NodeResourcesFit", Args: args(`{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1}]}}`)}
	tests := []struct {
		name     string
		spec     v1alpha1.SchedulerProfileSpec
		plugins  Plugins
		reason   string
		contains []string
		check    func(g Gomega, p *config.KubeSchedulerProfile)
	}{{
		name:     "an entry naming no plugin is refused, naming the entry and the name",
		spec:     v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{fit, {Name: "NodeResourceFit", Args: args(`{"scoringStrategy":{"type":"MostAllocated"}}`)}}},
		plugins:  testPlugins,
		reason:   v1alpha1.ReasonUnknownPlugin,
		contains: []string{"spec.pluginConfig[1].name", `"NodeResourceFit"`},
	}, {
		name:     "an out-of-tree plugin the scheduler was not built with is unknown",
		spec:     v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: "Plain", Args: args(`{"x":1}`)}}},
		reason:   v1alpha1.ReasonUnknownPlugin,
		contains: []string{"spec.pluginConfig[0].name", `"Plain"`},
	}, {
		name:    "an out-of-tree plugin without typed args gets its args raw",
		spec:    v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: "Plain", Args: args(`{"x":1}`)}}},
		plugins: testPlugins,
		check: func(g Gomega, p *config.KubeSchedulerProfile) {
			var raw runtime.Object
			for _, pc := range p.PluginConfig {
				if pc.Name == "Plain" {
					raw = pc.Args
				}
			}
			g.Expect(raw).To(BeAssignableToTypeOf(&runtime.Unknown{}))
			g.Expect(string(raw.(*runtime.Unknown).Raw)).To(MatchJSON(`{"x":1}`))
		},
	}, {
		name:    "typed out-of-tree args are decoded into their type and defaulted",
		spec:    enableTiered(v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: tieredName, Args: args(`{"tier":"gold"}`)}}}),
		plugins: testPlugins,
		check: func(g Gomega, p *config.KubeSchedulerProfile) {
			a := tieredArgsOf(p)
			g.Expect(a).NotTo(BeNil())
			g.Expect(a.Tier).To(Equal("gold"))
			g.Expect(a.Max).To(Equal(ptr.To[int32](10)))
		},
	}, {
		name:    "a profile that runs the plugin without an entry gets its default args",
		spec:    enableTiered(v1alpha1.SchedulerProfileSpec{}),
		plugins: Plugins{OutOfTree: []string{tieredName}},
		check: func(g Gomega, p *config.KubeSchedulerProfile) {
			a := tieredArgsOf(p)
			g.Expect(a).NotTo(BeNil())
			g.Expect(a.Max).To(Equal(ptr.To[int32](10)))
		},
	}, {
		name:     "the validator checks defaulted args too, naming the plugin's entry",
		spec:     enableTiered(v1alpha1.SchedulerProfileSpec{}),
		plugins:  testPlugins,
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"plugin Tiered", "spec.pluginConfig[Tiered].args.tier", "Required value"},
	}, {
		name:     "an unknown field in typed out-of-tree args is refused, naming the field and the plugin",
		spec:     enableTiered(v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: tieredName, Args: args(`{"tier":"gold","tierr":"silver"}`)}}}),
		plugins:  testPlugins,
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"plugin Tiered", "unknown field spec.pluginConfig[0].args.tierr"},
	}, {
		name:     "a wrongly typed field is refused, naming the plugin",
		spec:     enableTiered(v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: tieredName, Args: args(`{"tier":"gold","max":"many"}`)}}}),
		plugins:  testPlugins,
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"Tiered"},
	}, {
		name:     "args the validator rejects are refused, naming the plugin and the field",
		spec:     enableTiered(v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{fit, {Name: tieredName, Args: args(`{"tier":"gold","max":0}`)}}}),
		plugins:  testPlugins,
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"plugin Tiered", "spec.pluginConfig[1].args.max", "must be at least 1"},
	}, {
		name:    "args for a registered plugin the profile does not run are accepted",
		spec:    v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: tieredName, Args: args(`{"tier":"gold"}`)}}},
		plugins: testPlugins,
		check: func(g Gomega, p *config.KubeSchedulerProfile) {
			g.Expect(tieredArgsOf(p).Tier).To(Equal("gold"))
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			sp := profile("p", tt.spec)
			p, refusal := tt.plugins.convert(sp, nil)
			expectConverted(t, g, p, refusal, tt.reason, tt.contains, tt.check)
		})
	}
}

func TestUnusedPluginConfig(t *testing.T) {
	running := &config.Plugins{
		QueueSort: config.PluginSet{Enabled: []config.Plugin{{Name: "PrioritySort"}}},
		PreFilter: config.PluginSet{Enabled: []config.Plugin{{Name: "NodeResourcesFit"}}},
		Score:     config.PluginSet{Enabled: []config.Plugin{{Name: tieredName, Weight: 2}}},
		Bind:      config.PluginSet{Enabled: []config.Plugin{{Name: "DefaultBinder"}}},
	}
	g := NewWithT(t)
	g.Expect(unusedPluginConfig([]v1alpha1.PluginConfig{{Name: "NodeResourcesFit"}, {Name: tieredName}}, running)).To(BeEmpty())
	g.Expect(unusedPluginConfig([]v1alpha1.PluginConfig{{Name: "NodeResourcesFit"}, {Name: "PodTopologySpread"}}, running)).To(Equal([]string{
		`spec.pluginConfig[1] configures plugin "PodTopologySpread", which this profile does not run`,
	}))
	g.Expect(unusedPluginConfig([]v1alpha1.PluginConfig{{Name: "PodTopologySpread"}}, nil)).To(BeEmpty(), "nothing known to run: nothing to say")
}

func TestReadyMessageNamesUnusedPluginConfig(t *testing.T) {
	g := NewWithT(t)
	running := &config.Plugins{Bind: config.PluginSet{Enabled: []config.Plugin{{Name: "DefaultBinder"}}}}
	spec := &v1alpha1.SchedulerProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: "DefaultBinder"}, {Name: "InterPodAffinity"}}}
	st := profileStatus(v1alpha1.SchedulerProfileStatus{}, profileOutcome{
		Generation: 2, SchedulerName: "p", ActiveGeneration: 2, Plugins: running, ActiveSpec: spec,
	}, metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	ready := cond(st.Conditions, v1alpha1.ConditionReady)
	g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(ready.Reason).To(Equal(v1alpha1.ReasonActive))
	g.Expect(ready.Message).To(Equal(fmt.Sprintf(`generation 2 serves pods with schedulerName "p"; warning: %s`,
		`spec.pluginConfig[1] configures plugin "InterPodAffinity", which this profile does not run`)))
}

func TestGangSchedulingIgnoredOnlyWithTheGateOn(t *testing.T) {
	g := NewWithT(t)
	without := &config.Plugins{Bind: config.PluginSet{Enabled: []config.Plugin{{Name: "DefaultBinder"}}}}
	with := &config.Plugins{PreEnqueue: config.PluginSet{Enabled: []config.Plugin{{Name: "GangScheduling"}}}}
	g.Expect(gangSchedulingIgnored(without)).To(BeEmpty(), "gate off: pod groups are not scheduled as groups at all")
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	g.Expect(gangSchedulingIgnored(with)).To(BeEmpty())
	g.Expect(gangSchedulingIgnored(nil)).To(BeEmpty(), "nothing known to run: nothing to say")
	g.Expect(profileWarnings([]v1alpha1.PluginConfig{{Name: "InterPodAffinity"}}, without)).To(Equal([]profileWarning{
		{reason: v1alpha1.EventUnusedPluginConfig, message: `spec.pluginConfig[0] configures plugin "InterPodAffinity", which this profile does not run`},
		{reason: v1alpha1.EventGangSchedulingDisabled, message: "plugin GangScheduling is not enabled while the GenericWorkload feature gate is on: pod groups' minCount will be ignored under this profile"},
	}))
}
