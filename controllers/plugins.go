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
	"slices"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/pluginargs"
)

// Plugins is what the controllers know about the scheduler's plugins beside
// upstream's in-tree ones: the names in its out-of-tree registry, and the
// validators of their typed args. The zero value knows the in-tree plugins
// only.
type Plugins struct {
	// OutOfTree names the plugins of the scheduler's out-of-tree registry.
	OutOfTree []string
	// Validators check the args of out-of-tree plugins, by plugin name.
	Validators map[string]pluginargs.Validator
}

// known reports whether the scheduler has a plugin called name.
func (p Plugins) known(name string) bool {
	return pluginargs.InTree(name) || slices.Contains(p.OutOfTree, name)
}

// convert converts sp as every reconcile does: the plugin names checked
// (checkPluginNames), the upstream conversion, defaulting and validation
// (convertProfile), then checkPluginConfig and checkInTreeArgs.
func (p Plugins) convert(sp *v1alpha1.SchedulerProfile, extenders []config.Extender) (*config.KubeSchedulerProfile, *Refusal) {
	if refusal := p.checkPluginNames(sp); refusal != nil {
		return nil, refusal
	}
	prof, refusal := convertProfile(sp, extenders)
	if refusal == nil {
		refusal = p.checkPluginConfig(sp, prof)
	}
	if refusal == nil {
		refusal = checkInTreeArgs(sp, prof)
	}
	if refusal == nil {
		refusal = checkAnalysisMetrics(sp)
	}
	return prof, refusal
}

// checkPluginConfig refuses what upstream's conversion and validation let
// through in spec.pluginConfig: an entry naming a plugin that is in neither
// registry (UnknownPlugin: its args would be silently ignored), and args of
// an out-of-tree plugin that its validator rejects (InvalidPluginArgs). prof
// is sp converted by convertProfile.
func (p Plugins) checkPluginConfig(sp *v1alpha1.SchedulerProfile, prof *config.KubeSchedulerProfile) *Refusal {
	for i, pc := range sp.Spec.PluginConfig {
		if !p.known(pc.Name) {
			return refuse(v1alpha1.ReasonUnknownPlugin,
				"spec.pluginConfig[%d].name: plugin %q is not registered (neither in-tree nor out-of-tree); its args would be ignored%s",
				i, pc.Name, p.suggest(pc.Name))
		}
	}
	// The converted profile holds the entries of the spec, then the
	// defaulted args of the plugins it enables without an entry.
	for _, pc := range prof.PluginConfig {
		validate := p.Validators[pc.Name]
		if validate == nil {
			continue
		}
		path := field.NewPath("spec", "pluginConfig").Key(pc.Name).Child("args")
		if i := slices.IndexFunc(sp.Spec.PluginConfig, func(c v1alpha1.PluginConfig) bool { return c.Name == pc.Name }); i >= 0 {
			path = field.NewPath("spec", "pluginConfig").Index(i).Child("args")
		}
		if err := validate(path, pc.Args); err != nil {
			return refuse(v1alpha1.ReasonInvalidPluginArgs, "plugin %s: %v", pc.Name, err)
		}
	}
	return nil
}

// unusedPluginConfig names the spec.pluginConfig entries whose plugin the
// framework does not run (running is what it runs per extension point, as
// status.plugins lists it). Upstream accepts them, so they are not refused,
// but a typo in the plugins the profile enables leaves such args unused.
func unusedPluginConfig(pluginConfig []v1alpha1.PluginConfig, running *config.Plugins) []string {
	if running == nil {
		return nil
	}
	run := sets.New[string]()
	for _, ep := range extensionPoints(running) {
		for _, pl := range ep.set.Enabled {
			run.Insert(pl.Name)
		}
	}
	var out []string
	for i, pc := range pluginConfig {
		if !run.Has(pc.Name) {
			out = append(out, fmt.Sprintf("spec.pluginConfig[%d] configures plugin %q, which this profile does not run", i, pc.Name))
		}
	}
	return out
}

// profileWarning is something a live generation does that its author may
// not expect. Upstream accepts it, so it is not refused; it is said in
// the Ready message, in admission warnings and in a Warning event.
type profileWarning struct {
	reason  string
	message string
}

// profileWarnings lists the warnings of a generation that runs running
// (as status.plugins lists it) with pluginConfig.
func profileWarnings(pluginConfig []v1alpha1.PluginConfig, running *config.Plugins) []profileWarning {
	var out []profileWarning
	for _, m := range unusedPluginConfig(pluginConfig, running) {
		out = append(out, profileWarning{reason: v1alpha1.EventUnusedPluginConfig, message: m})
	}
	if m := gangSchedulingIgnored(running); m != "" {
		out = append(out, profileWarning{reason: v1alpha1.EventGangSchedulingDisabled, message: m})
	}
	return out
}

// warningMessages returns the messages of ws.
func warningMessages(ws []profileWarning) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.message)
	}
	return out
}

// gangSchedulingIgnored says, when the GenericWorkload gate is on and the
// profile does not run GangScheduling, that pod groups' minCount is
// ignored: their pods are still scheduled in pod-group cycles, but nothing
// holds a group back until minCount members are there or fit.
func gangSchedulingIgnored(running *config.Plugins) string {
	if running == nil || !utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		return ""
	}
	for _, ep := range extensionPoints(running) {
		for _, pl := range ep.set.Enabled {
			if pl.Name == names.GangScheduling {
				return ""
			}
		}
	}
	return fmt.Sprintf("plugin %s is not enabled while the GenericWorkload feature gate is on: pod groups' minCount will be ignored under this profile", names.GangScheduling)
}
