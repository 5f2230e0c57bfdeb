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

package webhookcert_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/internal/webhookcert"
)

var _ = Describe("Webhook certificates with several replicas", func() {
	const (
		name    = "cert-merge-test"
		dnsName = "profile-scheduler-webhook.profile-scheduler.svc"
	)

	It("merges every replica's CA into the caBundle, drops expired ones and keeps its own CA after a rotation", func() {
		Expect(k8s.Create(suiteCtx, unusedWebhookConfiguration(name))).To(Succeed())
		DeferCleanup(func() {
			Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, unusedWebhookConfiguration(name)))).To(Succeed())
		})
		rotator := func() (*webhookcert.Rotator, string) {
			dir := GinkgoT().TempDir()
			rot := &webhookcert.Rotator{Client: k8s, Options: webhookcert.Options{
				CertDir: dir, ConfigurationName: name, DNSNames: []string{dnsName},
				ResyncInterval: 200 * time.Millisecond,
			}}
			Expect(rot.Ensure(time.Now())).To(Succeed())
			return rot, dir
		}
		start := func(rot *webhookcert.Rotator) context.CancelFunc {
			ctx, cancel := context.WithCancel(suiteCtx)
			done := make(chan struct{})
			go func() {
				defer GinkgoRecover()
				defer close(done)
				Expect(rot.Start(ctx)).To(Succeed())
			}()
			stop := func() { cancel(); Eventually(done).WithTimeout(timeout).Should(BeClosed()) }
			DeferCleanup(stop)
			return stop
		}
		a, dirA := rotator()
		b, dirB := rotator()
		stopA := start(a)
		start(b)

		By("two replicas starting at once: the bundle trusts both serving certificates")
		Eventually(func(g Gomega) {
			bundle := caBundleOf(g, name)
			g.Expect(verifyServingCert(bundle, dirA, dnsName)).To(Succeed())
			g.Expect(verifyServingCert(bundle, dirB, dnsName)).To(Succeed())
			g.Expect(parsePEMCerts(g, bundle)).To(HaveLen(2))
		}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())

		By("an expired CA and garbage in the bundle are dropped; a lost CA is merged back")
		expired, _, _, _, err := webhookcert.Generate(time.Now().Add(-2*365*24*time.Hour), 365*24*time.Hour, nil, nil)
		Expect(err).NotTo(HaveOccurred())
		caA, err := os.ReadFile(filepath.Join(dirA, "ca.crt"))
		Expect(err).NotTo(HaveOccurred())
		setCABundle(name, append(append(expired, caA...), []byte("-----BEGIN CERTIFICATE-----\nZ2FyYmFnZQ==\n-----END CERTIFICATE-----\n")...))
		Eventually(func(g Gomega) {
			bundle := caBundleOf(g, name)
			g.Expect(string(bundle)).NotTo(ContainSubstring("Z2FyYmFnZQ=="))
			certs := parsePEMCerts(g, bundle)
			g.Expect(certs).To(HaveLen(2))
			for _, c := range certs {
				g.Expect(c.NotAfter).To(BeTemporally(">", time.Now()), "no expired CA is kept")
			}
			g.Expect(verifyServingCert(bundle, dirA, dnsName)).To(Succeed())
			g.Expect(verifyServingCert(bundle, dirB, dnsName)).To(Succeed())
		}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())

		By("a replica that renews its CA adds the new one and keeps the other replica's")
		stopA()
		Expect(os.Remove(filepath.Join(dirA, "tls.crt"))).To(Succeed())
		Expect(a.Ensure(time.Now())).To(Succeed())
		caA2, err := os.ReadFile(filepath.Join(dirA, "ca.crt"))
		Expect(err).NotTo(HaveOccurred())
		Expect(caA2).NotTo(Equal(caA))
		Expect(a.PatchCABundle(suiteCtx)).To(Succeed())
		Eventually(func(g Gomega) {
			bundle := caBundleOf(g, name)
			g.Expect(verifyServingCert(bundle, dirA, dnsName)).To(Succeed())
			g.Expect(verifyServingCert(bundle, dirB, dnsName)).To(Succeed())
			g.Expect(parsePEMCerts(g, bundle)).To(HaveLen(3), "the previous CA of the renewed replica stays until it expires")
		}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())
	})
})

// unusedWebhookConfiguration has a webhook that no request reaches: its
// object selector matches nothing this suite creates.
func unusedWebhookConfiguration(name string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	url := "https://127.0.0.1:1/unused"
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "unused.scheduling.profilescheduler.io",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"profilescheduler.io/never": "true"}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"},
				},
			}},
		}},
	}
}

func caBundleOf(g Gomega, name string) []byte {
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: name}, vwc)).To(Succeed())
	g.Expect(vwc.Webhooks).To(HaveLen(1))
	return vwc.Webhooks[0].ClientConfig.CABundle
}

// setCABundle overwrites the caBundle, as an older replica or a tool
// would.
func setCABundle(name string, bundle []byte) {
	Eventually(func() error {
		vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := k8s.Get(suiteCtx, client.ObjectKey{Name: name}, vwc); err != nil {
			return err
		}
		vwc.Webhooks[0].ClientConfig.CABundle = bundle
		return k8s.Update(suiteCtx, vwc)
	}).WithTimeout(timeout).Should(Succeed())
}

func parsePEMCerts(g Gomega, data []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return out
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		g.Expect(err).NotTo(HaveOccurred(), "every certificate of the bundle parses")
		out = append(out, cert)
	}
}

// verifyServingCert checks the serving certificate of a cert directory
// against the bundle, as the API server does when it calls the webhook.
func verifyServingCert(bundle []byte, dir, dnsName string) error {
	data, err := os.ReadFile(filepath.Join(dir, "tls.crt"))
	if err != nil {
		return err
	}
	block, _ := pem.Decode(data)
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(bundle)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: dnsName, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}
