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
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestRotator(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &Rotator{Options: Options{CertDir: dir, DNSNames: []string{"svc.ns.svc"}, Validity: 90 * time.Hour}}

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
	c2 := &Rotator{Options: c.Options}
	g.Expect(c2.Ensure(now.Add(62 * time.Hour))).To(Succeed())
	g.Expect(c2.caBundle).To(Equal(ca2))

	// Restarted with another name or address (the Service renamed, local
	// mode's localhost in a directory kept from another run): a
	// certificate that does not cover them is renewed at once.
	for _, o := range []Options{
		{CertDir: dir, DNSNames: []string{"localhost"}, Validity: 90 * time.Hour},
		{CertDir: dir, DNSNames: []string{"localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}, Validity: 90 * time.Hour},
	} {
		before, _ := os.ReadFile(filepath.Join(dir, "tls.crt"))
		c3 := &Rotator{Options: o}
		g.Expect(c3.Ensure(now.Add(63 * time.Hour))).To(Succeed())
		pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(pair.Leaf.DNSNames).To(ContainElement("localhost"))
		g.Expect(pair.Leaf.IPAddresses).To(HaveLen(len(o.IPs)))
		after, _ := os.ReadFile(filepath.Join(dir, "tls.crt"))
		g.Expect(after).NotTo(Equal(before))
		// Now it covers them: kept.
		g.Expect((&Rotator{Options: o}).Ensure(now.Add(64 * time.Hour))).To(Succeed())
		kept, _ := os.ReadFile(filepath.Join(dir, "tls.crt"))
		g.Expect(kept).To(Equal(after))
	}
}

func TestRotatorLeavesProvidedCertificates(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	g.Expect(os.WriteFile(filepath.Join(dir, "tls.crt"), []byte("provided"), 0o600)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(dir, "tls.key"), []byte("provided"), 0o600)).To(Succeed())
	c := &Rotator{Options: Options{CertDir: dir}}
	g.Expect(c.Ensure(time.Now())).To(Succeed())
	crt, _ := os.ReadFile(filepath.Join(dir, "tls.crt"))
	g.Expect(string(crt)).To(Equal("provided"))
	_, err := os.Stat(filepath.Join(dir, caCertFile))
	g.Expect(os.IsNotExist(err)).To(BeTrue())
}
