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
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// SchedulingReviewSpec asks where a pod would go, and why not elsewhere.
//
// Explain mode names one pod (spec.podName, a pod of the review's
// namespace, or spec.podTemplate, a pod as if created now). What-if mode
// (spec.pendingPods) places every pending pod of a schedulerName in queue
// order. Either mode evaluates with the serving generation of a
// SchedulerProfile (spec.profile, or the one serving the pod's
// schedulerName) or with a draft profile (spec.profileSpec) that is built
// for the review only and never serves.
// +kubebuilder:validation:XValidation:rule="(has(self.pendingPods) && self.pendingPods) || has(self.scenario) ? !has(self.podName) && !has(self.podTemplate) && !has(self.podGroupName) : [has(self.podName), has(self.podTemplate), has(self.podGroupName)].filter(x, x).size() == 1",message="exactly one of spec.podName, spec.podTemplate and spec.podGroupName must be set (none with spec.pendingPods or spec.scenario)"
// +kubebuilder:validation:XValidation:rule="!has(self.profile) || !has(self.profileSpec)",message="at most one of spec.profile and spec.profileSpec may be set"
// +kubebuilder:validation:XValidation:rule="!has(self.pendingPods) || !self.pendingPods || has(self.profile) || has(self.profileSpec)",message="spec.pendingPods needs spec.profile or spec.profileSpec"
// +kubebuilder:validation:XValidation:rule="!has(self.profileSpec) || !has(self.pendingPods) || !self.pendingPods || has(self.schedulerName) || has(self.profileSpec.schedulerName)",message="spec.pendingPods with spec.profileSpec needs spec.schedulerName or spec.profileSpec.schedulerName"
// +kubebuilder:validation:XValidation:rule="!has(self.scenario) || has(self.profile) || has(self.profileSpec)",message="spec.scenario needs spec.profile or spec.profileSpec"
type SchedulingReviewSpec struct {
	// PodName is a pod in the review's namespace, pending or not.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	PodName string `json:"podName,omitempty"`

	// PodTemplate is a pod evaluated as if it were created now in the
	// review's namespace.
	// +optional
	PodTemplate *ReviewPodTemplate `json:"podTemplate,omitempty"`

	// Profile names the SchedulerProfile whose serving generation evaluates
	// the pod. Unset: the profile serving the pod's schedulerName.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Profile string `json:"profile,omitempty"`

	// ProfileSpec is a draft profile, built with the same conversion,
	// defaulting, validation and framework build as a SchedulerProfile,
	// used for this review only and closed afterwards.
	// +optional
	ProfileSpec *SchedulerProfileSpec `json:"profileSpec,omitempty"`

	// PodGroupName asks what the pod-group cycle would decide for a
	// PodGroup of the review's namespace (GenericWorkload): every pending
	// member placed in the cycle's member order, the group's verdict and
	// message, and what workload-aware preemption would do. A review of a
	// pending pod (spec.podName) that belongs to a PodGroup answers for
	// its group too.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	PodGroupName string `json:"podGroupName,omitempty"`

	// PendingPods turns on what-if mode: every pending pod of
	// SchedulerName is placed in queue order on a private copy of the
	// snapshot, each placed pod assumed for the next.
	// +optional
	PendingPods bool `json:"pendingPods,omitempty"`

	// SchedulerName selects the pending pods of what-if mode. Defaults to
	// the schedulerName of the profile (or of the draft).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="spec.schedulerName must be a DNS-1123 subdomain, as a pod's spec.schedulerName"
	SchedulerName string `json:"schedulerName,omitempty"`

	// MaxNodes bounds the feasible nodes listed with their scores and the
	// node names listed per rejection reason; the rest are counted.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=500
	MaxNodes *int32 `json:"maxNodes,omitempty"`

	// Scenario changes the cluster the pods are placed on, in the review's
	// snapshot only (nodes added or drained, pods added), and may search
	// for the smallest count of nodes that places them all.
	// +optional
	Scenario *ReviewScenario `json:"scenario,omitempty"`

	// TTLSecondsAfterFinished is how long a finished review is kept before
	// the operator deletes it, at most a week (604800).
	// +optional
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=604800
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// ReviewPodTemplate is a pod that does not exist yet.
type ReviewPodTemplate struct {
	// Labels of the pod (affinity and spreading select on them).
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.size() <= 317 && self[k].size() <= 63)",message="label keys must be at most 317 characters and values at most 63"
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations of the pod, at most 64, each value at most 4096
	// characters.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.size() <= 317 && self[k].size() <= 4096)",message="annotation keys must be at most 317 characters and values at most 4096"
	Annotations map[string]string `json:"annotations,omitempty"`
	// Spec is a core/v1 PodSpec. Its schema is not repeated here; the
	// operator decodes it strictly when it answers, and a spec that does
	// not decode (a field of the wrong type, an unknown field, a quantity
	// such as "two") fails this review alone (reason InvalidPodTemplate,
	// naming the field). It is kept as raw JSON so that such a spec never
	// stops the operator from reading the other reviews. No admission runs
	// on it: spec.priority is used as given (priorityClassName is not
	// resolved), an empty schedulerName means default-scheduler.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Spec runtime.RawExtension `json:"spec"`
}

// PodSpecTemplate is spec as ReviewPodTemplate.Spec holds it.
func PodSpecTemplate(spec corev1.PodSpec) runtime.RawExtension {
	data, err := json.Marshal(spec)
	if err != nil {
		// A PodSpec holds nothing encoding/json cannot encode.
		panic(fmt.Sprintf("encoding a PodSpec: %v", err))
	}
	return runtime.RawExtension{Raw: data}
}

// SchedulingReviewStatus is the answer, written once.
type SchedulingReviewStatus struct {
	// ObservedGeneration is the generation that was answered.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Complete (answered) or Failed (not answerable; the
	// message names the field at fault).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Profile is the SchedulerProfile evaluated with; empty for a draft.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Profile string `json:"profile,omitempty"`
	// ProfileGeneration is the generation of Profile that served.
	// +optional
	ProfileGeneration int64 `json:"profileGeneration,omitempty"`
	// Draft is true when spec.profileSpec was evaluated.
	// +optional
	Draft bool `json:"draft,omitempty"`
	// SchedulerName of the framework used.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SchedulerName string `json:"schedulerName,omitempty"`
	// SnapshotNodes is the number of nodes in the snapshot evaluated on.
	// +optional
	SnapshotNodes int32 `json:"snapshotNodes,omitempty"`
	// CompletionTime is when the review was answered.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// Result answers explain mode.
	// +optional
	Result *PodReviewResult `json:"result,omitempty"`
	// WhatIf answers what-if mode.
	// +optional
	WhatIf *WhatIfResult `json:"whatIf,omitempty"`

	// Scenario answers spec.scenario (whatIf is then unset: the pending
	// pods are among the scenario's).
	// +optional
	Scenario *ScenarioResult `json:"scenario,omitempty"`

	// Group answers for a pod group: spec.podGroupName, or the group of
	// the pending pod spec.podName names.
	// +optional
	Group *GroupReviewResult `json:"group,omitempty"`
}

// PodReviewResult is what one scheduling cycle would decide for a pod.
type PodReviewResult struct {
	// Pod is namespace/name (or the template's namespace/<template>).
	// +kubebuilder:validation:MaxLength=317
	Pod string `json:"pod"`
	// Route is the ProfileRoute that gave the pod its schedulerName, as
	// the pod's scheduling.profilescheduler.io/route annotation names it.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Route string `json:"route,omitempty"`
	// SelectedNode is the node the cycle would pick; empty when none fits.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SelectedNode string `json:"selectedNode,omitempty"`
	// Message is, when no node fits, the message of the FailedScheduling
	// event the cycle would write, byte for byte.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`
	// FeasibleNodes counts the nodes that pass every filter and extender.
	FeasibleNodes int32 `json:"feasibleNodes"`
	// TiedNodes counts the nodes that share the best total score with
	// SelectedNode (itself included) when more than one does: the
	// scheduler picks one of them at random.
	// +optional
	TiedNodes int32 `json:"tiedNodes,omitempty"`
	// Nodes are the best feasible nodes, in the order the cycle ranks
	// them, at most spec.maxNodes.
	// +optional
	// +kubebuilder:validation:MaxItems=500
	Nodes []NodeScore `json:"nodes,omitempty"`
	// Scores are the scores of Nodes, one entry per score plugin and then
	// per prioritizing extender, in the framework's order: item i of each
	// list is the score of Nodes[i]. (A column per plugin keeps a review's
	// status, and what the API server spends on writing it, small.)
	// +optional
	// +kubebuilder:validation:MaxItems=128
	Scores []PluginScores `json:"scores,omitempty"`
	// UnlistedFeasibleNodes counts the feasible nodes not in Nodes.
	// +optional
	UnlistedFeasibleNodes int32 `json:"unlistedFeasibleNodes,omitempty"`
	// Rejected groups the nodes that do not fit by plugin (or extender)
	// and reason, largest group first; beyond 20 groups the rest are
	// counted in a last one.
	// +optional
	// +kubebuilder:validation:MaxItems=20
	Rejected []RejectedNodes `json:"rejected,omitempty"`
	// Sampling says which nodes the real cycle would have evaluated.
	// +optional
	Sampling *Sampling `json:"sampling,omitempty"`
	// Preemption is what DefaultPreemption would do when no node fits
	// (dry run: no victim is touched).
	// +optional
	Preemption *PreemptionResult `json:"preemption,omitempty"`
	// BoundNode is, for a pod already bound, the node it is bound to (the
	// review evaluates it as if it were pending again).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	BoundNode string `json:"boundNode,omitempty"`
	// Overcommitted is set when the pods bound to BoundNode request more
	// than it has (another scheduler bound onto room this one used, or the
	// other way round): the resources over its allocatable and the pods,
	// each with its schedulerName; pods of other namespaces are counted,
	// not named. Its kubelet rejects the late pods.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Overcommitted string `json:"overcommitted,omitempty"`
}

// NodeScore is one feasible node and its scores.
type NodeScore struct {
	// Node name.
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node"`
	// Rank is 1 for the node the cycle picks.
	Rank int32 `json:"rank"`
	// TotalScore is the sum of the weighted scores (see
	// PodReviewResult.Scores).
	TotalScore int64 `json:"totalScore"`
	// NotSampled is true when the real cycle, which stops at
	// Sampling.NumFeasibleNodesToFind feasible nodes, would not have
	// reached this node from its current start.
	// +optional
	NotSampled bool `json:"notSampled,omitempty"`
}

// PluginScores are one plugin's (or extender's) scores of the listed
// nodes, item i of each list for PodReviewResult.Nodes[i].
type PluginScores struct {
	// Plugin (or extender) name.
	// +kubebuilder:validation:MaxLength=253
	Plugin string `json:"plugin"`
	// Extender is true for a prioritizing extender, which has no Raw or
	// Normalized scores.
	// +optional
	Extender bool `json:"extender,omitempty"`
	// Weight of the plugin (or extender) in the profile.
	// +optional
	Weight int32 `json:"weight,omitempty"`
	// Raw are Score's results before NormalizeScore (plugins only).
	// +optional
	// +kubebuilder:validation:MaxItems=500
	Raw []int64 `json:"raw,omitempty"`
	// Normalized are the scores after NormalizeScore (plugins only).
	// +optional
	// +kubebuilder:validation:MaxItems=500
	Normalized []int64 `json:"normalized,omitempty"`
	// Weighted are what the plugin adds to each node's total.
	// +kubebuilder:validation:MaxItems=500
	Weighted []int64 `json:"weighted"`
}

// RejectedNodes are nodes one plugin rejected for one reason.
type RejectedNodes struct {
	// Plugin (or extender, by URL prefix) that rejected them; empty when a
	// PreFilter result excluded them.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Plugin string `json:"plugin,omitempty"`
	// Reason as the plugin gave it.
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason"`
	// Unresolvable is true when preemption cannot help on these nodes
	// (UnschedulableAndUnresolvable).
	// +optional
	Unresolvable bool `json:"unresolvable,omitempty"`
	// Count of nodes.
	Count int32 `json:"count"`
	// Nodes lists at most spec.maxNodes of them.
	// +optional
	// +kubebuilder:validation:MaxItems=500
	// +kubebuilder:validation:items:MaxLength=253
	Nodes []string `json:"nodes,omitempty"`
}

// Sampling describes percentageOfNodesToScore for the real cycle.
type Sampling struct {
	// NumFeasibleNodesToFind is where the real cycle stops searching.
	NumFeasibleNodesToFind int32 `json:"numFeasibleNodesToFind"`
	// StartNode is where the next real cycle starts searching.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	StartNode string `json:"startNode,omitempty"`
	// AllNodes is true when the real cycle would evaluate every node.
	// +optional
	AllNodes bool `json:"allNodes,omitempty"`
}

// PreemptionResult is DefaultPreemption's dry-run answer.
type PreemptionResult struct {
	// Node the preemptor would be nominated to; empty when preemption
	// does not help.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node,omitempty"`
	// Victims (namespace/name) that would be evicted, of the review's
	// namespace only: a review names no pod of another namespace.
	// +optional
	// +kubebuilder:validation:MaxItems=500
	// +kubebuilder:validation:items:MaxLength=317
	Victims []string `json:"victims,omitempty"`
	// OtherNamespaceVictims counts the victims of other namespaces, which
	// are not named.
	// +optional
	OtherNamespaceVictims int32 `json:"otherNamespaceVictims,omitempty"`
	// Message as the PostFilter would report it.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`
	// NotEvaluated says what of the profile's PostFilter a review does not
	// run (plugins other than DefaultPreemption, a claim deallocation).
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	NotEvaluated string `json:"notEvaluated,omitempty"`
}

// WhatIfResult is the answer of what-if mode.
type WhatIfResult struct {
	// PendingPods counts the pending pods evaluated.
	PendingPods int32 `json:"pendingPods"`
	// Placed counts those that would be placed.
	Placed int32 `json:"placed"`
	// PendingGroups counts the pod groups among the pending pods, each
	// placed all or nothing; PlacedGroups those that would be placed.
	// +optional
	PendingGroups int32 `json:"pendingGroups,omitempty"`
	// +optional
	PlacedGroups int32 `json:"placedGroups,omitempty"`
	// Pods of the review's namespace, in queue order, at most 500; pods of
	// other namespaces are only counted.
	// +optional
	// +kubebuilder:validation:MaxItems=500
	Pods []WhatIfPod `json:"pods,omitempty"`
}

// WhatIfPod is one pod's outcome in what-if mode.
type WhatIfPod struct {
	// Pod is namespace/name.
	// +kubebuilder:validation:MaxLength=317
	Pod string `json:"pod"`
	// Node it would be placed on.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node,omitempty"`
	// Message says why it would stay pending.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Message string `json:"message,omitempty"`
	// PodGroup the pod was placed with (all or nothing).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PodGroup string `json:"podGroup,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Namespaced,shortName=sr,categories=scheduling
// +kubebuilder:printcolumn:name="Pod",type=string,JSONPath=`.spec.podName`
// +kubebuilder:printcolumn:name="Group",type=string,JSONPath=`.status.group.verdict`,priority=10
// +kubebuilder:printcolumn:name="Node",type=string,JSONPath=`.status.result.selectedNode`
// +kubebuilder:printcolumn:name="Complete",type=string,JSONPath=`.status.conditions[?(@.type=="Complete")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Failed")].reason`,priority=10
// +kubebuilder:printcolumn:name="Profile",type=string,JSONPath=`.status.profile`,priority=10
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// SchedulingReview asks the scheduler where a pod would go and why, on a
// snapshot of the live cluster, without changing anything.
type SchedulingReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SchedulingReviewSpec   `json:"spec,omitempty"`
	Status SchedulingReviewStatus `json:"status,omitempty"`
}

// Finished reports whether the review was answered (Complete or Failed).
func (r *SchedulingReview) Finished() bool {
	for _, c := range r.Status.Conditions {
		if (c.Type == ConditionComplete || c.Type == ConditionFailed) && c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}

// +kubebuilder:object:root=true

// SchedulingReviewList is a list of SchedulingReview.
type SchedulingReviewList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SchedulingReview `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SchedulingReview{}, &SchedulingReviewList{})
}
