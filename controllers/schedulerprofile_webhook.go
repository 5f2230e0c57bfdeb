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
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// ProfileWebhookPath is where the validating webhook is served.
const ProfileWebhookPath = "/validate-scheduling-profilescheduler-io-v1alpha1-schedulerprofile"

// +kubebuilder:webhook:path=/validate-scheduling-profilescheduler-io-v1alpha1-schedulerprofile,mutating=false,failurePolicy=ignore,sideEffects=None,groups=scheduling.profilescheduler.io,resources=schedulerprofiles,verbs=create;update,versions=v1alpha1,name=vschedulerprofile.scheduling.profilescheduler.io,admissionReviewVersions=v1

// profileValidator rejects, at admission, a SchedulerProfile whose
// framework cannot be built: it converts and validates the spec as the
// reconciler does, then builds the framework in dry-run
// (ProfileSet.Validate). References to ExtenderConfigs that do not exist
// yet, and schedulerName conflicts, are left to the reconciler.
type profileValidator struct {
	// Client reads ExtenderConfigs and their Secrets.
	Client client.Reader
	// Profiles builds frameworks in dry-run.
	Profiles scheduler.ProfileSet
	// AllowDefaultScheduler: as Options.AllowDefaultScheduler.
	AllowDefaultScheduler bool
	// Plugins: as Options.Plugins.
	Plugins Plugins
	// ExtenderSecretsNamespace: as Options.ExtenderSecretsNamespace.
	ExtenderSecretsNamespace string
}

var _ admission.Validator[*v1alpha1.SchedulerProfile] = &profileValidator{}

// ValidateCreate checks a new profile.
func (v *profileValidator) ValidateCreate(ctx context.Context, sp *v1alpha1.SchedulerProfile) (admission.Warnings, error) {
	return v.validate(ctx, sp)
}

// ValidateUpdate checks a profile whose spec changed. Updates of metadata
// alone (labels, the controller's finalizer) are admitted, so that an
// object created before the webhook was installed can still be managed and
// deleted.
func (v *profileValidator) ValidateUpdate(ctx context.Context, old, sp *v1alpha1.SchedulerProfile) (admission.Warnings, error) {
	if !sp.DeletionTimestamp.IsZero() || equality.Semantic.DeepEqual(old.Spec, sp.Spec) {
		return nil, nil
	}
	return v.validate(ctx, sp)
}

// ValidateDelete admits every deletion.
func (v *profileValidator) ValidateDelete(context.Context, *v1alpha1.SchedulerProfile) (admission.Warnings, error) {
	return nil, nil
}

func (v *profileValidator) validate(ctx context.Context, sp *v1alpha1.SchedulerProfile) (admission.Warnings, error) {
	var warnings admission.Warnings
	if sp.EffectiveSchedulerName() == corev1.DefaultSchedulerName && !v.AllowDefaultScheduler {
		return nil, v.invalid(sp, field.NewPath("spec", "schedulerName"), defaultSchedulerRefusal())
	}
	var extenders []config.Extender
	for i, name := range sp.Spec.Extenders {
		ec, ext, refusal, err := resolveExtender(ctx, v.Client, name, v.ExtenderSecretsNamespace)
		if err != nil {
			return nil, err
		}
		if ec == nil {
			warnings = append(warnings, fmt.Sprintf("spec.extenders[%d]: ExtenderConfig %q does not exist yet; the profile stays refused until it does", i, name))
			continue
		}
		if refusal != nil {
			warnings = append(warnings, fmt.Sprintf("spec.extenders[%d]: ExtenderConfig %q cannot be used yet: %s", i, name, refusal.Message))
			continue
		}
		extenders = append(extenders, ext)
	}
	prof, refusal := convertProfile(sp, extenders)
	if refusal != nil {
		return warnings, v.invalid(sp, field.NewPath("spec"), refusal)
	}
	if refusal := v.Plugins.checkPluginConfig(sp, prof); refusal != nil {
		return warnings, v.invalid(sp, field.NewPath("spec", "pluginConfig"), refusal)
	}
	if refusal := checkAnalysisMetrics(sp); refusal != nil {
		return warnings, v.invalid(sp, field.NewPath("spec", "rollout", "analysis", "metrics"), refusal)
	}
	applied, err := v.Profiles.Validate(ctx, scheduler.Profile{Config: *prof, Extenders: extenders})
	if err != nil {
		return warnings, v.invalid(sp, field.NewPath("spec", "plugins"), buildRefusal(err))
	}
	return append(warnings, warningMessages(profileWarnings(sp.Spec.PluginConfig, applied.Plugins))...), nil
}

func (v *profileValidator) invalid(sp *v1alpha1.SchedulerProfile, path *field.Path, r *Refusal) error {
	return apierrors.NewInvalid(v1alpha1.GroupVersion.WithKind("SchedulerProfile").GroupKind(), sp.Name,
		field.ErrorList{field.Invalid(path, field.OmitValueType{}, r.Reason+": "+r.Message)})
}
