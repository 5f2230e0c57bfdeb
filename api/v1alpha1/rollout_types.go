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

// Annotations that steer a rollout in progress. They are declarative: a
// GitOps tool can set them as `kubectl sp rollout` does, and setting one
// again changes nothing. They do not change metadata.generation, so they
// never start a rollout of their own.
const (
	// AnnotationRolloutPaused, "true", holds the rollout at its step: the
	// step's window does not end and no analysis is judged until it is
	// removed (or set to anything else).
	AnnotationRolloutPaused = "scheduling.profilescheduler.io/rollout-paused"
	// AnnotationRolloutPromote ends a step now, as if its analysis had
	// passed: "<generation>/<step>" ends step <step> (1-based) of the
	// rollout of generation <generation>; "<generation>/full" promotes that
	// generation at once, skipping the steps left. A value naming another
	// generation, or a step already past, does nothing.
	AnnotationRolloutPromote = "scheduling.profilescheduler.io/rollout-promote"
	// AnnotationRolloutAbort, "<generation>", rolls the rollout of that
	// generation back: the serving generation stays, as after a failed
	// analysis.
	AnnotationRolloutAbort = "scheduling.profilescheduler.io/rollout-abort"
	// AnnotationRolloutUndo, "<revision>@<generation>", puts the spec of
	// that revision of the profile's history (kubectl sp rollout history)
	// back while the profile is at generation <generation>, and promotes
	// it at once: it served before. spec.rollout and
	// spec.revisionHistoryLimit stay as they are. A value naming another
	// generation does nothing, so an annotation left in place (or applied
	// again by a GitOps tool) undoes nothing twice.
	AnnotationRolloutUndo = "scheduling.profilescheduler.io/rollout-undo"
	// AnnotationRolloutRetry, "<generation>/<attempt>", rolls a generation
	// that was rolled back or aborted out again, from its first step: once
	// per attempt (status.rollout.retried names the last one honoured).
	AnnotationRolloutRetry = "scheduling.profilescheduler.io/rollout-retry"
)

// The history of the specs that served.
const (
	// LabelProfile names, on a ControllerRevision, the SchedulerProfile
	// whose spec it keeps.
	LabelProfile = "scheduling.profilescheduler.io/profile"
	// AnnotationRevisionGeneration is the profile's generation whose spec
	// a ControllerRevision keeps; AnnotationRevisionChangedBy the field
	// manager that last wrote the spec (kubectl, argocd-controller, ...).
	AnnotationRevisionGeneration = "scheduling.profilescheduler.io/generation"
	AnnotationRevisionChangedBy  = "scheduling.profilescheduler.io/changed-by"
	// DefaultRevisionHistoryLimit is spec.revisionHistoryLimit's default.
	DefaultRevisionHistoryLimit = 10
)

// Rollout bounds.
const (
	// MaxRolloutSteps is the most steps a rollout has.
	MaxRolloutSteps = 10
	// MinStepDuration and MaxStepDuration bound a step's window.
	MinStepDuration = "10s"
	MaxStepDuration = "24h"
	// MaxRolloutHistory is how many finished rollouts status keeps.
	MaxRolloutHistory = 5
)

// Rollout makes a new generation of the profile earn its place: it first
// judges live traffic in shadow, then schedules a share of the profile's
// pods as a canary, and is promoted after the last step, or rolled back
// when an analysis fails. The serving generation keeps scheduling every
// other pod meanwhile.
// +kubebuilder:validation:XValidation:rule="!has(self.steps[0].pause)",message="the first step cannot be a pause: a pause holds the step before it",fieldPath=".steps"
// +kubebuilder:validation:XValidation:rule="!has(self.pauseTimeout) || (duration(self.pauseTimeout) >= duration('10s') && duration(self.pauseTimeout) <= duration('168h'))",message="pauseTimeout must be between 10s and 168h",fieldPath=".pauseTimeout"
type Rollout struct {
	// Steps, in order; the new generation is promoted after the last one
	// passes.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +listType=atomic
	Steps []RolloutStep `json:"steps"`
	// Analysis compares the new generation with the serving one at the
	// end of each step. Unset: the defaults of each field.
	// +optional
	Analysis *RolloutAnalysis `json:"analysis,omitempty"`
	// OnFailure is what a failed analysis does: Rollback (the default)
	// retires the new generation; Pause holds it at its step until it is
	// promoted or aborted, or until PauseTimeout.
	// +optional
	// +kubebuilder:validation:Enum=Rollback;Pause
	OnFailure RolloutFailurePolicy `json:"onFailure,omitempty"`
	// PauseTimeout bounds how long a rollout held by a failed analysis
	// (onFailure: Pause) waits for a person: past it, it is rolled back.
	// Unset: it waits until promoted or aborted. 10s to 168h.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	PauseTimeout *metav1.Duration `json:"pauseTimeout,omitempty"`
}

// RolloutFailurePolicy is what a failed analysis does.
type RolloutFailurePolicy string

// Failure policies.
const (
	RolloutRollback RolloutFailurePolicy = "Rollback"
	RolloutPause    RolloutFailurePolicy = "Pause"
)

// RolloutStep is one step of a rollout: exactly one of shadow, canary or
// pause.
// +kubebuilder:validation:XValidation:rule="(has(self.shadow) ? 1 : 0) + (has(self.canary) ? 1 : 0) + (has(self.pause) ? 1 : 0) == 1",message="a step is exactly one of shadow, canary or pause"
type RolloutStep struct {
	// Shadow: the new generation judges the pods the serving one
	// schedules (Filter and Score, off the scheduling cycle) and decides
	// nothing.
	// +optional
	Shadow *ShadowStep `json:"shadow,omitempty"`
	// Canary: the new generation schedules this share of the profile's
	// pods, chosen by a stable hash of the pod's UID (of its PodGroup's,
	// so a gang never straddles generations).
	// +optional
	Canary *CanaryStep `json:"canary,omitempty"`
	// Pause holds the rollout at the step before it (its share of the
	// pods, its shadow), judging nothing, for its duration or, without
	// one, until the step is promoted (kubectl sp rollout promote).
	// +optional
	Pause *PauseStep `json:"pause,omitempty"`
}

// PauseStep is a gate: the rollout waits, at the step before it.
// +kubebuilder:validation:XValidation:rule="!has(self.duration) || (duration(self.duration) >= duration('10s') && duration(self.duration) <= duration('168h'))",message="duration must be between 10s and 168h",fieldPath=".duration"
type PauseStep struct {
	// Duration of the pause, 10s to 168h; unset: until promoted.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Duration *metav1.Duration `json:"duration,omitempty"`
	// OnTimeout is what the end of Duration does: Continue (the default)
	// goes on to the next step; Rollback rolls the rollout back (a gate
	// that a person must open in time).
	// +optional
	// +kubebuilder:validation:Enum=Continue;Rollback
	OnTimeout string `json:"onTimeout,omitempty"`
}

// Pause timeouts.
const (
	PauseContinue = "Continue"
	PauseRollback = "Rollback"
)

// ShadowStep is a step in which the new generation only judges.
// +kubebuilder:validation:XValidation:rule="duration(self.duration) >= duration('10s') && duration(self.duration) <= duration('24h')",message="duration must be between 10s and 24h",fieldPath=".duration"
type ShadowStep struct {
	// Duration of the step's window, 10s to 24h.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Duration metav1.Duration `json:"duration"`
}

// CanaryStep is a step in which the new generation schedules a share of
// the pods.
// +kubebuilder:validation:XValidation:rule="duration(self.duration) >= duration('10s') && duration(self.duration) <= duration('24h')",message="duration must be between 10s and 24h",fieldPath=".duration"
// +kubebuilder:validation:XValidation:rule="self.percent < 100 || has(self.selector)",message="percent 100 needs a selector: without one the step would be a promotion",fieldPath=".percent"
type CanaryStep struct {
	// Percent of the profile's pods the new generation schedules, 1 to 99;
	// with a selector, of the pods the selector matches, 1 to 100.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Percent int32 `json:"percent"`
	// Selector limits the canary to the pods it matches: the new
	// generation schedules Percent of them, the serving one every other
	// pod. A pod group is covered when the member that starts its cycle
	// is (give a group's members the same labels).
	// +optional
	Selector *CanarySelector `json:"selector,omitempty"`
	// Duration of the step's window, 10s to 24h.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Duration metav1.Duration `json:"duration"`
}

// CanarySelector picks the pods a canary step may cover: those whose
// namespace matches NamespaceSelector and which match PodSelector (a
// selector left out matches everything; at least one is set).
// +kubebuilder:validation:XValidation:rule="has(self.namespaceSelector) || has(self.podSelector)",message="a selector names namespaceSelector, podSelector or both"
type CanarySelector struct {
	// NamespaceSelector matches the labels of the pod's namespace.
	// +optional
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`
	// PodSelector matches the pod's labels.
	// +optional
	PodSelector *LabelSelector `json:"podSelector,omitempty"`
}

// RolloutAnalysis is judged while each step runs, every Interval, and at
// its end, new generation against serving over the same window. A step
// fails as soon as its failure is certain (see each field); it passes
// only at its end.
// +kubebuilder:validation:XValidation:rule="!has(self.interval) || (duration(self.interval) >= duration('1s') && duration(self.interval) <= duration('1h'))",message="interval must be between 1s and 1h",fieldPath=".interval"
type RolloutAnalysis struct {
	// Interval between two looks at a step's window while it runs, 1s to
	// 1h. Default 10s. A look fails the step when errors exceed MaxErrors,
	// or when a ratio is past its bound with at least MinSamples even at
	// the edge of its confidence interval (a sequential rule, so that
	// early looks do not add false rollbacks: see docs/rollout.md).
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Interval *metav1.Duration `json:"interval,omitempty"`
	// MaxUnschedulableRatio bounds the new generation's share of
	// unschedulable attempts divided by the serving one's, each share
	// plus 0.1 (so that a window without any is defined, and one attempt
	// of a canary's few does not swing it): 1.5 lets the new generation
	// find 5% of its attempts unschedulable where the serving one finds
	// none. At most 10 (a ratio no generation can exceed would never fail).
	// Default 1.5.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	MaxUnschedulableRatio *float64 `json:"maxUnschedulableRatio,omitempty"`
	// MaxLatencyRatio bounds the new generation's p99 scheduling latency,
	// from a pod's first attempt to its bind, divided by the serving
	// one's; a p99 under 100ms counts as 100ms (below it latency follows
	// the machine's load more than the policy). At most 10. Default 2.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	MaxLatencyRatio *float64 `json:"maxLatencyRatio,omitempty"`
	// MaxErrors bounds the new generation's errors in the window: plugin
	// and extender errors in its cycles, failed binds. At most 1000.
	// Default 0.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	MaxErrors *int32 `json:"maxErrors,omitempty"`
	// MinShadowAgreement is, in a shadow step, the least share (0 to 1)
	// of the pods the serving generation placed that the new one finds
	// feasible on the same node. Default 0.9.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	MinShadowAgreement *float64 `json:"minShadowAgreement,omitempty"`
	// MinSamples is the least number of the new generation's attempts (of
	// pods judged, in shadow) a step needs to be judged. A step with
	// fewer is extended by its duration, at most MaxExtensions times,
	// then judged by OnInsufficientSamples. At most 10000. Default 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	MinSamples *int32 `json:"minSamples,omitempty"`
	// MaxExtensions bounds how often a step short of samples is extended.
	// Default 3.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	MaxExtensions *int32 `json:"maxExtensions,omitempty"`
	// OnInsufficientSamples is the verdict of a step still short of
	// samples after its extensions: Fail (the default) or Pass.
	// +optional
	// +kubebuilder:validation:Enum=Fail;Pass
	OnInsufficientSamples string `json:"onInsufficientSamples,omitempty"`
	// Metrics of your own: PromQL queries to the Prometheus the operator
	// is given (--prometheus-address), each judged by a CEL condition on
	// its result, measured while a shadow or canary step runs, beside the
	// built-in metrics above. A metric that fails more often than its
	// failureLimit fails the step at once.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	Metrics []AnalysisMetric `json:"metrics,omitempty"`
}

// AnalysisMetric is a Prometheus query whose result a CEL condition
// judges, measured every Interval while a step runs (docs/rollout.md,
// "Your own metrics").
// +kubebuilder:validation:XValidation:rule="!has(self.interval) || (duration(self.interval) >= duration('1s') && duration(self.interval) <= duration('1h'))",message="interval must be between 1s and 1h",fieldPath=".interval"
type AnalysisMetric struct {
	// Name of the metric in status.rollout.analysis: a DNS-1123 label
	// (lower case, so it never meets a built-in metric's name).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// Query is a PromQL instant query, evaluated at each measurement.
	// Before it is sent, $profile is replaced by the profile's
	// schedulerName (the profile label of the scheduler's metrics),
	// $generation by the generation rolled out, $servingGeneration by
	// the one serving, and $window by the time since the step started,
	// as a PromQL duration in seconds ("90s"). It must return a scalar or
	// an instant vector.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Query string `json:"query"`
	// SuccessCondition is a CEL expression over result, the query's
	// values as a list of doubles (a scalar's one value; an instant
	// vector's, in the order of their label sets), true when the
	// measurement passes: for example "size(result) == 1 && result[0] <
	// 0.05". A condition that cannot be evaluated (result[0] of no
	// series) is an error of the measurement (onError).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	SuccessCondition string `json:"successCondition"`
	// Interval between two measurements, 1s to 1h. Default: the
	// analysis' interval. A query unanswered within the shorter of its
	// interval and 5s is an error of the measurement.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	Interval *metav1.Duration `json:"interval,omitempty"`
	// FailureLimit is how many failed measurements a step's window
	// allows; one more fails the step. 0 to 100, default 0.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	FailureLimit *int32 `json:"failureLimit,omitempty"`
	// OnError is what a measurement that could not be taken counts as
	// (Prometheus unreachable, the query refused or too slow, a matrix
	// or string result, a condition that cannot be evaluated): Fail (the
	// default) counts it as a failed measurement; Ignore records it in
	// status and judges nothing by it.
	// +optional
	// +kubebuilder:validation:Enum=Fail;Ignore
	OnError string `json:"onError,omitempty"`
}

// What a custom metric's measurement error counts as.
const (
	MetricErrorFail   = "Fail"
	MetricErrorIgnore = "Ignore"
)
