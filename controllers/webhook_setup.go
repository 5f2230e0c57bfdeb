package controllers

import (
	"net"
	"os"
	"path/filepath"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// defaultWebhookConfigurationName is the ValidatingWebhookConfiguration
// of config/webhook and of the chart.
const defaultWebhookConfigurationName = "profile-scheduler-validating-webhook"

// WebhookOptions configures the validating webhook.
type WebhookOptions struct {
	// SelfSigned makes the operator generate and rotate its own serving
	// certificate when the cert directory holds none it did not generate.
	SelfSigned bool
	// CertDir holds tls.crt and tls.key. Empty means the webhook server's.
	CertDir string
	// ConfigurationName is the ValidatingWebhookConfiguration whose
	// caBundle a self-signed CA is written to; empty means
	// defaultWebhookConfigurationName.
	ConfigurationName string
	// DNSNames and IPs the serving certificate is valid for, for example
	// the Service's "<svc>.<namespace>.svc".
	DNSNames []string
	IPs      []net.IP
	// Validity of generated certificates; 0 means one year. They are
	// renewed when a third of it remains.
	Validity time.Duration
	// CheckInterval between renewal checks; 0 means one hour.
	CheckInterval time.Duration
	// ResyncInterval between checks that the caBundle still trusts this
	// replica's CA; 0 means one minute.
	ResyncInterval time.Duration
}

// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,verbs=get;list;watch
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,resourceNames=profile-scheduler-validating-webhook,verbs=update;patch

// setupWebhook registers pv on the manager's webhook server at
// ProfileWebhookPath and ev at ExtenderWebhookPath and, with
// opts.SelfSigned, makes sure serving certificates exist before the server
// starts and keeps them fresh. The CA is merged into every webhook of the
// one configuration (PatchCABundle), so both are trusted alike.
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
		rot := &CertRotator{Client: mgr.GetClient(), Options: opts}
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
