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
	"fmt"
	"net/url"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// maxExtenderTimeout bounds spec.httpTimeout, as the CRD schema does.
const maxExtenderTimeout = 5 * time.Minute

// validateExtenderSpec checks what the schema cannot, or what it checks
// only when the CRD is installed as generated: the URL, the verbs, the
// weight and the timeout.
func validateExtenderSpec(spec *v1alpha1.ExtenderConfigSpec) *Refusal {
	u, err := url.Parse(spec.URLPrefix)
	if err != nil {
		return refuse(v1alpha1.ReasonInvalidSpec, "spec.urlPrefix %q: %v", spec.URLPrefix, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return refuse(v1alpha1.ReasonInvalidSpec, "spec.urlPrefix %q: scheme must be http or https", spec.URLPrefix)
	}
	if u.Host == "" {
		return refuse(v1alpha1.ReasonInvalidSpec, "spec.urlPrefix %q: host is missing", spec.URLPrefix)
	}
	if spec.FilterVerb == "" && spec.PrioritizeVerb == "" && spec.BindVerb == "" && spec.PreemptVerb == "" {
		return refuse(v1alpha1.ReasonInvalidSpec, "spec: at least one of filterVerb, prioritizeVerb, preemptVerb, bindVerb must be set")
	}
	for name, verb := range map[string]string{"filterVerb": spec.FilterVerb, "prioritizeVerb": spec.PrioritizeVerb, "preemptVerb": spec.PreemptVerb, "bindVerb": spec.BindVerb} {
		if strings.ContainsAny(verb, " ?#") {
			return refuse(v1alpha1.ReasonInvalidSpec, "spec.%s %q: must be a URL path segment", name, verb)
		}
	}
	if spec.PrioritizeVerb != "" && spec.Weight <= 0 {
		return refuse(v1alpha1.ReasonInvalidSpec, "spec.weight %d: must be positive when prioritizeVerb is set", spec.Weight)
	}
	if spec.Weight < 0 || spec.Weight > 100 {
		return refuse(v1alpha1.ReasonInvalidSpec, "spec.weight %d: must be between 1 and 100", spec.Weight)
	}
	if t := spec.HTTPTimeout; t != nil && (t.Duration <= 0 || t.Duration > maxExtenderTimeout) {
		return refuse(v1alpha1.ReasonInvalidSpec, "spec.httpTimeout %s: must be greater than 0s and at most %s", t.Duration, maxExtenderTimeout)
	}
	if spec.TLSConfig != nil && u.Scheme != "https" && !spec.EnableHTTPS {
		return refuse(v1alpha1.ReasonInvalidSpec, "spec.tlsConfig needs an https urlPrefix or enableHTTPS")
	}
	return nil
}

// upstreamExtender builds the upstream extender configuration of ec, with
// the TLS material of secret (nil when ec names none) inline.
func upstreamExtender(ec *v1alpha1.ExtenderConfig, secret *corev1.Secret) (config.Extender, *Refusal) {
	if r := validateExtenderSpec(&ec.Spec); r != nil {
		return config.Extender{}, r
	}
	s := ec.Spec
	out := config.Extender{
		URLPrefix:        s.URLPrefix,
		FilterVerb:       s.FilterVerb,
		PreemptVerb:      s.PreemptVerb,
		PrioritizeVerb:   s.PrioritizeVerb,
		Weight:           s.Weight,
		BindVerb:         s.BindVerb,
		EnableHTTPS:      s.EnableHTTPS || strings.HasPrefix(s.URLPrefix, "https://"),
		NodeCacheCapable: s.NodeCacheCapable,
		Ignorable:        s.Ignorable,
	}
	if s.HTTPTimeout != nil {
		out.HTTPTimeout = metav1.Duration{Duration: s.HTTPTimeout.Duration}
	}
	for _, r := range s.ManagedResources {
		out.ManagedResources = append(out.ManagedResources, config.ExtenderManagedResource{Name: r.Name, IgnoredByScheduler: r.IgnoredByScheduler})
	}
	if t := s.TLSConfig; t != nil {
		out.TLSConfig = &config.ExtenderTLSConfig{Insecure: t.Insecure, ServerName: t.ServerName}
		if t.SecretRef != nil {
			if secret == nil {
				return config.Extender{}, refuse(v1alpha1.ReasonSecretNotFound, "spec.tlsConfig.secretRef: Secret %s/%s not found", t.SecretRef.Namespace, t.SecretRef.Name)
			}
			out.TLSConfig.CAData = secret.Data[v1alpha1.SecretKeyCA]
			out.TLSConfig.CertData = secret.Data[v1alpha1.SecretKeyCert]
			out.TLSConfig.KeyData = secret.Data[v1alpha1.SecretKeyKey]
			if len(out.TLSConfig.CAData) == 0 && !t.Insecure {
				return config.Extender{}, refuse(v1alpha1.ReasonInvalidTLS, "spec.tlsConfig.secretRef: Secret %s/%s has no %s", t.SecretRef.Namespace, t.SecretRef.Name, v1alpha1.SecretKeyCA)
			}
			if (len(out.TLSConfig.CertData) == 0) != (len(out.TLSConfig.KeyData) == 0) {
				return config.Extender{}, refuse(v1alpha1.ReasonInvalidTLS, "spec.tlsConfig.secretRef: Secret %s/%s must hold both %s and %s, or neither", t.SecretRef.Namespace, t.SecretRef.Name, v1alpha1.SecretKeyCert, v1alpha1.SecretKeyKey)
			}
		}
	}
	if r := validateUpstreamExtender(out); r != nil {
		return config.Extender{}, r
	}
	// Building the upstream HTTP extender loads the CA and the client key
	// pair, so unreadable TLS material is refused here, not at the first
	// scheduling cycle.
	probe := out
	if out.TLSConfig != nil {
		tls := *out.TLSConfig
		probe.TLSConfig = &tls
	}
	if _, err := scheduler.NewHTTPExtender(&probe); err != nil {
		return config.Extender{}, refuse(v1alpha1.ReasonInvalidTLS, "spec.tlsConfig: building the HTTP extender: %v", err)
	}
	return out, nil
}

// resolveExtender reads the ExtenderConfig named and the Secret it reads
// (from namespace, the extender-secrets namespace, only), and builds its
// upstream extender: the one way the reconcilers and the webhook turn a
// reference into an extender. The ExtenderConfig is nil when it does not
// exist; the refusal says why an existing one cannot be used; an error is a
// read that may pass on retry.
func resolveExtender(ctx context.Context, c client.Reader, name, namespace string) (*v1alpha1.ExtenderConfig, config.Extender, *Refusal, error) {
	ec := &v1alpha1.ExtenderConfig{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, ec); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, config.Extender{}, nil, nil
		}
		return nil, config.Extender{}, nil, fmt.Errorf("reading ExtenderConfig %q: %w", name, err)
	}
	ext, refusal, err := buildExtender(ctx, c, ec, namespace)
	if err != nil {
		return nil, config.Extender{}, nil, err
	}
	return ec, ext, refusal, nil
}

// validateUpstreamExtender runs the upstream validation of extenders
// (weight, managed resource names) on ext alone.
func validateUpstreamExtender(ext config.Extender) *Refusal {
	probe := &v1alpha1.SchedulerProfile{}
	probe.Name = "extender-validation"
	_, r := convertProfile(probe, []config.Extender{ext})
	if r == nil {
		return nil
	}
	return refuse(v1alpha1.ReasonInvalidSpec, "%s", strings.ReplaceAll(r.Message, "spec.extenders[0].", "spec."))
}

// secretKey is the index key of a Secret reference.
func secretKey(namespace, name string) string {
	return types.NamespacedName{Namespace: namespace, Name: name}.String()
}
