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

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/pluginargs"
)

// Refusals that upstream gives without the field at fault, given here
// with its path in the SchedulerProfile, once.

// pluginSets are the extension points of spec.plugins by their field name.
func pluginSets(p *v1alpha1.Plugins) []struct {
	field string
	set   v1alpha1.PluginSet
} {
	return []struct {
		field string
		set   v1alpha1.PluginSet
	}{
		{"multiPoint", p.MultiPoint}, {"preEnqueue", p.PreEnqueue}, {"queueSort", p.QueueSort},
		{"preFilter", p.PreFilter}, {"filter", p.Filter}, {"postFilter", p.PostFilter},
		{"preScore", p.PreScore}, {"score", p.Score}, {"reserve", p.Reserve}, {"permit", p.Permit},
		{"preBind", p.PreBind}, {"bind", p.Bind}, {"postBind", p.PostBind},
	}
}

// checkPluginNames refuses a plugin that spec.plugins enables and that is
// in neither registry, naming its path. The framework build refuses it
// too, as upstream does, but names no field ("ScorePlugin "X" does not
// exist"). A disabled name that matches nothing is accepted, as upstream
// accepts it.
func (p Plugins) checkPluginNames(sp *v1alpha1.SchedulerProfile) *Refusal {
	if sp.Spec.Plugins == nil {
		return nil
	}
	for _, s := range pluginSets(sp.Spec.Plugins) {
		for i, pl := range s.set.Enabled {
			if p.known(pl.Name) {
				continue
			}
			return refuse(v1alpha1.ReasonUnknownPlugin, "spec.plugins.%s.enabled[%d].name: plugin %q does not exist (neither in-tree nor out-of-tree)%s",
				s.field, i, pl.Name, p.suggest(pl.Name))
		}
	}
	return nil
}

// suggest is ", did you mean "X"?" for the known plugin closest to name,
// when one is close enough to be a misspelling of it.
func (p Plugins) suggest(name string) string {
	candidates := append(pluginargs.InTreeNames(), p.OutOfTree...)
	best, bestDistance := "", 4
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestDistance {
			best, bestDistance = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkInTreeArgs validates in-tree plugin args that upstream's
// configuration validation does not reach: NodeResourcesFit's (its
// validator is listed there under "NodeResourcesFitArgs", a name no
// plugin has, so only the plugin's constructor checks them, and names no
// field). prof is sp converted by convertProfile.
func checkInTreeArgs(sp *v1alpha1.SchedulerProfile, prof *config.KubeSchedulerProfile) *Refusal {
	for _, pc := range prof.PluginConfig {
		args, ok := pc.Args.(*config.NodeResourcesFitArgs)
		if !ok {
			continue
		}
		i := slices.IndexFunc(sp.Spec.PluginConfig, func(c v1alpha1.PluginConfig) bool { return c.Name == pc.Name })
		if i < 0 {
			// Defaulted args, not the user's.
			continue
		}
		if err := validation.ValidateNodeResourcesFitArgs(field.NewPath("spec", "pluginConfig").Index(i).Child("args"), args); err != nil {
			return refuse(v1alpha1.ReasonInvalidPluginArgs, "plugin %s: %v", pc.Name, err)
		}
	}
	return nil
}
