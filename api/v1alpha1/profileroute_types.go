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

// WhenProfileNotServing says what a route does while no generation of its
// profile serves pods.
// +kubebuilder:validation:Enum=Fallback;Hold
type WhenProfileNotServing string

const (
	// ProfileNotServingFallback: the route routes nothing; pods keep the
	// scheduler they asked for.
	ProfileNotServingFallback WhenProfileNotServing = "Fallback"
	// ProfileNotServingHold: pods are routed all the same and wait until
	// the profile serves.
	ProfileNotServingHold WhenProfileNotServing = "Hold"
)

// RouteAnnotation is set on every pod a route rewrote; its value is the
// name of the ProfileRoute.
const RouteAnnotation = "scheduling.profilescheduler.io/route"

// MaxMatchedNamespaces bounds status.matchedNamespaces.names.
const MaxMatchedNamespaces = 50

// MaxProfileRoutes is the most ProfileRoutes considered at once, the
// oldest first; the newer ones are refused (TooManyRoutes). Routes are
// written into one RoutingTable, which must stay well under what
// kube-apiserver stores in one object: the operator admits routes, the
// oldest first, while the table fits (internal/routing.MaxTableSize), and
// refuses the others (TooManyRoutes) too. A route at the schema's maxima
// takes about 18 kB; a route of a few labels, a few hundred bytes.
const MaxProfileRoutes = 200

// ProfileRouteSpec selects new pods and names the profile they go to.
//
// +kubebuilder:validation:XValidation:rule="has(self.allNamespaces) && self.allNamespaces ? !has(self.namespaceSelector) : has(self.namespaceSelector)",message="set exactly one of spec.namespaceSelector and spec.allNamespaces: true"
// +kubebuilder:validation:XValidation:rule="!has(self.namespaceSelector) || (has(self.namespaceSelector.matchLabels) && size(self.namespaceSelector.matchLabels) > 0) || (has(self.namespaceSelector.matchExpressions) && size(self.namespaceSelector.matchExpressions) > 0)",message="spec.namespaceSelector is empty, which would select every namespace: set spec.allNamespaces: true instead"
type ProfileRouteSpec struct {
	// Profile is the name of the SchedulerProfile whose schedulerName the
	// routed pods get.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Profile string `json:"profile"`

	// NamespaceSelector selects the namespaces whose new pods are routed.
	// It must not be empty: a route of every namespace says
	// allNamespaces: true instead. kube-system and the operator's own
	// namespace are routed only when a requirement on the label
	// kubernetes.io/metadata.name names them.
	// +optional
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`

	// AllNamespaces routes the pods of every namespace (but kube-system and
	// the operator's own). Exclusive with namespaceSelector.
	// +optional
	AllNamespaces bool `json:"allNamespaces,omitempty"`

	// PodSelector selects, by their labels, the pods routed in the selected
	// namespaces. Unset selects every pod.
	// +optional
	PodSelector *LabelSelector `json:"podSelector,omitempty"`

	// FromSchedulerNames lists the schedulerNames a pod must ask for to be
	// routed; a pod without schedulerName asks for default-scheduler. A pod
	// that names any other scheduler is left as it is.
	// +optional
	// +listType=set
	// +kubebuilder:default={"default-scheduler"}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self.all(n, !format.dns1123Subdomain().validate(n).hasValue())",message="spec.fromSchedulerNames: every name must be a DNS-1123 subdomain (lower-case alphanumeric labels of '-' separated by '.', as a pod's spec.schedulerName)"
	FromSchedulerNames []string `json:"fromSchedulerNames,omitempty"`

	// Priority decides between routes that select one pod: the higher
	// wins. Two routes of equal priority may select the same pods only
	// if their selectors exclude each other; otherwise the newer one is
	// refused (RouteConflict).
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=-1000000
	// +kubebuilder:validation:Maximum=1000000
	Priority int32 `json:"priority"`

	// WhenProfileNotServing: Fallback (the route routes nothing while no
	// generation of the profile serves) or Hold (pods are routed and wait;
	// a profile that does not exist is taken to serve the schedulerName
	// equal to its name).
	// +optional
	// +kubebuilder:default=Fallback
	WhenProfileNotServing WhenProfileNotServing `json:"whenProfileNotServing,omitempty"`
}

// MatchedNamespaces counts the namespaces a route selects.
type MatchedNamespaces struct {
	// Count of the namespaces selected now.
	Count int32 `json:"count"`
	// Names of the selected namespaces, sorted, at most 50.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MaxLength=63
	Names []string `json:"names,omitempty"`
}

// ProfileRouteStatus says whether the route is in force inside
// kube-apiserver, and where it routes.
type ProfileRouteStatus struct {
	// ObservedGeneration is the generation whose outcome was last decided.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// SchedulerName the routed pods get; empty while the route routes
	// nothing.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SchedulerName string `json:"schedulerName,omitempty"`
	// MatchedNamespaces the route selects now.
	// +optional
	MatchedNamespaces *MatchedNamespaces `json:"matchedNamespaces,omitempty"`
	// ExcludedNamespaces are the protected namespaces (kube-system and the
	// operator's own) this route leaves alone because its namespaceSelector
	// does not name them.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	ExcludedNamespaces []string `json:"excludedNamespaces,omitempty"`
	// Policy names the routes program (a MutatingAdmissionPolicy) and the
	// RoutingTable, its parameter, that carry the route.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Policy string `json:"policy,omitempty"`
	// Conditions: Ready, Reconciling, Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ProfileRoute sends new pods, chosen by namespace and labels, to a
// SchedulerProfile, with no schedulerName in their manifests. The rewrite
// happens inside kube-apiserver, through a MutatingAdmissionPolicy the
// installer creates: a fixed program that reads the routes in force from
// the RoutingTable the operator writes.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster,shortName=pr,categories=scheduling
// +kubebuilder:printcolumn:name="Profile",type=string,JSONPath=`.spec.profile`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Namespaces",type=integer,JSONPath=`.status.matchedNamespaces.count`
// +kubebuilder:printcolumn:name="Priority",type=integer,JSONPath=`.spec.priority`,priority=10
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=10
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ProfileRoute struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ProfileRouteSpec `json:"spec"`
	// +optional
	Status ProfileRouteStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProfileRouteList is a list of ProfileRoute.
type ProfileRouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProfileRoute `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ProfileRoute{}, &ProfileRouteList{})
}
