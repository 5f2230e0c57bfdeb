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

// RoutingTable bounds. Every list has a maximum and every string a
// maximum length, so that kube-apiserver's CEL cost estimate of the
// routes program (config/routes) over the largest table stays under
// its per-expression limit; internal/routing tests it.
const (
	// MaxTableRoutes bounds spec.routes: at most MaxProfileRoutes are
	// considered.
	MaxTableRoutes = MaxProfileRoutes
	// MaxTableRequirements bounds a selector of a table route: a
	// ProfileRoute's matchLabels and matchExpressions, each one
	// requirement.
	MaxTableRequirements = MaxSelectorLabels + MaxSelectorExpressions
	// MaxTableProtectedNamespaces bounds protectedNamespaces (kube-system
	// and the operator's own namespace).
	MaxTableProtectedNamespaces = 4
)

// RoutingTableSpec is the routes in force, in the order they are tried.
//
// The layout is for kube-apiserver, which converts the whole table for
// every pod it admits: a route is as few fields as it takes (a label
// selector's requirements of one value are a map, the default
// fromSchedulerNames and the protected namespaces are left out).
type RoutingTableSpec struct {
	// Revision names this content of the table: the routes program stamps
	// it on the operator's dry-run probe pods, which is how the operator
	// sees which table kube-apiserver runs.
	// +kubebuilder:validation:MaxLength=64
	Revision string `json:"revision"`
	// ProtectedNamespaces are routed only by a route that names them
	// (protectedNamespacesNamed): kube-system and the operator's own.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=63
	ProtectedNamespaces []string `json:"protectedNamespaces,omitempty"`
	// Routes in the order they are tried: the first that selects a new
	// pod rewrites it (higher spec.priority first, then the older route,
	// then by name).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=200
	Routes []TableRoute `json:"routes,omitempty"`
}

// TableRoute is one ProfileRoute in force, as the routes program reads
// it. A selector is its labels (requirements of one value: matchLabels,
// and In with one value) and its other expressions; none of either
// selects everything.
//
// +kubebuilder:validation:XValidation:rule="!has(self.namespaceLabels) || self.namespaceLabels.all(k, k.size() <= 317)",message="namespaceLabels keys must be at most 317 characters"
// +kubebuilder:validation:XValidation:rule="!has(self.podLabels) || self.podLabels.all(k, k.size() <= 317)",message="podLabels keys must be at most 317 characters"
type TableRoute struct {
	// Name of the ProfileRoute: the value of the route annotation on the
	// pods it rewrites.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// SchedulerName the selected pods get.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	SchedulerName string `json:"schedulerName"`
	// FromSchedulerNames a pod must ask for to be rewritten (a pod
	// without schedulerName asks for default-scheduler); unset:
	// default-scheduler only.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	FromSchedulerNames []string `json:"fromSchedulerNames,omitempty"`
	// ProtectedNamespacesNamed are the protected namespaces the route's
	// namespace selector names, which it routes.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:items:MaxLength=63
	ProtectedNamespacesNamed []string `json:"protectedNamespacesNamed,omitempty"`
	// NamespaceLabels the pod's namespace must have, with these values.
	// +optional
	// +kubebuilder:validation:MaxProperties=12
	NamespaceLabels map[string]LabelValue `json:"namespaceLabels,omitempty"`
	// NamespaceExpressions must all hold for the labels of the pod's
	// namespace.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=12
	NamespaceExpressions []TableRequirement `json:"namespaceExpressions,omitempty"`
	// PodLabels the pod must have, with these values.
	// +optional
	// +kubebuilder:validation:MaxProperties=12
	PodLabels map[string]LabelValue `json:"podLabels,omitempty"`
	// PodExpressions must all hold for the pod's labels.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=12
	PodExpressions []TableRequirement `json:"podExpressions,omitempty"`
}

// LabelValue is the value of a label.
// +kubebuilder:validation:MaxLength=63
type LabelValue string

// TableRequirement is one requirement of a label selector.
type TableRequirement struct {
	// Key is the label key.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key"`
	// Operator is In, NotIn, Exists or DoesNotExist.
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
	Operator metav1.LabelSelectorOperator `json:"operator"`
	// Values of In and NotIn.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=63
	Values []string `json:"values,omitempty"`
}

// RoutingTable is the parameter object of the routes program: the
// MutatingAdmissionPolicy the installer creates (the chart,
// config/routes, local mode) reads the routes from it. The operator
// writes it, whole, from the ProfileRoutes in force, and writes it back
// when anyone else changes or deletes it; nobody else needs to.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster,shortName=rt,categories=scheduling
// +kubebuilder:printcolumn:name="Revision",type=string,JSONPath=`.spec.revision`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RoutingTable struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RoutingTableSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// RoutingTableList is a list of RoutingTable.
type RoutingTableList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RoutingTable `json:"items"`
}

func init() {
	SchemeBuilder.Register(&RoutingTable{}, &RoutingTableList{})
}
