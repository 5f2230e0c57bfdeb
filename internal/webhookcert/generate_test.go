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
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

func TestGenerate(t *testing.T) {
	g := NewWithT(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	caPEM, caKeyPEM, certPEM, keyPEM, err := Generate(now, 90*time.Hour, []string{"svc.ns.svc", "svc"}, []net.IP{net.ParseIP("10.0.0.1")})
	g.Expect(err).NotTo(HaveOccurred())

	cas, err := certutil.ParseCertsPEM(caPEM)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cas).To(HaveLen(1))
	ca := cas[0]
	g.Expect(ca.IsCA).To(BeTrue())
	g.Expect(ca.Subject.CommonName).To(Equal("profile-scheduler-webhook-ca"))
	g.Expect(ca.NotBefore).To(Equal(now.Add(-time.Hour)))
	g.Expect(ca.NotAfter).To(Equal(now.Add(90 * time.Hour)))

	// The pair loads as the webhook server loads it, and the serving
	// certificate is trusted by the CA for its names at now.
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(pair.Leaf.Subject.CommonName).To(Equal("svc.ns.svc"))
	g.Expect(pair.Leaf.IsCA).To(BeFalse())
	g.Expect(pair.Leaf.NotAfter).To(Equal(now.Add(90 * time.Hour)))
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for _, name := range []string{"svc.ns.svc", "svc", "10.0.0.1"} {
		_, err := pair.Leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		g.Expect(err).NotTo(HaveOccurred(), name)
	}
	_, err = pair.Leaf.Verify(x509.VerifyOptions{DNSName: "other.ns.svc", Roots: roots, CurrentTime: now})
	g.Expect(err).To(HaveOccurred())
	_, err = pair.Leaf.Verify(x509.VerifyOptions{DNSName: "svc", Roots: roots, CurrentTime: now.Add(91 * time.Hour)})
	g.Expect(err).To(HaveOccurred(), "expired")

	// The CA key is the CA's.
	caKey, err := keyutil.ParsePrivateKeyPEM(caKeyPEM)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(caKey.(*ecdsa.PrivateKey).PublicKey.Equal(ca.PublicKey)).To(BeTrue())
}
