package controllers

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Files the CertRotator keeps in the cert directory, beside the serving
// certificate and key (tls.crt, tls.key).
const (
	caCertFile = "ca.crt"
	caKeyFile  = "ca.key"
)

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
	if err != nil || pair.Leaf == nil {
		return false
	}
	life := pair.Leaf.NotAfter.Sub(pair.Leaf.NotBefore)
	return pair.Leaf.NotAfter.Sub(now) > life/3
}

// stillValid reports whether the first certificate of caPEM parses and
// has not expired at now.
func stillValid(caPEM []byte, now time.Time) bool {
	certs, err := certutil.ParseCertsPEM(caPEM)
	return err == nil && now.Before(certs[0].NotAfter)
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

// generateCerts returns a self-signed CA and a serving certificate it
// signs, PEM-encoded, with their keys (ECDSA P-256). Both are valid from an
// hour before now (clock skew) until now+validity. client-go's
// certutil.NewSelfSignedCACert is not used for the CA: it reads the clock
// itself and makes every CA valid for ten years, where a rotated CA must
// expire with its serving certificate to leave the other replicas'
// caBundles (mergeCABundle drops expired CAs).
func generateCerts(now time.Time, validity time.Duration, dnsNames []string, ips []net.IP) (caPEM, caKeyPEM, certPEM, keyPEM []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ca, err := signCert(certutil.Config{CommonName: "profile-scheduler-webhook-ca", NotBefore: now.Add(-time.Hour)}, now.Add(validity), &caKey.PublicKey, nil, caKey)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("creating CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cn := "profile-scheduler-webhook"
	if len(dnsNames) > 0 {
		cn = dnsNames[0]
	}
	serving := certutil.Config{
		CommonName: cn,
		AltNames:   certutil.AltNames{DNSNames: dnsNames, IPs: ips},
		Usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		NotBefore:  now.Add(-time.Hour),
	}
	cert, err := signCert(serving, now.Add(validity), &key.PublicKey, ca, caKey)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("creating serving certificate: %w", err)
	}
	if caPEM, err = certutil.EncodeCertificates(ca); err != nil {
		return nil, nil, nil, nil, err
	}
	if caKeyPEM, err = keyutil.MarshalPrivateKeyToPEM(caKey); err != nil {
		return nil, nil, nil, nil, err
	}
	if certPEM, err = certutil.EncodeCertificates(cert); err != nil {
		return nil, nil, nil, nil, err
	}
	if keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key); err != nil {
		return nil, nil, nil, nil, err
	}
	return caPEM, caKeyPEM, certPEM, keyPEM, nil
}

// signCert issues the certificate cfg describes for pub, valid from
// cfg.NotBefore until notAfter, signed by ca's key caKey; with a nil ca it
// is a self-signed CA certificate.
func signCert(cfg certutil.Config, notAfter time.Time, pub crypto.PublicKey, ca *x509.Certificate, caKey crypto.Signer) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cfg.CommonName, Organization: cfg.Organization},
		DNSNames:     cfg.AltNames.DNSNames,
		IPAddresses:  cfg.AltNames.IPs,
		NotBefore:    cfg.NotBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  cfg.Usages,
	}
	parent := ca
	if ca == nil {
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.BasicConstraintsValid, tmpl.IsCA = true, true
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, caKey)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
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
