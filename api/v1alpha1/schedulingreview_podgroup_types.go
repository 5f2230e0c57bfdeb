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

// GroupReviewResult is what the pod-group cycle would decide for a group.
type GroupReviewResult struct {
	// PodGroup is namespace/name.
	// +kubebuilder:validation:MaxLength=253
	PodGroup string `json:"podGroup"`
	// MinCount of the group's gang policy.
	// +optional
	MinCount int32 `json:"minCount,omitempty"`
	// Verdict is the reason of the PodGroupInitiallyScheduled condition
	// the cycle would write (Scheduled, Unschedulable, SchedulerError);
	// Waiting when the queue holds the group back (a member is gated, such
	// as fewer pods than minCount) and no cycle is attempted;
	// NothingPending when every member is scheduled.
	// +kubebuilder:validation:MaxLength=64
	Verdict string `json:"verdict"`
	// Message is the condition's message, byte for byte; for Waiting, the
	// gating plugin and its message.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`
	// Pending counts the pending members; Placed those the cycle would
	// bind (all of them or none).
	Pending int32 `json:"pending"`
	Placed  int32 `json:"placed"`
	// Members in the order the cycle places them (at most 500), then the
	// members already scheduled.
	// +optional
	// +kubebuilder:validation:MaxItems=500
	Members []GroupMemberResult `json:"members,omitempty"`
	// Nodes lists, per node, the members the algorithm put there (whether
	// or not the group is placed), most members first.
	// +optional
	// +kubebuilder:validation:MaxItems=500
	Nodes []GroupNodeResult `json:"nodes,omitempty"`
	// Preemption is what workload-aware preemption would do when the
	// group does not fit (dry run: no victim is touched).
	// +optional
	Preemption *PreemptionResult `json:"preemption,omitempty"`
}

// GroupMemberResult is one member's outcome.
type GroupMemberResult struct {
	// Pod name.
	// +kubebuilder:validation:MaxLength=317
	Pod string `json:"pod"`
	// Node the algorithm placed the member on; bound there when the
	// group is placed.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node,omitempty"`
	// Scheduled is true for a member already bound or assumed.
	// +optional
	Scheduled bool `json:"scheduled,omitempty"`
	// NominatedNode after preemption.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	NominatedNode string `json:"nominatedNode,omitempty"`
	// Message is, when the member would stay pending, the message of the
	// FailedScheduling event the cycle would write for it.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Message string `json:"message,omitempty"`
}

// GroupNodeResult is a node and the members placed on it.
type GroupNodeResult struct {
	// Node name.
	// +kubebuilder:validation:MaxLength=253
	Node string `json:"node"`
	// Pods placed there.
	// +kubebuilder:validation:MaxItems=500
	// +kubebuilder:validation:items:MaxLength=317
	Pods []string `json:"pods"`
}
