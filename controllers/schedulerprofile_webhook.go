package controllers

import (
	"context"
	"fmt"

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

// ProfileValidator rejects, at admission, a SchedulerProfile whose
// framework cannot be built: it converts and validates the spec as the
// reconciler does, then builds the framework in dry-run
// (ProfileSet.Validate). References to ExtenderConfigs that do not exist
// yet, and schedulerName conflicts, are left to the reconciler.
type ProfileValidator struct {
	// Client reads ExtenderConfigs and their Secrets.
	Client client.Reader
	// Profiles builds frameworks in dry-run.
	Profiles scheduler.ProfileSet
	// AllowDefaultScheduler: as Options.AllowDefaultScheduler.
	AllowDefaultScheduler bool
	// ExtenderSecretsNamespace: as Options.ExtenderSecretsNamespace.
	ExtenderSecretsNamespace string
}

var _ admission.Validator[*v1alpha1.SchedulerProfile] = &ProfileValidator{}

// ValidateCreate checks a new profile.
func (v *ProfileValidator) ValidateCreate(ctx context.Context, sp *v1alpha1.SchedulerProfile) (admission.Warnings, error) {
	return v.validate(ctx, sp)
}

// ValidateUpdate checks a profile whose spec changed. Updates of metadata
// alone (labels, the controller's finalizer) are admitted, so that an
// object created before the webhook was installed can still be managed and
// deleted.
func (v *ProfileValidator) ValidateUpdate(ctx context.Context, old, sp *v1alpha1.SchedulerProfile) (admission.Warnings, error) {
	if !sp.DeletionTimestamp.IsZero() || equality.Semantic.DeepEqual(old.Spec, sp.Spec) {
		return nil, nil
	}
	return v.validate(ctx, sp)
}

// ValidateDelete admits every deletion.
func (v *ProfileValidator) ValidateDelete(context.Context, *v1alpha1.SchedulerProfile) (admission.Warnings, error) {
	return nil, nil
}

func (v *ProfileValidator) validate(ctx context.Context, sp *v1alpha1.SchedulerProfile) (admission.Warnings, error) {
	var warnings admission.Warnings
	if sp.EffectiveSchedulerName() == DefaultSchedulerName && !v.AllowDefaultScheduler {
		return nil, v.invalid(sp, field.NewPath("spec", "schedulerName"), defaultSchedulerRefusal())
	}
	var extenders []config.Extender
	for i, name := range sp.Spec.Extenders {
		ec := &v1alpha1.ExtenderConfig{}
		if err := v.Client.Get(ctx, client.ObjectKey{Name: name}, ec); err != nil {
			if apierrors.IsNotFound(err) {
				warnings = append(warnings, fmt.Sprintf("spec.extenders[%d]: ExtenderConfig %q does not exist yet; the profile stays refused until it does", i, name))
				continue
			}
			return nil, err
		}
		ext, refusal, err := ResolveExtender(ctx, v.Client, ec, v.ExtenderSecretsNamespace)
		if err != nil {
			return nil, err
		}
		if refusal != nil {
			warnings = append(warnings, fmt.Sprintf("spec.extenders[%d]: ExtenderConfig %q cannot be used yet: %s", i, name, refusal.Message))
			continue
		}
		extenders = append(extenders, ext)
	}
	prof, refusal := ConvertProfile(sp, extenders)
	if refusal != nil {
		return warnings, v.invalid(sp, field.NewPath("spec"), refusal)
	}
	if _, err := v.Profiles.Validate(ctx, scheduler.Profile{Config: *prof, Extenders: extenders}); err != nil {
		return warnings, v.invalid(sp, field.NewPath("spec", "plugins"), BuildRefusal(err))
	}
	return warnings, nil
}

func (v *ProfileValidator) invalid(sp *v1alpha1.SchedulerProfile, path *field.Path, r *Refusal) error {
	return apierrors.NewInvalid(v1alpha1.GroupVersion.WithKind("SchedulerProfile").GroupKind(), sp.Name,
		field.ErrorList{field.Invalid(path, field.OmitValueType{}, r.Reason+": "+r.Message)})
}
