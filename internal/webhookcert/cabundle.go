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
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// maxCABundleCerts bounds the CA certificates a caBundle keeps: the CAs of
// replicas that are gone stay until they expire or, past this bound, the
// oldest of them are dropped. It must exceed the number of replicas.
const maxCABundleCerts = 16

// PatchCABundle merges the CA bundle of this rotator into the caBundle of
// every webhook of the configuration (see mergeCABundle), and writes it
// only when that changes it. A conflicting write by another replica is
// retried on a fresh read.
func (c *Rotator) PatchCABundle(ctx context.Context) error {
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
	certs := make([]*x509.Certificate, 0, len(kept))
	for _, e := range kept {
		certs = append(certs, e.cert)
	}
	if len(certs) == 0 {
		return nil
	}
	out, _ := certutil.EncodeCertificates(certs...) // writes to memory: cannot fail
	return out
}

// parseCertificates returns the certificates of the PEM data that parse;
// other blocks and garbage are skipped. certutil.ParseCertsPEM stops at the
// first certificate that does not parse, where a caBundle merged by several
// replicas must keep the good ones after a bad one.
func parseCertificates(data []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for len(data) > 0 {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != certutil.CertificateBlockType {
			continue
		}
		if cert, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, cert)
		}
	}
	return out
}
