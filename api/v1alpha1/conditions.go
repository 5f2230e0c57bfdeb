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

// Condition types. They follow the kstatus conventions, so kubectl wait,
// Flux and Argo CD read them without custom health checks.
const (
	// ConditionReady is True when the latest generation serves pods.
	ConditionReady = "Ready"
	// ConditionReconciling is True while a generation is being applied.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when the latest generation was refused and
	// needs a change of spec (or of what it references) to make progress.
	ConditionStalled = "Stalled"
)

// Condition reasons.
const (
	// ReasonActive: the latest generation is live.
	ReasonActive = "Active"
	// ReasonApplying: the generation is being built and swapped in.
	ReasonApplying = "Applying"
	// ReasonInvalidSpec: the spec fails upstream conversion or validation.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonUnknownPlugin: a plugin named in the spec is in no registry.
	ReasonUnknownPlugin = "UnknownPlugin"
	// ReasonInvalidPluginArgs: pluginConfig args do not decode or validate.
	ReasonInvalidPluginArgs = "InvalidPluginArgs"
	// ReasonExtenderNotFound: a referenced ExtenderConfig does not exist.
	ReasonExtenderNotFound = "ExtenderNotFound"
	// ReasonExtenderNotReady: a referenced ExtenderConfig is itself refused.
	ReasonExtenderNotReady = "ExtenderNotReady"
	// ReasonSchedulerNameConflict: an older profile already serves the name.
	ReasonSchedulerNameConflict = "SchedulerNameConflict"
	// ReasonDefaultSchedulerReserved: default-scheduler is taken only when
	// the operator is started with --allow-default-scheduler.
	ReasonDefaultSchedulerReserved = "DefaultSchedulerReserved"
	// ReasonRollingOut: a new generation is being rolled out (Reconciling).
	ReasonRollingOut = "RollingOut"
	// ReasonRolloutPaused: the rollout is paused, by the annotation or a
	// failed analysis with onFailure Pause (Reconciling).
	ReasonRolloutPaused = "RolloutPaused"
	// ReasonRolledBack: the rollout's analysis failed and the previous
	// generation serves (Stalled, Ready=False).
	ReasonRolledBack = "RolledBack"
	// ReasonRolloutAborted: the rollout was aborted; the previous
	// generation serves (Stalled, Ready=False).
	ReasonRolloutAborted = "RolloutAborted"
	// ReasonQueueSortChanged: a rollout cannot split a change of the
	// QueueSort plugin (the profile has one queue).
	ReasonQueueSortChanged = "QueueSortChanged"
	// ReasonPrometheusNotConfigured: spec.rollout.analysis.metrics need
	// a Prometheus, and the operator was given none
	// (--prometheus-address).
	ReasonPrometheusNotConfigured = "PrometheusNotConfigured"
	// ReasonBuildFailed: the framework could not be built for another reason.
	ReasonBuildFailed = "BuildFailed"
	// ReasonInvalidTLS: an extender's TLS material is missing or unreadable.
	ReasonInvalidTLS = "InvalidTLS"
	// ReasonSecretNotFound: the Secret an extender refers to does not exist.
	ReasonSecretNotFound = "SecretNotFound"
	// ReasonSecretNamespaceNotAllowed: an extender names a Secret outside
	// the operator's extender-secrets namespace.
	ReasonSecretNamespaceNotAllowed = "SecretNamespaceNotAllowed"
)

// Event reasons.
const (
	// EventActivated: a generation became live.
	EventActivated = "Activated"
	// EventRefused: a generation was refused; the previous one keeps serving.
	EventRefused = "Refused"
	// EventRemoved: the profile stopped serving.
	EventRemoved = "Removed"
	// EventRolloutStep: a rollout started a step.
	EventRolloutStep = "RolloutStep"
	// EventPromoted: a rollout's generation serves every pod.
	EventPromoted = "Promoted"
	// EventRolledBack: a rollout's generation was retired (a failed
	// analysis, or aborted).
	EventRolledBack = "RolledBack"
	// EventUnusedPluginConfig: a generation went live with a pluginConfig
	// entry for a plugin it does not run (its args are not used).
	EventUnusedPluginConfig = "UnusedPluginConfig"
	// EventGangSchedulingDisabled: with the GenericWorkload feature gate
	// on, a generation went live without the GangScheduling plugin, so the
	// minCount of pod groups is ignored under it (upstream accepts it).
	EventGangSchedulingDisabled = "GangSchedulingDisabled"
	// EventRoutingTableRestored: someone else changed or deleted the
	// RoutingTable of the routes; the operator wrote the routes in force
	// back.
	EventRoutingTableRestored = "RoutingTableRestored"
	// EventRoutesNotInForce: a probe shows that kube-apiserver runs
	// something else than the routes in force (the routes policy or its
	// binding changed or deleted), where it ran them before.
	EventRoutesNotInForce = "RoutesNotInForce"
	// EventRoutesInForce: a probe shows the routes in force again.
	EventRoutesInForce = "RoutesInForce"
)

// SchedulingReview condition types.
const (
	// ConditionComplete is True once a review is answered.
	ConditionComplete = "Complete"
	// ConditionFailed is True when a review cannot be answered; the
	// message names the field at fault.
	ConditionFailed = "Failed"
	// ConditionAnswering is True while an operator answers the review; its
	// message names the operator process. A review found Answering by
	// another process (the one answering it died, or lost its lease) is
	// answered Failed (OperatorRestarted), never started again.
	ConditionAnswering = "Answering"
)

// SchedulingReview condition reasons.
const (
	// ReasonAnswered: the review was evaluated.
	ReasonAnswered = "Answered"
	// ReasonAnswering: an operator is answering the review.
	ReasonAnswering = "Answering"
	// ReasonOperatorRestarted: the operator process that was answering
	// the review is gone; the review is not answered again (it may be
	// what stopped it).
	ReasonOperatorRestarted = "OperatorRestarted"
	// ReasonReviewTimeout: the answer took longer than the operator's
	// --review-timeout; the message says what it had computed.
	ReasonReviewTimeout = "ReviewTimeout"
	// ReasonPodNotFound: spec.podName names no pod of the namespace.
	ReasonPodNotFound = "PodNotFound"
	// ReasonInvalidPodTemplate: spec.podTemplate cannot be decoded.
	ReasonInvalidPodTemplate = "InvalidPodTemplate"
	// ReasonProfileNotFound: spec.profile names no SchedulerProfile.
	ReasonProfileNotFound = "ProfileNotFound"
	// ReasonProfileNotServing: the profile (or the pod's schedulerName)
	// has no generation serving.
	ReasonProfileNotServing = "ProfileNotServing"
	// ReasonInvalidReview: the spec combines fields that do not go
	// together.
	ReasonInvalidReview = "InvalidReview"
	// ReasonEvaluationFailed: the pipeline returned an error.
	ReasonEvaluationFailed = "EvaluationFailed"
	// ReasonInvalidScenario: spec.scenario cannot be run as given (a
	// template that does not decode or says nothing of what its nodes
	// hold, a node that does not exist, a bad selector).
	ReasonInvalidScenario = "InvalidScenario"
	// ReasonScenarioTooLarge: spec.scenario, expanded, has more nodes or
	// pods than the operator's limits.
	ReasonScenarioTooLarge = "ScenarioTooLarge"
	// ReasonPodGroupNotFound: spec.podGroupName (or the group of the pod
	// spec.podName names) is no PodGroup the scheduler knows, or pod
	// groups are off (the GenericWorkload feature gate).
	ReasonPodGroupNotFound = "PodGroupNotFound"
)

// ProfileRoute condition reasons, beside ReasonActive, ReasonApplying,
// ReasonProfileNotFound (spec.profile names no SchedulerProfile, and the
// route falls back) and ReasonProfileNotServing (no generation of the
// profile serves, and the route falls back).
const (
	// ReasonRouteConflict: an older route of equal priority selects some
	// of the same pods.
	ReasonRouteConflict = "RouteConflict"
	// ReasonTooManyRoutes: MaxProfileRoutes older routes exist; this one
	// is not compiled in until one of them is deleted.
	ReasonTooManyRoutes = "TooManyRoutes"
	// ReasonInvalidSelector: spec.namespaceSelector or spec.podSelector is
	// not a valid label selector.
	ReasonInvalidSelector = "InvalidSelector"
	// ReasonAdmissionPolicyUnavailable: the API server does not serve
	// admissionregistration.k8s.io/v1 MutatingAdmissionPolicy.
	ReasonAdmissionPolicyUnavailable = "AdmissionPolicyUnavailable"
	// ReasonAdmissionPolicyNotInForce: the RoutingTable is stored but a
	// probe shows that kube-apiserver does not run it: not yet
	// (Ready=False while Reconciling), still not after 30 s, or no longer
	// (the routes policy or its binding changed or deleted; Stalled).
	ReasonAdmissionPolicyNotInForce = "AdmissionPolicyNotInForce"
	// ReasonAdmissionPolicyMissing: the routes MutatingAdmissionPolicy or
	// its binding did not exist. No longer reported: the operator holds
	// no right on them, and a probe shows them missing
	// (AdmissionPolicyNotInForce).
	ReasonAdmissionPolicyMissing = "AdmissionPolicyMissing"
	// ReasonAdmissionPolicyRefused: kube-apiserver refused the update of
	// the routes policy or binding. No longer reported: the operator
	// writes the RoutingTable only (RoutingTableRefused).
	ReasonAdmissionPolicyRefused = "AdmissionPolicyRefused"
	// ReasonRoutingTableRefused: kube-apiserver refused to write the
	// RoutingTable (RBAC, or the CRD is missing); the message quotes
	// the refusal.
	ReasonRoutingTableRefused = "RoutingTableRefused"
)
