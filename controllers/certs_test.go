package controllers

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

func TestCertRotator(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &CertRotator{Options: WebhookOptions{CertDir: dir, DNSNames: []string{"svc.ns.svc"}, Validity: 90 * time.Hour}}

	g.Expect(c.Ensure(now)).To(Succeed())
	crt1, err := os.ReadFile(filepath.Join(dir, "tls.crt"))
	g.Expect(err).NotTo(HaveOccurred())
	ca1, err := os.ReadFile(filepath.Join(dir, caCertFile))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.caBundle).To(Equal(ca1))

	// Fresh: nothing changes.
	g.Expect(c.Ensure(now.Add(50 * time.Hour))).To(Succeed())
	crt, _ := os.ReadFile(filepath.Join(dir, "tls.crt"))
	g.Expect(crt).To(Equal(crt1))

	// A third of the validity left: both are renewed, and the bundle
	// trusts the old CA and the new one during the change.
	g.Expect(c.Ensure(now.Add(61 * time.Hour))).To(Succeed())
	crt2, _ := os.ReadFile(filepath.Join(dir, "tls.crt"))
	ca2, _ := os.ReadFile(filepath.Join(dir, caCertFile))
	g.Expect(crt2).NotTo(Equal(crt1))
	g.Expect(ca2).NotTo(Equal(ca1))
	g.Expect(bytes.Contains(c.caBundle, ca1)).To(BeTrue())
	g.Expect(bytes.Contains(c.caBundle, ca2)).To(BeTrue())

	// A restarted operator finds fresh certificates and trusts the current CA only.
	c2 := &CertRotator{Options: c.Options}
	g.Expect(c2.Ensure(now.Add(62 * time.Hour))).To(Succeed())
	g.Expect(c2.caBundle).To(Equal(ca2))
}

func TestCertRotatorLeavesProvidedCertificates(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	g.Expect(os.WriteFile(filepath.Join(dir, "tls.crt"), []byte("provided"), 0o600)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(dir, "tls.key"), []byte("provided"), 0o600)).To(Succeed())
	c := &CertRotator{Options: WebhookOptions{CertDir: dir}}
	g.Expect(c.Ensure(time.Now())).To(Succeed())
	crt, _ := os.ReadFile(filepath.Join(dir, "tls.crt"))
	g.Expect(string(crt)).To(Equal("provided"))
	_, err := os.Stat(filepath.Join(dir, caCertFile))
	g.Expect(os.IsNotExist(err)).To(BeTrue())
}

func TestMergeCABundle(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	newCA := func(issued time.Time, validity time.Duration) []byte {
		ca, _, _, _, err := generateCerts(issued, validity, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ca
	}
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	own := newCA(now.Add(-time.Hour), 24*time.Hour)
	other := newCA(now.Add(-2*time.Hour), 24*time.Hour)
	expired := newCA(now.Add(-48*time.Hour), 24*time.Hour)
	garbage := []byte("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n")
	key := []byte("-----BEGIN EC PRIVATE KEY-----\nbm90IGEga2V5\n-----END EC PRIVATE KEY-----\n")
	many := make([][]byte, 20)
	for i := range many {
		many[i] = newCA(now.Add(-time.Duration(100-i)*time.Minute), 24*time.Hour)
	}

	tests := []struct {
		name   string
		bundle []byte
		own    []byte
		limit  int
		want   []byte
	}{
		{"empty bundle takes the own CA", nil, own, 16, own},
		{"a placeholder is replaced", []byte("Cg=="), own, 16, own},
		{"another replica's CA is kept, the own one appended", other, own, 16, join(other, own)},
		{"the own CA already there: unchanged", join(own, other), own, 16, join(own, other)},
		{"expired, unparseable and non-certificate blocks are dropped", join(expired, other, garbage, key), own, 16, join(other, own)},
		{"duplicates are dropped", join(other, other), own, 16, join(other, own)},
		{"an own CA that expired is not added", other, join(own, expired), 16, join(other, own)},
		{"past the limit the first issued foreign CAs go, the own one stays", join(many...), own, 16, join(join(many[5:]...), own)},
		{"the own CAs stay even beyond the limit", join(other, own), own, 1, own},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := mergeCABundle(tt.bundle, tt.own, now, tt.limit)
			g.Expect(string(got)).To(Equal(string(tt.want)))
			g.Expect(string(mergeCABundle(got, tt.own, now, tt.limit))).To(Equal(string(got)), "merging again changes nothing")
		})
	}
}

func TestGenerateCerts(t *testing.T) {
	g := NewWithT(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	caPEM, caKeyPEM, certPEM, keyPEM, err := generateCerts(now, 90*time.Hour, []string{"svc.ns.svc", "svc"}, []net.IP{net.ParseIP("10.0.0.1")})
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
