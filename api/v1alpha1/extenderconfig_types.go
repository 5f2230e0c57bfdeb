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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ExtenderConfigSpec mirrors the upstream Extender of
// kubescheduler.config.k8s.io/v1, with TLS material read from a Secret
// instead of files.
// +kubebuilder:validation:XValidation:rule="!has(self.prioritizeVerb) || size(self.prioritizeVerb) == 0 || (has(self.weight) && self.weight > 0)",message="weight must be positive when prioritizeVerb is set"
// +kubebuilder:validation:XValidation:rule="!has(self.tlsConfig) || self.urlPrefix.startsWith('https://') || (has(self.enableHTTPS) && self.enableHTTPS)",message="tlsConfig needs an https urlPrefix or enableHTTPS"
type ExtenderConfigSpec struct {
	// URLPrefix at which the extender is available, http:// or https://.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.startsWith('http://') || self.startsWith('https://')",message="urlPrefix must start with http:// or https://"
	// +kubebuilder:validation:XValidation:rule="isURL(self)",message="urlPrefix must be a valid URL"
	URLPrefix string `json:"urlPrefix"`
	// FilterVerb is the verb appended to urlPrefix for filter calls; empty
	// means the extender does not filter.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_./-]*$`
	FilterVerb string `json:"filterVerb,omitempty"`
	// PreemptVerb is the verb for preemption calls.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_./-]*$`
	PreemptVerb string `json:"preemptVerb,omitempty"`
	// PrioritizeVerb is the verb for prioritize calls.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_./-]*$`
	PrioritizeVerb string `json:"prioritizeVerb,omitempty"`
	// Weight multiplies the extender's prioritize scores.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Weight int64 `json:"weight,omitempty"`
	// BindVerb makes the extender bind pods; at most one binder per profile.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_./-]*$`
	BindVerb string `json:"bindVerb,omitempty"`
	// EnableHTTPS speaks TLS to the extender.
	// +optional
	EnableHTTPS bool `json:"enableHTTPS,omitempty"`
	// TLSConfig for HTTPS, with certificates from a Secret.
	// +optional
	TLSConfig *ExtenderTLSConfig `json:"tlsConfig,omitempty"`
	// HTTPTimeout of one call, for example "5s". Unset means 30s.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s') && duration(self) <= duration('5m')",message="httpTimeout must be greater than 0s and at most 5m"
	// +kubebuilder:validation:MaxLength=32
	HTTPTimeout *metav1.Duration `json:"httpTimeout,omitempty"`
	// NodeCacheCapable extenders receive node names only, not whole nodes.
	// +optional
	NodeCacheCapable bool `json:"nodeCacheCapable,omitempty"`
	// ManagedResources: when set, the extender is called only for pods that
	// request at least one of these resources.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	ManagedResources []ExtenderManagedResource `json:"managedResources,omitempty"`
	// Ignorable extenders that fail or cannot be reached are skipped.
	// +optional
	Ignorable bool `json:"ignorable,omitempty"`
}

// ExtenderManagedResource is an extended resource the extender manages.
type ExtenderManagedResource struct {
	// Name of the extended resource.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// IgnoredByScheduler makes NodeResourcesFit skip this resource.
	// +optional
	IgnoredByScheduler bool `json:"ignoredByScheduler,omitempty"`
}

// ExtenderTLSConfig configures TLS towards an extender.
type ExtenderTLSConfig struct {
	// Insecure skips verification of the server certificate. Testing only.
	// +optional
	Insecure bool `json:"insecure,omitempty"`
	// ServerName overrides the name checked in the server certificate.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ServerName string `json:"serverName,omitempty"`
	// SecretRef names a Secret with keys ca.crt (CA bundle), and optionally
	// tls.crt and tls.key (client certificate). The Secret lives in the
	// operator's extender-secrets namespace (--extender-secrets-namespace,
	// by default the operator's own), as cert-manager keeps the Secrets of
	// cluster-scoped issuers: the operator reads no Secret elsewhere.
	// +optional
	SecretRef *SecretReference `json:"secretRef,omitempty"`
}

// SecretReference names a Secret of the operator's extender-secrets
// namespace.
type SecretReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Namespace of the Secret. Unset means the operator's extender-secrets
	// namespace; any other namespace is refused (reason
	// SecretNamespaceNotAllowed).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
}

// Keys read from the Secret of an ExtenderTLSConfig.
const (
	// SecretKeyCA holds the PEM CA bundle that signs the extender's certificate.
	SecretKeyCA = "ca.crt"
	// SecretKeyCert holds the PEM client certificate.
	SecretKeyCert = "tls.crt"
	// SecretKeyKey holds the PEM client key.
	SecretKeyKey = "tls.key"
)

// ExtenderConfigStatus says whether the extender can be built.
type ExtenderConfigStatus struct {
	// ObservedGeneration is the generation last decided on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready, Reconciling, Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Profiles are the SchedulerProfiles that reference this extender.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=253
	Profiles []string `json:"profiles,omitempty"`
}

// ExtenderConfig is an HTTP scheduler extender that SchedulerProfiles refer
// to by name.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster,shortName=ec,categories=scheduling
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.spec.urlPrefix`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=10
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ExtenderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ExtenderConfigSpec `json:"spec"`
	// +optional
	Status ExtenderConfigStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ExtenderConfigList is a list of ExtenderConfig.
type ExtenderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ExtenderConfig `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ExtenderConfig{}, &ExtenderConfigList{})
}
