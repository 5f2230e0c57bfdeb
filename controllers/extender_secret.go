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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// defaultExtenderSecretsNamespace is where the TLS Secrets of extenders
// are read when Options.ExtenderSecretsNamespace is empty. The operator
// sets the option to its own namespace; this default serves callers that
// run outside a cluster.
const defaultExtenderSecretsNamespace = "default"

// SecretsCacheByObject is the manager cache's ByObject option that keeps
// only the Secrets of namespace: the operator neither lists nor watches a
// Secret elsewhere, so it needs no cluster-wide Secret permission and its
// memory does not follow the number of Secrets of the cluster.
func SecretsCacheByObject(namespace string) map[client.Object]cache.ByObject {
	return map[client.Object]cache.ByObject{
		&corev1.Secret{}: {Namespaces: map[string]cache.Config{secretsNamespace(namespace): {}}},
	}
}

func secretsNamespace(namespace string) string {
	if namespace == "" {
		return defaultExtenderSecretsNamespace
	}
	return namespace
}

// extenderSecretKey returns the Secret that ec's spec.tlsConfig.secretRef
// names, an unset namespace meaning namespace. ok is false when ec names
// no Secret. A reference to another namespace is refused, naming the
// field: like cert-manager for cluster-scoped issuers, the operator reads
// Secrets of one namespace only, so whoever may create an ExtenderConfig
// cannot make it read (and present as its own) a Secret of kube-system or
// of a tenant.
func extenderSecretKey(ec *v1alpha1.ExtenderConfig, namespace string) (key types.NamespacedName, ok bool, refusal *Refusal) {
	if ec.Spec.TLSConfig == nil || ec.Spec.TLSConfig.SecretRef == nil {
		return types.NamespacedName{}, false, nil
	}
	namespace = secretsNamespace(namespace)
	ref := ec.Spec.TLSConfig.SecretRef
	if ref.Namespace != "" && ref.Namespace != namespace {
		return types.NamespacedName{}, false, refuse(v1alpha1.ReasonSecretNamespaceNotAllowed,
			"spec.tlsConfig.secretRef.namespace %q: extender Secrets are read from namespace %q only (the operator's --extender-secrets-namespace); create Secret %q there, and leave namespace unset or set it to %q",
			ref.Namespace, namespace, ref.Name, namespace)
	}
	return types.NamespacedName{Namespace: namespace, Name: ref.Name}, true, nil
}

// buildExtender builds the upstream extender of ec as the reconcilers
// and the webhook do (through resolveExtender): it checks that the Secret ec names lives in
// namespace (the extender-secrets namespace), reads it through c and
// builds the extender with its TLS material inline (upstreamExtender). A
// refusal says what the user must change; err is a failed read, to retry.
func buildExtender(ctx context.Context, c client.Reader, ec *v1alpha1.ExtenderConfig, namespace string) (config.Extender, *Refusal, error) {
	key, ok, refusal := extenderSecretKey(ec, namespace)
	if refusal != nil {
		return config.Extender{}, refusal, nil
	}
	if !ok {
		ext, refusal := upstreamExtender(ec, nil)
		return ext, refusal, nil
	}
	// Messages name the Secret with the namespace it was looked up in.
	resolved := ec.DeepCopy()
	resolved.Spec.TLSConfig.SecretRef.Namespace = key.Namespace
	secret := &corev1.Secret{}
	if err := c.Get(ctx, key, secret); err != nil {
		if !apierrors.IsNotFound(err) {
			return config.Extender{}, nil, fmt.Errorf("reading Secret %s of ExtenderConfig %q: %w", key, ec.Name, err)
		}
		secret = nil
	}
	ext, refusal := upstreamExtender(resolved, secret)
	return ext, refusal, nil
}
