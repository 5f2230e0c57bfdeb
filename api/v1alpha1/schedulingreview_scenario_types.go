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
	"k8s.io/apimachinery/pkg/runtime"
)

// ReviewScenario changes the cluster a review places pods on, in the
// review's private snapshot only: nodes added, nodes drained (their pods
// placed again) and pods added, placed after the pending pods (with
// spec.pendingPods). Nothing in the cluster changes.
type ReviewScenario struct {
	// AddNodes are nodes that exist in the scenario only: count copies of
	// a node of the cluster (fromNode) or of a template.
	// +optional
	// +kubebuilder:validation:MaxItems=50
	// +listType=atomic
	// +kubebuilder:validation:XValidation:rule="self.map(a, a.count).sum() <= 1000",message="spec.scenario.addNodes: the counts add up to more than 1000 nodes"
	AddNodes []ScenarioNodes `json:"addNodes,omitempty"`

	// RemoveNodes drains nodes as kubectl drain does: cordoned, their
	// pods, but DaemonSet and static ones, pending again and placed in
	// queue order (priority first), as their controllers would recreate
	// them. The utilization after leaves the drained nodes out.
	// +optional
	RemoveNodes *ScenarioNodeSelection `json:"removeNodes,omitempty"`

	// Pods are placed after the pending and drained pods, entry by entry.
	// +optional
	// +kubebuilder:validation:MaxItems=50
	// +listType=atomic
	// +kubebuilder:validation:XValidation:rule="self.map(p, p.replicas).sum() <= 2000",message="spec.scenario.pods: the replicas add up to more than 2000 pods"
	Pods []ScenarioPods `json:"pods,omitempty"`

	// ReportBy is a node label key (a node-pool label, a zone): the
	// answer gives the allocated share of cpu, memory and pods per value
	// of it, before and after. Unset: one line for every node.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	ReportBy string `json:"reportBy,omitempty"`

	// Minimize searches for the smallest count of nodes of one shape
	// which, added to the scenario, places every pod of it.
	// +optional
	Minimize *ScenarioMinimize `json:"minimize,omitempty"`
}

// NodeShape is a node of the cluster to copy, or a template.
type NodeShape struct {
	// FromNode names a node of the cluster whose copies are added (its
	// labels, taints, allocatable and images).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	FromNode string `json:"fromNode,omitempty"`

	// Template is a core/v1 Node (metadata.name, labels, spec.taints,
	// status.allocatable and capacity); status.allocatable is required.
	// Kept as raw JSON and decoded strictly when the review is answered,
	// as spec.podTemplate.spec is.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Template *runtime.RawExtension `json:"template,omitempty"`
}

// ScenarioNodes are count nodes of one shape.
// +kubebuilder:validation:XValidation:rule="has(self.fromNode) != has(self.template)",message="set exactly one of fromNode and template"
type ScenarioNodes struct {
	NodeShape `json:",inline"`

	// Count of nodes added, at most 1000 (and at most 1000 in all the
	// entries).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Count int32 `json:"count"`
}

// ScenarioNodeSelection selects nodes by name or by label.
// +kubebuilder:validation:XValidation:rule="has(self.names) || has(self.selector)",message="set names or selector"
type ScenarioNodeSelection struct {
	// Names of nodes.
	// +optional
	// +kubebuilder:validation:MaxItems=10000
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=atomic
	Names []string `json:"names,omitempty"`
	// Selector selects nodes by label.
	// +optional
	Selector *LabelSelector `json:"selector,omitempty"`
}

// ScenarioPods are replicas of a pod, or the members of a pod group.
// +kubebuilder:validation:XValidation:rule="has(self.podTemplate) != has(self.podGroupTemplate)",message="set exactly one of podTemplate and podGroupTemplate"
type ScenarioPods struct {
	// PodTemplate is a pod (as spec.podTemplate), named after the review
	// and the entry, -1, -2, ...
	// +optional
	PodTemplate *ReviewPodTemplate `json:"podTemplate,omitempty"`
	// PodGroupTemplate is a pod group whose replicas members are placed
	// all or nothing: at least minCount of them, or none.
	// +optional
	PodGroupTemplate *ScenarioPodGroupTemplate `json:"podGroupTemplate,omitempty"`
	// Replicas is the number of pods (of members of the group), at most
	// 2000 (and at most 2000 in all the entries).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2000
	Replicas int32 `json:"replicas"`
}

// ScenarioPodGroupTemplate is a pod group of the scenario.
type ScenarioPodGroupTemplate struct {
	// MinCount is the fewest members the group is placed with.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2000
	MinCount int32 `json:"minCount"`
	// PodTemplate is each member.
	PodTemplate ReviewPodTemplate `json:"podTemplate"`
}

// ScenarioMinimize is a search for the smallest count of nodes of a shape.
// +kubebuilder:validation:XValidation:rule="has(self.fromNode) != has(self.template)",message="set exactly one of fromNode and template"
type ScenarioMinimize struct {
	NodeShape `json:",inline"`

	// Max is the largest count tried. 0 asks whether the scenario fits
	// without any. At most 1000.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Max int32 `json:"max"`
}

// ScenarioResult is the answer of a scenario.
type ScenarioResult struct {
	// Pods counts the pods placed in the scenario: pending, drained and
	// added.
	Pods int32 `json:"pods"`
	// Placed counts those that would be placed.
	Placed int32 `json:"placed"`
	// Evicted counts the pods of removed nodes placed again; NotMoved
	// those a drain leaves (DaemonSet and static pods).
	// +optional
	Evicted int32 `json:"evicted,omitempty"`
	// +optional
	NotMoved int32 `json:"notMoved,omitempty"`
	// AddedNodes and RemovedNodes count the nodes added (minimize's
	// included) and removed.
	// +optional
	AddedNodes int32 `json:"addedNodes,omitempty"`
	// +optional
	RemovedNodes int32 `json:"removedNodes,omitempty"`
	// Unplaced are the pods of the review's namespace that would not be
	// placed, with the reason, at most 500; pods of other namespaces are
	// only counted.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=500
	Unplaced []ScenarioPod `json:"unplaced,omitempty"`
	// PlacedPods are the pods of the review's namespace that would be
	// placed, and where, in the order placed, at most 500.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=500
	PlacedPods []ScenarioPod `json:"placedPods,omitempty"`
	// Groups are the pod groups of spec.scenario.pods.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=50
	Groups []ScenarioGroup `json:"groups,omitempty"`
	// ReportBy is the label key Utilization is by.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	ReportBy string `json:"reportBy,omitempty"`
	// Utilization is the allocated share of cpu, memory and pods per
	// value of spec.scenario.reportBy, before and after.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=100
	Utilization []PoolUtilization `json:"utilization,omitempty"`
	// Minimize answers spec.scenario.minimize.
	// +optional
	Minimize *MinimizeResult `json:"minimize,omitempty"`
}

// ScenarioPod is one pod's outcome in a scenario.
type ScenarioPod struct {
	// Pod is namespace/name.
	// +kubebuilder:validation:MaxLength=317
	Pod string `json:"pod"`
	// Source: Pending, Evicted (from a removed node) or Added.
	// +kubebuilder:validation:MaxLength=64
	Source string `json:"source"`
	// FromNode is the removed node an evicted pod ran on.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	FromNode string `json:"fromNode,omitempty"`
	// Node it would be placed on.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node,omitempty"`
	// TiedNodes counts the nodes that share the best score with Node
	// (itself included) when more than one does: the scheduler picks one
	// of them at random, and the scenario the first by name (the later
	// pods then see it there).
	// +optional
	TiedNodes int32 `json:"tiedNodes,omitempty"`
	// Message says why it would stay pending.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Message string `json:"message,omitempty"`
}

// ScenarioGroup is a pod group's outcome.
type ScenarioGroup struct {
	// Group is namespace/name.
	// +kubebuilder:validation:MaxLength=253
	Group    string `json:"group"`
	MinCount int32  `json:"minCount"`
	Members  int32  `json:"members"`
	// Placed counts the members placed: 0, or minCount or more.
	Placed int32 `json:"placed"`
	// Message says why the group would not be placed.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Message string `json:"message,omitempty"`
}

// PoolUtilization is the allocated share of the nodes of one label value.
type PoolUtilization struct {
	// Pool is the label's value; empty for the nodes without the label.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Pool   string         `json:"pool,omitempty"`
	Before ResourceShares `json:"before"`
	After  ResourceShares `json:"after"`
}

// ResourceShares are the requests of the pods on some nodes as a percent
// of the nodes' allocatable.
type ResourceShares struct {
	Nodes int32 `json:"nodes"`
	// CPU, Memory and Pods are percents (requests of cpu and memory, pod
	// count) of allocatable, rounded; 0 when the nodes have none.
	CPU    int32 `json:"cpu"`
	Memory int32 `json:"memory"`
	Pods   int32 `json:"pods"`
}

// MinimizeResult is the answer of spec.scenario.minimize.
type MinimizeResult struct {
	// Found is true when a count up to max places every pod.
	Found bool `json:"found"`
	// Count is the smallest count that does (when Found).
	// +optional
	Count int32 `json:"count,omitempty"`
	Max   int32 `json:"max"`
	// Tried are the counts run, in order, with the pods each left
	// unplaced: the answer was run and placed every pod, and count-1 was
	// run and did not.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Tried []MinimizeTrial `json:"tried,omitempty"`
}

// MinimizeTrial is one count tried.
type MinimizeTrial struct {
	Count    int32 `json:"count"`
	Unplaced int32 `json:"unplaced"`
}
