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

// Rollout phases.
const (
	RolloutProgressing = "Progressing"
	RolloutPaused      = "Paused"
	RolloutPromoted    = "Promoted"
	RolloutRolledBack  = "RolledBack"
	RolloutAborted     = "Aborted"
	RolloutSuperseded  = "Superseded"
)

// Step kinds.
const (
	StepShadow = "Shadow"
	StepCanary = "Canary"
	StepPause  = "Pause"
)

// RolloutStatus is the state of the profile's rollout: the one in
// progress, or the last one, and the history of those before.
type RolloutStatus struct {
	// Generation being rolled out (or last rolled out).
	Generation int64 `json:"generation"`
	// Revision identifies what is rolled out: the spec of Generation and
	// the ExtenderConfigs it references. A change of either starts a new
	// rollout.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Revision string `json:"revision,omitempty"`
	// ServingGeneration is the generation serving the pods the new one
	// does not.
	// +optional
	ServingGeneration int64 `json:"servingGeneration,omitempty"`
	// Phase: Progressing, Paused, Promoted, RolledBack or Aborted.
	// +kubebuilder:validation:MaxLength=64
	Phase string `json:"phase"`
	// Step is the step in progress, 1-based; 0 once the rollout ended.
	// +optional
	Step int32 `json:"step,omitempty"`
	// Steps is the number of steps.
	// +optional
	Steps int32 `json:"steps,omitempty"`
	// StepKind is Shadow, Canary or Pause.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	StepKind string `json:"stepKind,omitempty"`
	// Percent of the pods the new generation schedules in this step.
	// +optional
	Percent int32 `json:"percent,omitempty"`
	// Covers says which pods the step's canary covers: every pod of the
	// profile, or those its selector matches (as written).
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Covers string `json:"covers,omitempty"`
	// Matched counts the pods the step's selector matched in its window
	// (of those the profile's loop tried); unset without a selector.
	// +optional
	Matched *int64 `json:"matched,omitempty"`
	// Looks counts the analyses judged while the step ran.
	// +optional
	Looks int32 `json:"looks,omitempty"`
	// HeldSince is when a failed analysis (onFailure: Pause) or a pause
	// step without a duration started holding the rollout.
	// +optional
	HeldSince *metav1.Time `json:"heldSince,omitempty"`
	// StepStarted is when the step's window started (again, after an
	// operator restart or a leader hand-over).
	// +optional
	StepStarted *metav1.Time `json:"stepStarted,omitempty"`
	// StepEnds is when the step's window ends.
	// +optional
	StepEnds *metav1.Time `json:"stepEnds,omitempty"`
	// Extensions is how often the step was extended for want of samples.
	// +optional
	Extensions int32 `json:"extensions,omitempty"`
	// Summary is the step in a few words (the ROLLOUT column).
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Summary string `json:"summary,omitempty"`
	// Message says what happened last, naming the metric that decided.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`
	// Analysis is the last analysis judged, per metric.
	// +optional
	// +listType=map
	// +listMapKey=metric
	// +kubebuilder:validation:MaxItems=16
	Analysis []RolloutMetric `json:"analysis,omitempty"`
	// Shadow is what the new generation judged in the last shadow step.
	// +optional
	Shadow *ShadowResult `json:"shadow,omitempty"`
	// Retried is the last rollout-retry annotation honoured.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Retried string `json:"retried,omitempty"`
	// History of the last rollouts that ended, newest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=5
	History []RolloutRecord `json:"history,omitempty"`
}

// RolloutMetric is one metric of an analysis.
type RolloutMetric struct {
	// Metric: UnschedulableRatio, LatencyP99Ratio, Errors, ShadowAgreement,
	// or the name of one of spec.rollout.analysis.metrics.
	// +kubebuilder:validation:MaxLength=253
	Metric string `json:"metric"`
	// New and Serving are the metric's values for the new generation and
	// the serving one; Threshold is the bound it is judged against.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	New string `json:"new,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Serving string `json:"serving,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Threshold string `json:"threshold,omitempty"`
	// Samples of the new generation and of the serving one.
	// +optional
	Samples int64 `json:"samples,omitempty"`
	// +optional
	ServingSamples int64 `json:"servingSamples,omitempty"`
	// Verdict: Pass, Fail, or Insufficient (fewer samples than minSamples);
	// Pending while the step runs and no failure is certain yet.
	// +kubebuilder:validation:MaxLength=64
	Verdict string `json:"verdict"`
	// Failed and Errored count, for a metric of spec.rollout.analysis.
	// metrics, the measurements of the step's window that failed its
	// successCondition and those that could not be taken (Samples counts
	// them all); Error is the last error.
	// +optional
	Failed int32 `json:"failed,omitempty"`
	// +optional
	Errored int32 `json:"errored,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Error string `json:"error,omitempty"`
}

// ShadowResult counts what the new generation judged in a shadow step.
type ShadowResult struct {
	// Judged pods.
	Judged int64 `json:"judged"`
	// SameNode: the new generation would pick the node the serving one
	// picked.
	SameNode int64 `json:"sameNode"`
	// FeasibleWhereServingPlaced: the new generation finds the node the
	// serving one picked feasible.
	FeasibleWhereServingPlaced int64 `json:"feasibleWhereServingPlaced"`
	// ServingPlaced is how many of the judged pods the serving generation
	// placed.
	ServingPlaced int64 `json:"servingPlaced"`
	// WouldPlace: pods the serving generation could not place that the
	// new one would.
	WouldPlace int64 `json:"wouldPlace"`
	// WouldNotPlace: pods the serving generation placed that the new one
	// would place nowhere.
	WouldNotPlace int64 `json:"wouldNotPlace"`
	// Skipped pods were not judged: the shadow's queue was full (the
	// counts are a sample).
	// +optional
	Skipped int64 `json:"skipped,omitempty"`
	// Groups counts the pod groups judged, apart from the pods above: a
	// group's members are judged together, all or nothing, as the
	// pod-group cycle places them.
	// +optional
	Groups *ShadowGroupResult `json:"groups,omitempty"`
	// Disagreements: the first pods the new generation judged otherwise,
	// and the plugin that refused the serving generation's node.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=5
	Disagreements []ShadowDisagreement `json:"disagreements,omitempty"`
}

// ShadowGroupResult counts the pod groups the new generation judged in a
// shadow step.
type ShadowGroupResult struct {
	// Judged groups.
	Judged int64 `json:"judged"`
	// ServingPlaced: groups the serving generation placed (every member).
	ServingPlaced int64 `json:"servingPlaced"`
	// PlacedWhereServingPlaced: of those, groups the new generation
	// places too, every member.
	PlacedWhereServingPlaced int64 `json:"placedWhereServingPlaced"`
	// WouldPlace: groups the serving generation could not place that the
	// new one would.
	WouldPlace int64 `json:"wouldPlace"`
	// WouldNotPlace: groups the serving generation placed that the new
	// one places no member of.
	WouldNotPlace int64 `json:"wouldNotPlace"`
}

// ShadowDisagreement is one pod the new generation judged otherwise.
type ShadowDisagreement struct {
	// Pod, namespace/name.
	// +kubebuilder:validation:MaxLength=317
	Pod string `json:"pod"`
	// ServingNode the serving generation picked; empty if none.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ServingNode string `json:"servingNode,omitempty"`
	// NewNode the new generation would pick; empty if none.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	NewNode string `json:"newNode,omitempty"`
	// Plugin that refused ServingNode in the new generation.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Plugin string `json:"plugin,omitempty"`
}

// RolloutRecord is a rollout that ended.
type RolloutRecord struct {
	Generation int64 `json:"generation"`
	// Outcome: Promoted, RolledBack, Aborted or Superseded.
	// +kubebuilder:validation:MaxLength=64
	Outcome string `json:"outcome"`
	// Reason and Message say why.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string      `json:"message,omitempty"`
	Time    metav1.Time `json:"time"`
}
