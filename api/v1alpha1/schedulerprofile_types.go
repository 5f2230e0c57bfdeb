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
	"k8s.io/apimachinery/pkg/runtime"
)

// SchedulerProfileSpec mirrors one KubeSchedulerProfile of the upstream
// kubescheduler.config.k8s.io/v1 API, field for field, plus references to the
// extenders this profile (and only this profile) calls.
type SchedulerProfileSpec struct {
	// SchedulerName is the name pods put in spec.schedulerName to be
	// scheduled by this profile. Defaults to metadata.name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="spec.schedulerName must be a DNS-1123 subdomain (lower-case alphanumeric labels of '-', separated by single '.'), as a pod's spec.schedulerName"
	SchedulerName *string `json:"schedulerName,omitempty"`

	// PercentageOfNodesToScore is the share of feasible nodes to find before
	// scoring stops searching. 0 or unset means the upstream adaptive default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	PercentageOfNodesToScore *int32 `json:"percentageOfNodesToScore,omitempty"`

	// Plugins enables and disables plugins per extension point, as upstream.
	// Unset means the upstream default plugin set.
	// +optional
	Plugins *Plugins `json:"plugins,omitempty"`

	// PluginConfig gives plugins their arguments. Args are decoded by the
	// upstream scheme into the plugin's typed args: unknown fields are errors.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	PluginConfig []PluginConfig `json:"pluginConfig,omitempty"`

	// Extenders names the ExtenderConfig objects this profile calls, in order.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=253
	Extenders []string `json:"extenders,omitempty"`

	// Rollout, when set, rolls a new generation out in steps (shadow,
	// canary) judged against the serving one, instead of swapping it in
	// for every pod at once. It applies to changes of the spec and of the
	// ExtenderConfigs the profile references; the first generation of a
	// profile, with nothing serving yet, goes live at once.
	// +optional
	Rollout *Rollout `json:"rollout,omitempty"`
	// RevisionHistoryLimit is how many of the specs that served are kept,
	// as ControllerRevisions owned by the profile in the operator's
	// namespace, for kubectl sp rollout history and undo. 0 to 50;
	// default 10.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=50
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
}

// Plugins lists the plugins enabled and disabled at each extension point.
// +kubebuilder:validation:XValidation:rule="!has(self.queueSort) || !has(self.queueSort.enabled) || size(self.queueSort.enabled) <= 1",message="at most one queueSort plugin may be enabled"
type Plugins struct {
	// PreEnqueue plugins are called before a pod is added to the active queue.
	// +optional
	PreEnqueue PluginSet `json:"preEnqueue,omitempty"`
	// QueueSort orders the scheduling queue; exactly one runs.
	// +optional
	QueueSort PluginSet `json:"queueSort,omitempty"`
	// PreFilter plugins.
	// +optional
	PreFilter PluginSet `json:"preFilter,omitempty"`
	// Filter plugins.
	// +optional
	Filter PluginSet `json:"filter,omitempty"`
	// PostFilter plugins run when no node fits (for example preemption).
	// +optional
	PostFilter PluginSet `json:"postFilter,omitempty"`
	// PreScore plugins.
	// +optional
	PreScore PluginSet `json:"preScore,omitempty"`
	// Score plugins; weight applies here.
	// +optional
	Score PluginSet `json:"score,omitempty"`
	// Reserve plugins.
	// +optional
	Reserve PluginSet `json:"reserve,omitempty"`
	// Permit plugins.
	// +optional
	Permit PluginSet `json:"permit,omitempty"`
	// PreBind plugins.
	// +optional
	PreBind PluginSet `json:"preBind,omitempty"`
	// Bind plugins.
	// +optional
	Bind PluginSet `json:"bind,omitempty"`
	// PostBind plugins.
	// +optional
	PostBind PluginSet `json:"postBind,omitempty"`
	// MultiPoint enables a plugin at every extension point it implements.
	// +optional
	MultiPoint PluginSet `json:"multiPoint,omitempty"`
}

// PluginSet enables and disables plugins at one extension point.
type PluginSet struct {
	// Enabled plugins, called in this order after the default ones.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Enabled []Plugin `json:"enabled,omitempty"`
	// Disabled plugins; "*" disables all default ones.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Disabled []Plugin `json:"disabled,omitempty"`
}

// Plugin names a plugin and, at the score extension point, its weight.
type Plugin struct {
	// Name of the plugin, as registered (for example NodeResourcesFit).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.trim().size() > 0",message="plugin name must not be blank"
	Name string `json:"name"`
	// Weight of a score plugin. 0 or unset means 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Weight *int32 `json:"weight,omitempty"`
}

// MaxPluginArgsBytes bounds the JSON of one PluginConfig's args: upstream's
// largest args take a few KiB, and the 64 entries of pluginConfig stay
// under etcd's request size.
const MaxPluginArgsBytes = 16 << 10

// PluginConfig gives one plugin its arguments.
type PluginConfig struct {
	// Name of the plugin the args are for.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Args in the plugin's own versioned schema (for example
	// NodeResourcesFitArgs of kubescheduler.config.k8s.io/v1), at most
	// MaxPluginArgsBytes of JSON (a larger one is refused, naming the
	// field, by the webhook and the controller: a schema cannot bound a
	// free-form object's size).
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Args runtime.RawExtension `json:"args,omitempty"`
}

// SchedulerProfileStatus says which generation serves pods and why the
// latest one does not, when it does not.
type SchedulerProfileStatus struct {
	// ObservedGeneration is the generation whose outcome (live or refused)
	// was last decided.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ActiveGeneration is the generation now serving pods; 0 when none does.
	// +optional
	ActiveGeneration int64 `json:"activeGeneration,omitempty"`
	// SchedulerName is the schedulerName this profile serves or claims.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SchedulerName string `json:"schedulerName,omitempty"`
	// Conditions: Ready, Reconciling, Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Plugins is what the serving framework really runs, per extension point,
	// after defaults and MultiPoint expansion.
	// +optional
	// +listType=map
	// +listMapKey=extensionPoint
	// +kubebuilder:validation:MaxItems=32
	Plugins []ExtensionPointPlugins `json:"plugins,omitempty"`
	// Extenders are the resolved extenders of the serving framework.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Extenders []ResolvedExtender `json:"extenders,omitempty"`
	// Routes are the ProfileRoutes in force that send pods to this
	// profile, sorted (written by the routes reconciler).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=200
	// +kubebuilder:validation:items:MaxLength=253
	Routes []string `json:"routes,omitempty"`
	// ActiveSpec is a copy of the spec of ActiveGeneration, the last known
	// good one; unset when no generation serves. When the operator
	// restarts and the latest generation is refused, it applies this spec
	// again, so the profile keeps serving what it served before.
	// +optional
	ActiveSpec *SchedulerProfileSpec `json:"activeSpec,omitempty"`
	// Rollout is the state of the rollout in progress, or of the last one.
	// +optional
	Rollout *RolloutStatus `json:"rollout,omitempty"`
	// Loop is the state of the scheduling loop that schedules the
	// profile's pods, while a generation serves; refreshed every 30s.
	// +optional
	Loop *LoopStatus `json:"loop,omitempty"`
}

// LoopStatus is the state of the scheduling loop of a profile.
type LoopStatus struct {
	// Own is true when the profile has a scheduling loop of its own, so
	// that other profiles' slow cycles never hold up its pods; false when
	// one loop schedules every profile's pods (--profile-loops=false).
	Own bool `json:"own"`
	// BusyPercent is the share of the last minute the loop spent in
	// scheduling cycles, rounded to 5; the rest it waited for pods. With
	// one loop for every profile, it is that loop's.
	BusyPercent int32 `json:"busyPercent"`
	// SlowCycle names the pod or pod group (for example
	// "pod default/web-3") whose scheduling cycle had run for a second or
	// more when the status was written, since SlowCycleSince: what the
	// loop is stuck on, often a slow extender.
	// +optional
	// +kubebuilder:validation:MaxLength=333
	SlowCycle string `json:"slowCycle,omitempty"`
	// +optional
	SlowCycleSince *metav1.Time `json:"slowCycleSince,omitempty"`
	// AssumeConflicts counts the profile's pods that lost their node's
	// room to another profile's loop between their cycle's snapshot and
	// their assume, and were scheduled again at once (since the loop
	// started).
	// +optional
	AssumeConflicts int64 `json:"assumeConflicts,omitempty"`
}

// ExtensionPointPlugins lists the plugins run at one extension point.
type ExtensionPointPlugins struct {
	// ExtensionPoint, for example Filter or Score.
	// +kubebuilder:validation:MaxLength=64
	ExtensionPoint string `json:"extensionPoint"`
	// Plugins in the order they run.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=128
	Plugins []EffectivePlugin `json:"plugins"`
}

// EffectivePlugin is one plugin as the framework runs it.
type EffectivePlugin struct {
	// Name of the plugin.
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Weight at the score extension point.
	// +optional
	Weight int32 `json:"weight,omitempty"`
}

// ResolvedExtender is an extender the serving framework calls.
type ResolvedExtender struct {
	// Name of the ExtenderConfig.
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// URLPrefix it was built with.
	// +kubebuilder:validation:MaxLength=2048
	URLPrefix string `json:"urlPrefix"`
	// Generation of the ExtenderConfig that was used.
	// +optional
	Generation int64 `json:"generation,omitempty"`
}

// SchedulerProfile is a live scheduling profile: pods whose
// spec.schedulerName matches are scheduled by the framework it describes.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Cluster,shortName=sp,categories=scheduling
// +kubebuilder:printcolumn:name="Scheduler",type=string,JSONPath=`.status.schedulerName`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Active-Gen",type=integer,JSONPath=`.status.activeGeneration`
// +kubebuilder:printcolumn:name="Rollout",type=string,JSONPath=`.status.rollout.summary`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=10
// +kubebuilder:printcolumn:name="Generation",type=integer,JSONPath=`.metadata.generation`,priority=10
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type SchedulerProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec SchedulerProfileSpec `json:"spec,omitempty"`
	// +optional
	Status SchedulerProfileStatus `json:"status,omitempty"`
}

// EffectiveSchedulerName is spec.schedulerName, or metadata.name when unset.
func (p *SchedulerProfile) EffectiveSchedulerName() string {
	if p.Spec.SchedulerName != nil && *p.Spec.SchedulerName != "" {
		return *p.Spec.SchedulerName
	}
	return p.Name
}

// +kubebuilder:object:root=true

// SchedulerProfileList is a list of SchedulerProfile.
type SchedulerProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SchedulerProfile `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SchedulerProfile{}, &SchedulerProfileList{})
}
