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
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	configv1 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/decode"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// Refusal says why a generation cannot serve: a reason (one of the
// v1alpha1 Reason constants) and a message naming the field or plugin at
// fault. It is a decided outcome, not a transient error: the generation
// stays refused until its spec, or what it references, changes.
type Refusal struct {
	Reason  string
	Message string
}

func (r *Refusal) Error() string { return r.Reason + ": " + r.Message }

func refuse(reason, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// v1Profile is the JSON shape of one kubescheduler.config.k8s.io/v1
// KubeSchedulerProfile. The CR spec has the same field names, so its parts
// are marshalled into it unchanged.
type v1Profile struct {
	SchedulerName            string                  `json:"schedulerName"`
	PercentageOfNodesToScore *int32                  `json:"percentageOfNodesToScore,omitempty"`
	Plugins                  *v1alpha1.Plugins       `json:"plugins,omitempty"`
	PluginConfig             []v1alpha1.PluginConfig `json:"pluginConfig,omitempty"`
}

type v1Configuration struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Profiles   []v1Profile `json:"profiles"`
}

// convertProfile turns the spec of sp into an upstream internal
// KubeSchedulerProfile the way kube-scheduler reads its configuration file:
// a v1 KubeSchedulerConfiguration holding this one profile is decoded
// strictly (unknown fields in plugin args are errors), defaulted (unset
// plugins mean the default plugin set, plugin args get their defaults) and
// converted to the internal type; then the upstream validator checks it,
// together with the profile's extenders.
func convertProfile(sp *v1alpha1.SchedulerProfile, extenders []config.Extender) (*config.KubeSchedulerProfile, *Refusal) {
	for i, pc := range sp.Spec.PluginConfig {
		if n := len(pc.Args.Raw); n > v1alpha1.MaxPluginArgsBytes {
			return nil, refuse(v1alpha1.ReasonInvalidPluginArgs, "plugin %s: spec.pluginConfig[%d].args: %d bytes of JSON, more than the %d a plugin's args may take",
				pc.Name, i, n, v1alpha1.MaxPluginArgsBytes)
		}
	}
	doc := v1Configuration{
		APIVersion: configv1.SchemeGroupVersion.String(),
		Kind:       "KubeSchedulerConfiguration",
		Profiles: []v1Profile{{
			SchedulerName:            sp.EffectiveSchedulerName(),
			PercentageOfNodesToScore: sp.Spec.PercentageOfNodesToScore,
			Plugins:                  sp.Spec.Plugins,
			PluginConfig:             sp.Spec.PluginConfig,
		}},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, refuse(v1alpha1.ReasonInvalidSpec, "encoding spec: %v", err)
	}
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, decodeRefusal(sp, err)
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok {
		return nil, refuse(v1alpha1.ReasonInvalidSpec, "decoded %T, not a KubeSchedulerConfiguration", obj)
	}
	if len(cfg.Profiles) != 1 {
		return nil, refuse(v1alpha1.ReasonInvalidSpec, "decoded %d profiles, want 1", len(cfg.Profiles))
	}
	cfg.TypeMeta.APIVersion = configv1.SchemeGroupVersion.String()
	cfg.Extenders = extenders
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, validationRefusal(sp, err)
	}
	prof := cfg.Profiles[0]
	return &prof, nil
}

var (
	argsForPlugin = regexp.MustCompile(`args for plugin ([^:\s]+)`)
	unknownField  = regexp.MustCompile(`unknown field "([^"]+)"`)
)

// decodeRefusal classifies an upstream decoding error. Errors inside plugin
// args name the plugin, and unknown fields in them their path in the spec;
// everything else is an invalid spec.
func decodeRefusal(sp *v1alpha1.SchedulerProfile, err error) *Refusal {
	msg := specPaths(err.Error())
	if m := argsForPlugin.FindStringSubmatch(msg); m != nil {
		if i := slices.IndexFunc(sp.Spec.PluginConfig, func(c v1alpha1.PluginConfig) bool { return c.Name == m[1] }); i >= 0 {
			// Each error once, by its path in the spec; upstream's
			// decoder wraps one in three "strict decoding error"s.
			var paths []string
			for _, f := range unknownField.FindAllStringSubmatch(msg, -1) {
				paths = append(paths, fmt.Sprintf("spec.pluginConfig[%d].args.%s", i, f[1]))
			}
			if len(paths) > 0 {
				return refuse(v1alpha1.ReasonInvalidPluginArgs, "plugin %s: unknown field %s", m[1], strings.Join(paths, ", "))
			}
			if errs := argsFieldErrors(sp.Spec.PluginConfig[i], i); len(errs) > 0 {
				return refuse(v1alpha1.ReasonInvalidPluginArgs, "plugin %s: %s", m[1], errs.ToAggregate().Error())
			}
		}
		return refuse(v1alpha1.ReasonInvalidPluginArgs, "plugin %s: %s", m[1], msg)
	}
	if strings.Contains(msg, "pluginConfig[") {
		if name := pluginConfigName(sp, msg); name != "" {
			return refuse(v1alpha1.ReasonInvalidPluginArgs, "plugin %s: %s", name, msg)
		}
	}
	return refuse(v1alpha1.ReasonInvalidSpec, "%s", msg)
}

// argsFieldErrors decodes the args of pc, entry i of spec.pluginConfig,
// strictly into the plugin's versioned args type, and returns each error
// named by its path (spec.pluginConfig[i].args.<field>), where upstream's
// decoder names Go struct fields. None when the plugin has no args type
// registered or the args decode.
func argsFieldErrors(pc v1alpha1.PluginConfig, i int) field.ErrorList {
	obj, err := scheme.Scheme.New(configv1.SchemeGroupVersion.WithKind(pc.Name + "Args"))
	if err != nil || len(pc.Args.Raw) == 0 {
		return nil
	}
	return decode.Strict(pc.Args.Raw, obj, field.NewPath("spec", "pluginConfig").Index(i).Child("args"))
}

// validationRefusal classifies upstream validation errors: one in
// spec.pluginConfig[i] is about plugin args, anything else about the spec.
func validationRefusal(sp *v1alpha1.SchedulerProfile, err error) *Refusal {
	var errs []error
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		errs = agg.Errors()
	} else {
		errs = []error{err}
	}
	reason := v1alpha1.ReasonInvalidSpec
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msg := specPaths(e.Error())
		var fe *field.Error
		if errors.As(e, &fe) && strings.HasPrefix(fe.Field, "profiles[0].pluginConfig[") {
			if name := pluginConfigName(sp, fe.Field); name != "" {
				reason = v1alpha1.ReasonInvalidPluginArgs
				msg = "plugin " + name + ": " + msg
			}
		}
		msgs = append(msgs, msg)
	}
	return refuse(reason, "%s", strings.Join(msgs, "; "))
}

var pluginConfigIndex = regexp.MustCompile(`pluginConfig\[(\d+)\]`)

func pluginConfigName(sp *v1alpha1.SchedulerProfile, s string) string {
	m := pluginConfigIndex.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	i, err := strconv.Atoi(m[1])
	if err != nil || i < 0 || i >= len(sp.Spec.PluginConfig) {
		return ""
	}
	return sp.Spec.PluginConfig[i].Name
}

// specPaths rewrites upstream field paths of the one profile into the
// paths of the SchedulerProfile, so messages point at what the user wrote.
func specPaths(s string) string {
	for _, p := range []string{".profiles[0].", "profiles[0].", ".profiles[0]", "profiles[0]"} {
		s = strings.ReplaceAll(s, p, "spec.")
	}
	s = strings.ReplaceAll(s, "extenders[", "spec.extenders[")
	s = strings.ReplaceAll(s, "spec.spec.", "spec.")
	if strings.HasPrefix(s, "extenders:") {
		s = "spec." + s
	}
	return s
}

// buildRefusal classifies an error of ProfileSet.Apply, Validate or
// Rollouts.StartRollout, which carries the upstream framework's text.
func buildRefusal(err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	if qs := (*scheduler.QueueSortChangedError)(nil); errors.As(err, &qs) {
		return refuse(v1alpha1.ReasonQueueSortChanged, "spec.plugins.queueSort: %s; remove spec.rollout to apply the change at once", qs.Error())
	}
	msg := specPaths(err.Error())
	switch {
	case strings.Contains(msg, "does not exist"), strings.Contains(msg, "does not extend"):
		return refuse(v1alpha1.ReasonUnknownPlugin, "%s", msg)
	case strings.Contains(msg, "panicked while being built"):
		return refuse(v1alpha1.ReasonBuildFailed, "%s", msg)
	case strings.Contains(msg, "initializing plugin"), strings.Contains(msg, "repeated config for plugin"):
		return refuse(v1alpha1.ReasonInvalidPluginArgs, "%s", msg)
	case strings.Contains(msg, "queue sort plugin"), strings.Contains(msg, "bind plugin"),
		strings.Contains(msg, "not configured with weight"), strings.Contains(msg, "could overflow"),
		strings.Contains(msg, "already registered as"):
		return refuse(v1alpha1.ReasonInvalidSpec, "%s", msg)
	}
	return refuse(v1alpha1.ReasonBuildFailed, "%s", msg)
}
