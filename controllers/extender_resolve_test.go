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
	"context"
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/webhookcert"
)

// TestResolveExtender checks the reads behind resolveExtender, which the
// reconcilers and the webhook share: a missing ExtenderConfig is no error,
// a missing Secret is a refusal, a failed read is an error naming what it
// read.
func TestResolveExtender(t *testing.T) {
	caPEM, _, _, _, err := webhookcert.Generate(time.Now(), time.Hour, []string{"localhost"}, nil)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	scheme := runtime.NewScheme()
	NewWithT(t).Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	NewWithT(t).Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())

	plain := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "plain", Generation: 3},
		Spec: v1alpha1.ExtenderConfigSpec{URLPrefix: "http://127.0.0.1:8888/x", FilterVerb: "filter"}}
	tlsSpec := v1alpha1.ExtenderConfigSpec{URLPrefix: "https://ext.example/x", FilterVerb: "filter",
		TLSConfig: &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: "ns", Name: "tls"}}}
	withTLS := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "with-tls"}, Spec: tlsSpec}
	noSecret := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "no-secret"},
		Spec: *tlsSpec.DeepCopy()}
	noSecret.Spec.TLSConfig.SecretRef.Name = "absent"
	elsewhere := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere"},
		Spec: *tlsSpec.DeepCopy()}
	elsewhere.Spec.TLSConfig.SecretRef.Namespace = "kube-system"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tls"}, Data: map[string][]byte{v1alpha1.SecretKeyCA: caPEM}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(plain, withTLS, noSecret, elsewhere, secret).Build()

	tests := []struct {
		name      string
		reader    client.Reader
		extender  string
		found     bool
		reason    string
		errSubstr string
	}{
		{name: "plain http", reader: c, extender: "plain", found: true},
		{name: "TLS material from the Secret", reader: c, extender: "with-tls", found: true},
		{name: "missing ExtenderConfig", reader: c, extender: "absent"},
		{name: "missing Secret", reader: c, extender: "no-secret", found: true, reason: v1alpha1.ReasonSecretNotFound},
		{name: "Secret outside the extender-secrets namespace", reader: c, extender: "elsewhere", found: true, reason: v1alpha1.ReasonSecretNamespaceNotAllowed},
		{name: "ExtenderConfig read fails", extender: "plain", errSubstr: `reading ExtenderConfig "plain"`,
			reader: fakeFailing(c, func(o client.Object) bool { _, ok := o.(*v1alpha1.ExtenderConfig); return ok })},
		{name: "Secret read fails", extender: "with-tls", errSubstr: `reading Secret ns/tls of ExtenderConfig "with-tls"`,
			reader: fakeFailing(c, func(o client.Object) bool { _, ok := o.(*corev1.Secret); return ok })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ec, ext, refusal, err := resolveExtender(context.Background(), tt.reader, tt.extender, "ns")
			if tt.errSubstr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.errSubstr)))
				g.Expect(ec).To(BeNil())
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			if !tt.found {
				g.Expect(ec).To(BeNil())
				g.Expect(refusal).To(BeNil())
				return
			}
			g.Expect(ec).NotTo(BeNil())
			g.Expect(ec.Name).To(Equal(tt.extender))
			if tt.reason != "" {
				g.Expect(refusal).NotTo(BeNil())
				g.Expect(refusal.Reason).To(Equal(tt.reason))
				return
			}
			g.Expect(refusal).To(BeNil())
			g.Expect(ext.URLPrefix).To(Equal(ec.Spec.URLPrefix))
			if ec.Spec.TLSConfig != nil {
				g.Expect(ext.TLSConfig.CAData).To(Equal(caPEM))
			}
		})
	}
}

// fakeFailing is c, except that every Get of an object fail matches
// fails.
func fakeFailing(c client.WithWatch, fail func(client.Object) bool) client.Reader {
	return interceptor.NewClient(c, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if fail(obj) {
				return errors.New("connection refused")
			}
			return c.Get(ctx, key, obj, opts...)
		},
	})
}
