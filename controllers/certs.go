package controllers

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// Files the CertRotator keeps in the cert directory, beside the serving
// certificate and key (tls.crt, tls.key).
const (
	caCertFile = "ca.crt"
	caKeyFile  = "ca.key"
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

// maxCABundleCerts bounds the CA certificates a caBundle keeps: the CAs of
// replicas that are gone stay until they expire or, past this bound, the
// oldest of them are dropped. It must exceed the number of replicas.
const maxCABundleCerts = 16

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

// CertRotator generates a self-signed CA and a serving certificate signed
// by it into a cert directory, merges the CA into the caBundle of a
// ValidatingWebhookConfiguration, and renews both before they expire. The
// webhook server reloads the files when they change. It leaves alone a
// directory whose certificate it did not generate (for example one
// cert-manager mounts).
//
// Every replica runs one with its own CA. None replaces the bundle: each
// adds its CA when absent and drops certificates that are expired or do
// not parse, keeping at most maxCABundleCerts (its own always), so the API
// server trusts every replica behind the Service. Writes use optimistic
// locking, so two replicas merging at once do not lose each other's CA;
// each checks again every ResyncInterval and after a rotation, which also
// restores its CA if the configuration was replaced.
type CertRotator struct {
	Client  client.Client
	Options WebhookOptions

	// caBundle is what the configuration should trust: the current CA and,
	// during a rotation, the previous one.
	caBundle []byte
}

var _ manager.Runnable = &CertRotator{}

// NeedLeaderElection is false: every replica serves the webhook.
func (c *CertRotator) NeedLeaderElection() bool { return false }

func (c *CertRotator) path(name string) string { return filepath.Join(c.Options.CertDir, name) }

func (c *CertRotator) validity() time.Duration {
	if c.Options.Validity > 0 {
		return c.Options.Validity
	}
	return 365 * 24 * time.Hour
}

// managed reports whether the cert directory is empty or holds what a
// CertRotator wrote.
func (c *CertRotator) managed() bool {
	if _, err := os.Stat(c.path("tls.crt")); errors.Is(err, os.ErrNotExist) {
		return true
	}
	_, err := os.Stat(c.path(caKeyFile))
	return err == nil
}

// Ensure writes a CA and serving certificate when there are none, or when
// a third of their validity or less remains at now.
func (c *CertRotator) Ensure(now time.Time) error {
	if !c.managed() {
		return nil
	}
	if err := os.MkdirAll(c.Options.CertDir, 0o700); err != nil {
		return fmt.Errorf("creating cert dir: %w", err)
	}
	oldCA, _ := os.ReadFile(c.path(caCertFile))
	if c.fresh(now) {
		c.caBundle = oldCA
		return nil
	}
	caPEM, caKeyPEM, certPEM, keyPEM, err := generateCerts(now, c.validity(), c.Options.DNSNames, c.Options.IPs)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{caKeyFile, caKeyPEM}, {caCertFile, caPEM}, {"tls.key", keyPEM}, {"tls.crt", certPEM}} {
		if err := writeFileAtomic(c.path(f.name), f.data); err != nil {
			return err
		}
	}
	c.caBundle = caPEM
	if stillValid(oldCA, now) {
		c.caBundle = append(append([]byte{}, caPEM...), oldCA...)
	}
	return nil
}

// fresh reports whether the serving certificate exists, matches its key,
// and has more than a third of its validity left.
func (c *CertRotator) fresh(now time.Time) bool {
	pair, err := tls.LoadX509KeyPair(c.path("tls.crt"), c.path("tls.key"))
	if err != nil || len(pair.Certificate) == 0 {
		return false
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return false
	}
	life := cert.NotAfter.Sub(cert.NotBefore)
	return cert.NotAfter.Sub(now) > life/3
}

func stillValid(caPEM []byte, now time.Time) bool {
	block, _ := pem.Decode(caPEM)
	if block == nil {
		return false
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	return err == nil && now.Before(cert.NotAfter)
}

// Start merges the CA into the caBundle, then checks for renewal every
// CheckInterval and that the bundle still trusts the CA every
// ResyncInterval; a failed merge is retried after a few seconds.
func (c *CertRotator) Start(ctx context.Context) error {
	if !c.managed() {
		return nil
	}
	interval := c.Options.CheckInterval
	if interval <= 0 {
		interval = time.Hour
	}
	resync := c.Options.ResyncInterval
	if resync <= 0 {
		resync = time.Minute
	}
	const retry = 5 * time.Second
	logger := log.FromContext(ctx).WithName("cert-rotator")
	check := time.NewTicker(interval)
	defer check.Stop()
	for {
		wait := resync
		if err := c.PatchCABundle(ctx); err != nil {
			logger.Error(err, "Merging CA into caBundle", "configuration", c.Options.ConfigurationName)
			wait = min(retry, resync)
		}
		next := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			next.Stop()
			return nil
		case <-next.C:
		case <-check.C:
			next.Stop()
			if err := c.Ensure(time.Now()); err != nil {
				logger.Error(err, "Renewing webhook certificates")
			}
		}
	}
}

// PatchCABundle merges the CA bundle of this rotator into the caBundle of
// every webhook of the configuration (see mergeCABundle), and writes it
// only when that changes it. A conflicting write by another replica is
// retried on a fresh read.
func (c *CertRotator) PatchCABundle(ctx context.Context) error {
	if c.Options.ConfigurationName == "" || len(c.caBundle) == 0 {
		return nil
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := c.Client.Get(ctx, client.ObjectKey{Name: c.Options.ConfigurationName}, vwc); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("ValidatingWebhookConfiguration %q not found", c.Options.ConfigurationName)
			}
			return err
		}
		base := vwc.DeepCopy()
		now := time.Now()
		changed := false
		for i := range vwc.Webhooks {
			merged := mergeCABundle(vwc.Webhooks[i].ClientConfig.CABundle, c.caBundle, now, maxCABundleCerts)
			if !bytes.Equal(vwc.Webhooks[i].ClientConfig.CABundle, merged) {
				vwc.Webhooks[i].ClientConfig.CABundle = merged
				changed = true
			}
		}
		if !changed {
			return nil
		}
		return c.Client.Patch(ctx, vwc, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	})
}

// mergeCABundle returns the bundle that trusts the CA certificates of own
// besides those of bundle: certificates of bundle that do not parse or
// have expired at now are dropped, those of own are appended when absent,
// and when more than limit remain, the ones of bundle issued first are
// dropped (own ones never). The result is PEM, in the order of bundle then
// own, so merging again returns it unchanged.
func mergeCABundle(bundle, own []byte, now time.Time, limit int) []byte {
	type entry struct {
		cert *x509.Certificate
		own  bool
	}
	var kept []entry
	seen := map[string]bool{}
	add := func(data []byte, isOwn bool) {
		for _, cert := range parseCertificates(data) {
			if now.After(cert.NotAfter) {
				continue
			}
			key := string(cert.Raw)
			if seen[key] {
				if isOwn {
					for i := range kept {
						if string(kept[i].cert.Raw) == key {
							kept[i].own = true
						}
					}
				}
				continue
			}
			seen[key] = true
			kept = append(kept, entry{cert: cert, own: isOwn})
		}
	}
	add(bundle, false)
	add(own, true)
	for len(kept) > limit {
		oldest := -1
		for i, e := range kept {
			if !e.own && (oldest < 0 || e.cert.NotBefore.Before(kept[oldest].cert.NotBefore)) {
				oldest = i
			}
		}
		if oldest < 0 {
			break
		}
		kept = append(kept[:oldest], kept[oldest+1:]...)
	}
	var out []byte
	for _, e := range kept {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.cert.Raw})...)
	}
	return out
}

// parseCertificates returns the certificates of the PEM data that parse;
// other blocks and garbage are skipped.
func parseCertificates(data []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for len(data) > 0 {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if cert, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, cert)
		}
	}
	return out
}

// generateCerts returns a self-signed CA and a serving certificate it
// signs, PEM-encoded, with their keys.
func generateCerts(now time.Time, validity time.Duration, dnsNames []string, ips []net.IP) (caPEM, caKeyPEM, certPEM, keyPEM []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	serial := func() *big.Int {
		n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
		return n
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "profile-scheduler-webhook-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("creating CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cn := "profile-scheduler-webhook"
	if len(dnsNames) > 0 {
		cn = dnsNames[0]
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: cn},
		DNSNames:     dnsNames,
		IPAddresses:  ips,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("creating serving certificate: %w", err)
	}
	caKeyDER, err := x509.MarshalECPrivateKey(caKey)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: caKeyDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
