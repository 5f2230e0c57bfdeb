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
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/webhookcert"
)

// upstreamExtenderCase is one case of TestUpstreamExtender;
// FuzzResolveExtender seeds its corpus with every one.
type upstreamExtenderCase struct {
	name   string
	spec   v1alpha1.ExtenderConfigSpec
	secret *corev1.Secret
	reason string
}

func upstreamExtenderCases(caPEM, certPEM, keyPEM []byte) []upstreamExtenderCase {
	ref := &v1alpha1.SecretReference{Namespace: "ns", Name: "tls"}
	secret := func(data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tls"}, Data: data}
	}
	base := v1alpha1.ExtenderConfigSpec{URLPrefix: "https://ext.example:8443/sched", FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 2,
		HTTPTimeout: &metav1.Duration{Duration: 3 * time.Second}, TLSConfig: &v1alpha1.ExtenderTLSConfig{SecretRef: ref},
		ManagedResources: []v1alpha1.ExtenderManagedResource{{Name: "example.com/gpu", IgnoredByScheduler: true}}}
	with := func(f func(s *v1alpha1.ExtenderConfigSpec)) v1alpha1.ExtenderConfigSpec {
		s := *base.DeepCopy()
		f(&s)
		return s
	}
	return []upstreamExtenderCase{
		{"https with CA and client certificate", base, secret(map[string][]byte{"ca.crt": caPEM, "tls.crt": certPEM, "tls.key": keyPEM}), ""},
		{"plain http", v1alpha1.ExtenderConfigSpec{URLPrefix: "http://127.0.0.1:8888/x", FilterVerb: "filter"}, nil, ""},
		{"secret missing", base, nil, v1alpha1.ReasonSecretNotFound},
		{"no CA in secret", base, secret(map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM}), v1alpha1.ReasonInvalidTLS},
		{"certificate without key", base, secret(map[string][]byte{"ca.crt": caPEM, "tls.crt": certPEM}), v1alpha1.ReasonInvalidTLS},
		{"CA is not PEM", base, secret(map[string][]byte{"ca.crt": []byte("not a certificate")}), v1alpha1.ReasonInvalidTLS},
		{"key does not match", base, secret(map[string][]byte{"ca.crt": caPEM, "tls.crt": certPEM, "tls.key": []byte("junk")}), v1alpha1.ReasonInvalidTLS},
		{"bad scheme", with(func(s *v1alpha1.ExtenderConfigSpec) { s.URLPrefix = "ftp://x" }), nil, v1alpha1.ReasonInvalidSpec},
		{"no host", with(func(s *v1alpha1.ExtenderConfigSpec) { s.URLPrefix = "https:///x" }), nil, v1alpha1.ReasonInvalidSpec},
		{"no verb", v1alpha1.ExtenderConfigSpec{URLPrefix: "http://x"}, nil, v1alpha1.ReasonInvalidSpec},
		{"prioritize without weight", with(func(s *v1alpha1.ExtenderConfigSpec) { s.Weight = 0 }), nil, v1alpha1.ReasonInvalidSpec},
		{"weight too big", with(func(s *v1alpha1.ExtenderConfigSpec) { s.Weight = 101 }), nil, v1alpha1.ReasonInvalidSpec},
		{"zero timeout", with(func(s *v1alpha1.ExtenderConfigSpec) { s.HTTPTimeout = &metav1.Duration{} }), nil, v1alpha1.ReasonInvalidSpec},
		{"timeout too long", with(func(s *v1alpha1.ExtenderConfigSpec) { s.HTTPTimeout = &metav1.Duration{Duration: time.Hour} }), nil, v1alpha1.ReasonInvalidSpec},
		{"verb with a query", with(func(s *v1alpha1.ExtenderConfigSpec) { s.FilterVerb = "filter?x=1" }), nil, v1alpha1.ReasonInvalidSpec},
		{"managed resource that is not an extended resource", with(func(s *v1alpha1.ExtenderConfigSpec) {
			s.ManagedResources = []v1alpha1.ExtenderManagedResource{{Name: "cpu"}}
		}), secret(map[string][]byte{"ca.crt": caPEM}), v1alpha1.ReasonInvalidSpec},
		{"TLS over http", with(func(s *v1alpha1.ExtenderConfigSpec) { s.URLPrefix = "http://x" }), nil, v1alpha1.ReasonInvalidSpec},
	}
}

func TestUpstreamExtender(t *testing.T) {
	caPEM, _, certPEM, keyPEM, err := webhookcert.Generate(time.Now(), time.Hour, []string{"localhost"}, nil)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	for _, tt := range upstreamExtenderCases(caPEM, certPEM, keyPEM) {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ec := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "e"}, Spec: tt.spec}
			ext, refusal := upstreamExtender(ec, tt.secret)
			if tt.reason != "" {
				g.Expect(refusal).NotTo(BeNil())
				t.Log(refusal.Message)
				g.Expect(refusal.Reason).To(Equal(tt.reason))
				return
			}
			g.Expect(refusal).To(BeNil())
			g.Expect(ext.URLPrefix).To(Equal(tt.spec.URLPrefix))
			g.Expect(ext.FilterVerb).To(Equal(tt.spec.FilterVerb))
			if tt.secret != nil {
				g.Expect(ext.EnableHTTPS).To(BeTrue())
				g.Expect(ext.TLSConfig.CAData).To(Equal(caPEM))
				g.Expect(ext.TLSConfig.CertData).To(Equal(certPEM))
				g.Expect(ext.Weight).To(BeEquivalentTo(2))
				g.Expect(ext.HTTPTimeout.Duration).To(Equal(3 * time.Second))
				g.Expect(ext.ManagedResources).To(HaveLen(1))
			}
		})
	}
}

func TestExtenderSecretKey(t *testing.T) {
	withRef := func(ref *v1alpha1.SecretReference) *v1alpha1.ExtenderConfig {
		return &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "e"}, Spec: v1alpha1.ExtenderConfigSpec{
			URLPrefix: "https://ext.example/x", FilterVerb: "filter", TLSConfig: &v1alpha1.ExtenderTLSConfig{SecretRef: ref}}}
	}
	tests := []struct {
		name      string
		ec        *v1alpha1.ExtenderConfig
		namespace string
		want      string // "namespace/name", "" when no Secret is read
		refused   bool
	}{
		{name: "no TLS", ec: &v1alpha1.ExtenderConfig{Spec: v1alpha1.ExtenderConfigSpec{URLPrefix: "http://x", FilterVerb: "f"}}, namespace: "ops"},
		{name: "TLS without a Secret", ec: &v1alpha1.ExtenderConfig{Spec: v1alpha1.ExtenderConfigSpec{TLSConfig: &v1alpha1.ExtenderTLSConfig{Insecure: true}}}, namespace: "ops"},
		{name: "namespace unset means the extender-secrets namespace", ec: withRef(&v1alpha1.SecretReference{Name: "tls"}), namespace: "ops", want: "ops/tls"},
		{name: "the extender-secrets namespace named", ec: withRef(&v1alpha1.SecretReference{Namespace: "ops", Name: "tls"}), namespace: "ops", want: "ops/tls"},
		{name: "another namespace is refused", ec: withRef(&v1alpha1.SecretReference{Namespace: "kube-system", Name: "tls"}), namespace: "ops", refused: true},
		{name: "no namespace configured means default", ec: withRef(&v1alpha1.SecretReference{Name: "tls"}), want: "default/tls"},
		{name: "no namespace configured still refuses others", ec: withRef(&v1alpha1.SecretReference{Namespace: "tenant", Name: "tls"}), refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			key, ok, refusal := extenderSecretKey(tt.ec, tt.namespace)
			if tt.refused {
				g.Expect(refusal).NotTo(BeNil())
				g.Expect(ok).To(BeFalse())
				g.Expect(refusal.Reason).To(Equal(v1alpha1.ReasonSecretNamespaceNotAllowed))
				g.Expect(refusal.Message).To(HavePrefix(fmt.Sprintf("spec.tlsConfig.secretRef.namespace %q", tt.ec.Spec.TLSConfig.SecretRef.Namespace)))
				return
			}
			g.Expect(refusal).To(BeNil())
			g.Expect(ok).To(Equal(tt.want != ""))
			if ok {
				g.Expect(key.String()).To(Equal(tt.want))
			}
		})
	}
}
