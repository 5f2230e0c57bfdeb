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

package testenv

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// ProfileRefusal is a SchedulerProfile that the CRD's schema admits and
// the operator refuses: its status's Ready reason, and what the message
// names. The controllers' spec runs each through the operator; package
// lint's test runs each through lint, which must refuse it alike.
type ProfileRefusal struct {
	Description string
	Profile     *v1alpha1.SchedulerProfile
	Reason      string
	Mentions    []string
}

// ProfileRefusals is the table. Their plugins are upstream's in-tree ones
// and SecondSort.
func ProfileRefusals() []ProfileRefusal {
	profile := func(name string, spec v1alpha1.SchedulerProfileSpec) *v1alpha1.SchedulerProfile {
		return &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
	}
	raw := func(json string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(json)} }
	return []ProfileRefusal{
		{"unknown plugin", profile("refused-unknown-plugin", v1alpha1.SchedulerProfileSpec{
			Plugins: &v1alpha1.Plugins{Filter: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchPlugin"}}}},
		}), v1alpha1.ReasonUnknownPlugin, []string{`"NoSuchPlugin" does not exist`}},
		{"unknown field in plugin args", profile("refused-bad-args", v1alpha1.SchedulerProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{"scoringStrategy":{"type":"MostAllocated"},"bogus":true}`)}},
		}), v1alpha1.ReasonInvalidPluginArgs, []string{"NodeResourcesFit", "unknown field spec.pluginConfig[0].args.bogus"}},
		{"plugin args the plugin refuses", profile("refused-args-value", v1alpha1.SchedulerProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{"scoringStrategy":{"type":"Biggest"}}`)}},
		}), v1alpha1.ReasonInvalidPluginArgs, []string{"NodeResourcesFit", "Biggest"}},
		{"no queueSort plugin (the schema already refuses two)", profile("refused-queue-sort", v1alpha1.SchedulerProfileSpec{
			Plugins: &v1alpha1.Plugins{QueueSort: v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "*"}}}},
		}), v1alpha1.ReasonInvalidSpec, []string{"queue sort plugin"}},
		{"two queueSort plugins: a second one enabled through multiPoint", profile("refused-two-queue-sorts", v1alpha1.SchedulerProfileSpec{
			Plugins: &v1alpha1.Plugins{MultiPoint: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: SecondSortName}}}},
		}), v1alpha1.ReasonInvalidSpec, []string{"only one queue sort plugin required", "but got 2"}},
		{"missing extender", profile("refused-missing-extender", v1alpha1.SchedulerProfileSpec{
			Extenders: []string{"no-such-extender"},
		}), v1alpha1.ReasonExtenderNotFound, []string{`ExtenderConfig "no-such-extender" not found`}},
		{"default-scheduler without --allow-default-scheduler", profile("refused-default", v1alpha1.SchedulerProfileSpec{
			SchedulerName: ptr.To("default-scheduler"),
		}), v1alpha1.ReasonDefaultSchedulerReserved, []string{"--allow-default-scheduler"}},
	}
}

// SecondSortName is an out-of-tree queue sort plugin: enabling it beside
// PrioritySort gives a profile two queue sort plugins, which the CRD
// schema cannot see when it comes through multiPoint.
const SecondSortName = "SecondSort"

type secondSort struct{}

func (secondSort) Name() string                        { return SecondSortName }
func (secondSort) Less(_, _ fwk.QueuedEntityInfo) bool { return false }

// NewSecondSort is SecondSort's plugin factory.
func NewSecondSort(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return secondSort{}, nil
}
