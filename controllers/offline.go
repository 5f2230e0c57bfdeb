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
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// Offline answers, without a cluster, what the operator would refuse of a
// SchedulerProfile or an ExtenderConfig: the reconcilers' phases, which
// the webhooks' checks are a part of, in their order and with their
// reasons and messages. It reads the ExtenderConfigs (and Secrets) a
// profile names through Reader, and builds the framework in dry-run
// through Profiles: a scheduler with the plugin registry of the operator
// that would run the profile. `kubectl sp lint` (package lint) runs it.
type Offline struct {
	// Reader reads ExtenderConfigs and their Secrets: the manifests given,
	// or a cluster. An error other than NotFound leaves what needed the
	// object unchecked, and says so.
	Reader client.Reader
	// Profiles builds frameworks in dry-run (Validate only).
	Profiles scheduler.ProfileSet
	// Plugins: as Options.Plugins.
	Plugins Plugins
	// AllowDefaultScheduler: as Options.AllowDefaultScheduler.
	AllowDefaultScheduler bool
	// ExtenderSecretsNamespace: as Options.ExtenderSecretsNamespace.
	ExtenderSecretsNamespace string
}

// Verdict is what the operator would decide of an object.
type Verdict struct {
	// Refusal says why the object would be refused (its status's Ready
	// reason and message, or the webhook's); nil when it would serve.
	Refusal *Refusal
	// Warnings are what the webhook and the Events would warn about.
	Warnings []string
	// Unchecked says what could not be read, and so was not checked: the
	// verdict holds for the rest.
	Unchecked []string
}

// Profile decides sp as the reconciler's phases do: the schedulerName
// claim (default-scheduler, and the profiles of claimers that claim the
// same name: the oldest, then the first by name, keeps it), the
// ExtenderConfigs it names, the upstream conversion, defaulting and
// validation with the plugin checks, and a dry-run build of its framework.
func (o *Offline) Profile(ctx context.Context, sp *v1alpha1.SchedulerProfile, claimers []v1alpha1.SchedulerProfile) Verdict {
	var v Verdict
	name := sp.EffectiveSchedulerName()
	if name == corev1.DefaultSchedulerName && !o.AllowDefaultScheduler {
		v.Refusal = defaultSchedulerRefusal()
		return v
	}
	var same []v1alpha1.SchedulerProfile
	for _, c := range claimers {
		if c.EffectiveSchedulerName() == name {
			same = append(same, c)
		}
	}
	if owner := nameOwner(same); owner != nil && owner.Name != sp.Name {
		v.Refusal = nameConflictRefusal(name, owner.Name)
		return v
	}
	var extenders []config.Extender
	for i, n := range sp.Spec.Extenders {
		ec, ext, refusal, err := resolveExtender(ctx, o.Reader, n, o.ExtenderSecretsNamespace)
		switch {
		case err != nil:
			v.Unchecked = append(v.Unchecked, fmt.Sprintf("spec.extenders[%d]: %v", i, err))
			continue
		case ec == nil:
			v.Refusal = extenderRefusal(i, n, nil)
			return v
		case refusal != nil:
			v.Refusal = extenderRefusal(i, n, refusal)
			return v
		}
		extenders = append(extenders, ext)
	}
	prof, refusal := o.Plugins.convert(sp, extenders)
	if refusal != nil {
		v.Refusal = refusal
		return v
	}
	applied, err := o.Profiles.Validate(ctx, scheduler.Profile{Config: *prof, Extenders: extenders, Generation: sp.Generation})
	if err != nil {
		v.Refusal = buildRefusal(err)
		return v
	}
	v.Warnings = warningMessages(profileWarnings(sp.Spec.PluginConfig, applied.Plugins))
	return v
}

// Extender decides ec as its reconciler does: the Secret's namespace and
// the spec first (the webhook's checks), then the TLS material of the
// Secret it names, read through Reader, and the upstream extender built
// from it.
func (o *Offline) Extender(ctx context.Context, ec *v1alpha1.ExtenderConfig) Verdict {
	var v Verdict
	_, refusal, err := buildExtender(ctx, o.Reader, ec, o.ExtenderSecretsNamespace)
	if err != nil {
		v.Unchecked = append(v.Unchecked, err.Error())
		// What the webhook checks needs no Secret.
		v.Refusal = validateExtenderSpec(&ec.Spec)
		return v
	}
	v.Refusal = refusal
	return v
}
