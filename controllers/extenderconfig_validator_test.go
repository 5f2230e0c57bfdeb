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
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// TestExtenderValidator checks that the ExtenderConfig webhook refuses what
// the reconciler refuses before reading a Secret, with the status's reason
// and message, and admits the rest.
func TestExtenderValidator(t *testing.T) {
	const ns = "ops"
	v := &extenderValidator{ExtenderSecretsNamespace: ns}
	withSpec := func(mutate func(*v1alpha1.ExtenderConfigSpec)) *v1alpha1.ExtenderConfig {
		ec := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "e"}, Spec: v1alpha1.ExtenderConfigSpec{
			URLPrefix: "https://ext.example/x", FilterVerb: "filter"}}
		mutate(&ec.Spec)
		return ec
	}
	ref := func(namespace string) func(*v1alpha1.ExtenderConfigSpec) {
		return func(s *v1alpha1.ExtenderConfigSpec) {
			s.TLSConfig = &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: namespace, Name: "tls"}}
		}
	}
	tests := []struct {
		name   string
		ec     *v1alpha1.ExtenderConfig
		field  string // the field path of the refusal; "" when admitted
		reason string
	}{
		{name: "no TLS", ec: withSpec(func(*v1alpha1.ExtenderConfigSpec) {})},
		{name: "secretRef without a namespace", ec: withSpec(ref(""))},
		{name: "secretRef in the extender-secrets namespace", ec: withSpec(ref(ns))},
		{name: "secretRef in kube-system", ec: withSpec(ref("kube-system")), field: "spec.tlsConfig.secretRef.namespace", reason: v1alpha1.ReasonSecretNamespaceNotAllowed},
		{name: "no verb", ec: withSpec(func(s *v1alpha1.ExtenderConfigSpec) { s.FilterVerb = "" }), field: "spec", reason: v1alpha1.ReasonInvalidSpec},
		{name: "bad scheme", ec: withSpec(func(s *v1alpha1.ExtenderConfigSpec) { s.URLPrefix = "ftp://ext.example/x" }), field: "spec", reason: v1alpha1.ReasonInvalidSpec},
		{name: "tlsConfig over http", ec: withSpec(func(s *v1alpha1.ExtenderConfigSpec) {
			s.URLPrefix = "http://ext.example/x"
			s.TLSConfig = &v1alpha1.ExtenderTLSConfig{Insecure: true}
		}), field: "spec", reason: v1alpha1.ReasonInvalidSpec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			warnings, err := v.ValidateCreate(context.Background(), tt.ec)
			g.Expect(warnings).To(BeEmpty())
			if tt.field == "" {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			// The reconciler refuses it before reading the Secret (a nil
			// reader would panic if it tried), with the same message.
			_, refusal, buildErr := buildExtender(context.Background(), nil, tt.ec, ns)
			g.Expect(buildErr).NotTo(HaveOccurred())
			g.Expect(refusal).NotTo(BeNil())
			g.Expect(refusal.Reason).To(Equal(tt.reason))
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
			causes := err.(*apierrors.StatusError).Status().Details.Causes
			g.Expect(causes).To(HaveLen(1))
			g.Expect(causes[0].Field).To(Equal(tt.field))
			g.Expect(causes[0].Message).To(ContainSubstring(tt.reason + ": " + refusal.Message))
		})
	}
}

// TestExtenderValidatorUpdate checks that an update of metadata alone, or
// of an object being deleted, is admitted even when its spec is refused,
// and that a spec change is checked.
func TestExtenderValidatorUpdate(t *testing.T) {
	g := NewWithT(t)
	v := &extenderValidator{ExtenderSecretsNamespace: "ops"}
	old := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "e"}, Spec: v1alpha1.ExtenderConfigSpec{
		URLPrefix: "https://ext.example/x", FilterVerb: "filter",
		TLSConfig: &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: "tenant", Name: "tls"}}}}

	relabelled := old.DeepCopy()
	relabelled.Labels = map[string]string{"team": "a"}
	_, err := v.ValidateUpdate(context.Background(), old, relabelled)
	g.Expect(err).NotTo(HaveOccurred())

	deleting := old.DeepCopy()
	now := metav1.Now()
	deleting.DeletionTimestamp = &now
	deleting.Spec.FilterVerb = "other"
	_, err = v.ValidateUpdate(context.Background(), old, deleting)
	g.Expect(err).NotTo(HaveOccurred())

	changed := old.DeepCopy()
	changed.Spec.FilterVerb = "other"
	_, err = v.ValidateUpdate(context.Background(), old, changed)
	g.Expect(err).To(MatchError(ContainSubstring("spec.tlsConfig.secretRef.namespace")))

	fixed := old.DeepCopy()
	fixed.Spec.TLSConfig.SecretRef.Namespace = ""
	_, err = v.ValidateUpdate(context.Background(), old, fixed)
	g.Expect(err).NotTo(HaveOccurred())

	_, err = v.ValidateDelete(context.Background(), old)
	g.Expect(err).NotTo(HaveOccurred())
}
