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

package webhookcert

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/profile-scheduler/profile-scheduler/internal/atomicfile"
)

// Files the Rotator keeps in the cert directory, beside the serving
// certificate and key (tls.crt, tls.key).
const (
	caCertFile = "ca.crt"
	caKeyFile  = "ca.key"
)

// Options configures a Rotator.
type Options struct {
	// CertDir holds tls.crt and tls.key, and the CA the Rotator generated.
	CertDir string
	// ConfigurationName is the ValidatingWebhookConfiguration whose
	// caBundle the CA is merged into; empty means none is written.
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

// Rotator generates a self-signed CA and a serving certificate signed
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
type Rotator struct {
	Client  client.Client
	Options Options

	// caBundle is what the configuration should trust: the current CA and,
	// during a rotation, the previous one.
	caBundle []byte
}

var _ manager.Runnable = &Rotator{}

// NeedLeaderElection is false: every replica serves the webhook.
func (c *Rotator) NeedLeaderElection() bool { return false }

func (c *Rotator) path(name string) string { return filepath.Join(c.Options.CertDir, name) }

func (c *Rotator) validity() time.Duration {
	if c.Options.Validity > 0 {
		return c.Options.Validity
	}
	return 365 * 24 * time.Hour
}

// managed reports whether the cert directory is empty or holds what a
// Rotator wrote.
func (c *Rotator) managed() bool {
	if _, err := os.Stat(c.path("tls.crt")); errors.Is(err, os.ErrNotExist) {
		return true
	}
	_, err := os.Stat(c.path(caKeyFile))
	return err == nil
}

// Ensure writes a CA and serving certificate when there are none, or when
// a third of their validity or less remains at now.
func (c *Rotator) Ensure(now time.Time) error {
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
	caPEM, caKeyPEM, certPEM, keyPEM, err := Generate(now, c.validity(), c.Options.DNSNames, c.Options.IPs)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{caKeyFile, caKeyPEM}, {caCertFile, caPEM}, {"tls.key", keyPEM}, {"tls.crt", certPEM}} {
		if err := atomicfile.Write(c.path(f.name), f.data, 0o600); err != nil {
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
// is valid for every DNS name and IP of the options (a directory kept
// from a run with another Service name, say, is not), and has more than
// a third of its validity left.
func (c *Rotator) fresh(now time.Time) bool {
	pair, err := tls.LoadX509KeyPair(c.path("tls.crt"), c.path("tls.key"))
	if err != nil || pair.Leaf == nil {
		return false
	}
	for _, name := range c.Options.DNSNames {
		if !slices.Contains(pair.Leaf.DNSNames, name) {
			return false
		}
	}
	for _, ip := range c.Options.IPs {
		if !slices.ContainsFunc(pair.Leaf.IPAddresses, ip.Equal) {
			return false
		}
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
func (c *Rotator) Start(ctx context.Context) error {
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
