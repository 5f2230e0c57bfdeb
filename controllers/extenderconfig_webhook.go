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

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// ExtenderWebhookPath is where the ExtenderConfig validating webhook is
// served, on the same server as ProfileWebhookPath.
const ExtenderWebhookPath = "/validate-scheduling-profilescheduler-io-v1alpha1-extenderconfig"

// +kubebuilder:webhook:path=/validate-scheduling-profilescheduler-io-v1alpha1-extenderconfig,mutating=false,failurePolicy=ignore,sideEffects=None,groups=scheduling.profilescheduler.io,resources=extenderconfigs,verbs=create;update,versions=v1alpha1,name=vextenderconfig.scheduling.profilescheduler.io,admissionReviewVersions=v1

// extenderValidator rejects, at admission, an ExtenderConfig the
// reconciler would refuse without reading its Secret: a
// spec.tlsConfig.secretRef naming a namespace other than the
// extender-secrets namespace (extenderSecretKey), and a spec that
// validateExtenderSpec refuses. It reads nothing from the API server; a
// Secret that is missing or does not hold valid TLS material is left to
// the reconciler, which reports it in status.
type extenderValidator struct {
	// ExtenderSecretsNamespace: as Options.ExtenderSecretsNamespace.
	ExtenderSecretsNamespace string
}

var _ admission.Validator[*v1alpha1.ExtenderConfig] = &extenderValidator{}

// ValidateCreate checks a new ExtenderConfig.
func (v *extenderValidator) ValidateCreate(_ context.Context, ec *v1alpha1.ExtenderConfig) (admission.Warnings, error) {
	return nil, v.validate(ec)
}

// ValidateUpdate checks an ExtenderConfig whose spec changed. Updates of
// metadata alone are admitted, so that an object created before the
// webhook was installed (or before its secretRef was restricted to one
// namespace) can still be relabelled and deleted.
func (v *extenderValidator) ValidateUpdate(_ context.Context, old, ec *v1alpha1.ExtenderConfig) (admission.Warnings, error) {
	if !ec.DeletionTimestamp.IsZero() || equality.Semantic.DeepEqual(old.Spec, ec.Spec) {
		return nil, nil
	}
	return nil, v.validate(ec)
}

// ValidateDelete admits every deletion.
func (v *extenderValidator) ValidateDelete(context.Context, *v1alpha1.ExtenderConfig) (admission.Warnings, error) {
	return nil, nil
}

// validate refuses what the reconciler refuses before it reads a Secret,
// in the same order and with the same reason and message as the status.
func (v *extenderValidator) validate(ec *v1alpha1.ExtenderConfig) error {
	if _, _, refusal := extenderSecretKey(ec, v.ExtenderSecretsNamespace); refusal != nil {
		return v.invalid(ec, field.NewPath("spec", "tlsConfig", "secretRef", "namespace"), refusal)
	}
	if refusal := validateExtenderSpec(&ec.Spec); refusal != nil {
		return v.invalid(ec, field.NewPath("spec"), refusal)
	}
	return nil
}

func (v *extenderValidator) invalid(ec *v1alpha1.ExtenderConfig, path *field.Path, r *Refusal) error {
	return apierrors.NewInvalid(v1alpha1.GroupVersion.WithKind("ExtenderConfig").GroupKind(), ec.Name,
		field.ErrorList{field.Invalid(path, field.OmitValueType{}, r.Reason+": "+r.Message)})
}
