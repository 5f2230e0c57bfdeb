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
	"os"
	"path/filepath"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/webhookcert"
)

// defaultWebhookConfigurationName is the ValidatingWebhookConfiguration
// of config/webhook and of the chart.
const defaultWebhookConfigurationName = "profile-scheduler-validating-webhook"

// WebhookOptions configures the validating webhook.
type WebhookOptions struct {
	// SelfSigned makes the operator generate and rotate its own serving
	// certificate (webhookcert.Rotator) when the cert directory holds none
	// it did not generate.
	SelfSigned bool
	// Options are the certificates' (webhookcert.Options); here an empty
	// CertDir means the webhook server's, and an empty ConfigurationName
	// means defaultWebhookConfigurationName.
	webhookcert.Options
}

// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,verbs=get;list;watch
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,resourceNames=profile-scheduler-validating-webhook,verbs=update;patch

// setupWebhook registers pv on the manager's webhook server at
// ProfileWebhookPath and ev at ExtenderWebhookPath and, with
// opts.SelfSigned, makes sure serving certificates exist before the server
// starts and keeps them fresh. The CA is merged into every webhook of the
// one configuration (Rotator.PatchCABundle), so both are trusted alike.
func setupWebhook(mgr ctrl.Manager, pv *profileValidator, ev *extenderValidator, opts WebhookOptions) error {
	srv := mgr.GetWebhookServer()
	if opts.CertDir == "" {
		if ds, ok := srv.(*webhook.DefaultServer); ok {
			opts.CertDir = ds.Options.CertDir
		}
		if opts.CertDir == "" {
			opts.CertDir = filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")
		}
	}
	if opts.ConfigurationName == "" {
		opts.ConfigurationName = defaultWebhookConfigurationName
	}
	if opts.SelfSigned {
		rot := &webhookcert.Rotator{Client: mgr.GetClient(), Options: opts.Options}
		if err := rot.Ensure(time.Now()); err != nil {
			return err
		}
		if err := mgr.Add(rot); err != nil {
			return err
		}
	}
	srv.Register(ProfileWebhookPath, admission.WithValidator[*v1alpha1.SchedulerProfile](mgr.GetScheme(), pv))
	srv.Register(ExtenderWebhookPath, admission.WithValidator[*v1alpha1.ExtenderConfig](mgr.GetScheme(), ev))
	return nil
}
