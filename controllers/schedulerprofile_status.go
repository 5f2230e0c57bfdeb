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

package controllers

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// profileOutcome is what one reconcile decided about the latest generation
// of a SchedulerProfile.
type profileOutcome struct {
	// Generation decided on.
	Generation int64
	// SchedulerName the generation claims.
	SchedulerName string
	// Refusal is nil when the generation serves pods.
	Refusal *Refusal
	// ActiveGeneration serves pods after this reconcile; 0 when none does.
	ActiveGeneration int64
	// Plugins the serving framework runs; nil keeps what status had.
	Plugins *config.Plugins
	// Extenders of the serving framework; used with Plugins.
	Extenders []v1alpha1.ResolvedExtender
	// ActiveSpec is the spec ActiveGeneration was built from; used with
	// Plugins.
	ActiveSpec *v1alpha1.SchedulerProfileSpec
	// Rollout is set when the generation goes through spec.rollout: its
	// status, and whether it is in progress.
	Rollout *rolloutOutcome
}

// markReconciling returns status with Reconciling=True for generation,
// written before a new generation is applied.
func markReconciling(st v1alpha1.SchedulerProfileStatus, generation int64, now metav1.Time) v1alpha1.SchedulerProfileStatus {
	st = *st.DeepCopy()
	setCondition(&st.Conditions, generation, v1alpha1.ConditionReconciling, metav1.ConditionTrue, v1alpha1.ReasonApplying,
		fmt.Sprintf("applying generation %d", generation), now)
	return st
}

// profileStatus computes the status that follows from outcome, starting
// from the previous status st. It is pure: the reconciler writes what it
// returns, and only when it differs from what is stored.
func profileStatus(st v1alpha1.SchedulerProfileStatus, o profileOutcome, now metav1.Time) v1alpha1.SchedulerProfileStatus {
	st = *st.DeepCopy()
	st.ObservedGeneration = o.Generation
	st.SchedulerName = o.SchedulerName
	st.ActiveGeneration = o.ActiveGeneration
	if o.Plugins != nil {
		st.Plugins = effectivePlugins(o.Plugins)
		st.Extenders = o.Extenders
		st.ActiveSpec = o.ActiveSpec.DeepCopy()
	}
	if o.ActiveGeneration == 0 {
		st.Plugins = nil
		st.Extenders = nil
		st.ActiveSpec = nil
	}
	if o.Rollout != nil {
		st.Rollout = o.Rollout.status
	}
	if o.Rollout != nil && o.Rollout.inProgress {
		ro := o.Rollout.status
		reason := v1alpha1.ReasonRollingOut
		if ro.Phase == v1alpha1.RolloutPaused {
			reason = v1alpha1.ReasonRolloutPaused
		}
		msg := fmt.Sprintf("generation %d is rolling out, step %d of %d: %s; generation %d serves the other pods",
			ro.Generation, ro.Step, ro.Steps, ro.Summary, o.ActiveGeneration)
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReconciling, metav1.ConditionTrue, reason, msg, now)
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg, now)
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionStalled, metav1.ConditionFalse, reason, "", now)
		return st
	}
	setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReconciling, metav1.ConditionFalse, reconciledReason(o), "", now)
	if o.Refusal == nil {
		msg := fmt.Sprintf("generation %d serves pods with schedulerName %q", o.ActiveGeneration, o.SchedulerName)
		if o.ActiveSpec != nil {
			if ws := profileWarnings(o.ActiveSpec.PluginConfig, o.Plugins); len(ws) > 0 {
				msg += "; warning: " + strings.Join(warningMessages(ws), "; ")
			}
		}
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonActive, msg, now)
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionStalled, metav1.ConditionFalse, v1alpha1.ReasonActive, "", now)
		return st
	}
	msg := fmt.Sprintf("generation %d refused: %s; %s", o.Generation, o.Refusal.Message, servingNote(o.ActiveGeneration))
	setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReady, metav1.ConditionFalse, o.Refusal.Reason, msg, now)
	setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionStalled, metav1.ConditionTrue, o.Refusal.Reason, msg, now)
	return st
}

func reconciledReason(o profileOutcome) string {
	if o.Refusal != nil {
		return o.Refusal.Reason
	}
	return v1alpha1.ReasonActive
}

// servingNote says which generation keeps serving after a refusal.
func servingNote(active int64) string {
	if active == 0 {
		return "no generation of this profile serves pods"
	}
	return fmt.Sprintf("generation %d keeps serving (status.activeGeneration)", active)
}

// extensionPoints lists the extension points in the order the framework
// runs them, with their names in status.
func extensionPoints(p *config.Plugins) []struct {
	name string
	set  config.PluginSet
} {
	return []struct {
		name string
		set  config.PluginSet
	}{
		{"PreEnqueue", p.PreEnqueue},
		{"QueueSort", p.QueueSort},
		{"PreFilter", p.PreFilter},
		{"Filter", p.Filter},
		{"PostFilter", p.PostFilter},
		{"PreScore", p.PreScore},
		{"Score", p.Score},
		{"Reserve", p.Reserve},
		{"Permit", p.Permit},
		{"PreBind", p.PreBind},
		{"Bind", p.Bind},
		{"PostBind", p.PostBind},
		{"PodGroupPostFilter", p.PodGroupPostFilter},
		{"PlacementGenerate", p.PlacementGenerate},
		{"PlacementScore", p.PlacementScore},
	}
}

// effectivePlugins turns what the framework runs (framework.ListPlugins)
// into status, one entry per extension point that runs any plugin.
func effectivePlugins(p *config.Plugins) []v1alpha1.ExtensionPointPlugins {
	var out []v1alpha1.ExtensionPointPlugins
	for _, ep := range extensionPoints(p) {
		if len(ep.set.Enabled) == 0 {
			continue
		}
		e := v1alpha1.ExtensionPointPlugins{ExtensionPoint: ep.name, Plugins: make([]v1alpha1.EffectivePlugin, 0, len(ep.set.Enabled))}
		for _, pl := range ep.set.Enabled {
			e.Plugins = append(e.Plugins, v1alpha1.EffectivePlugin{Name: pl.Name, Weight: pl.Weight})
		}
		out = append(out, e)
	}
	return out
}

// nameConflictRefusal explains that owner, an older profile, holds name.
func nameConflictRefusal(name, owner string) *Refusal {
	return refuse(v1alpha1.ReasonSchedulerNameConflict,
		"spec.schedulerName %q is already claimed by the older SchedulerProfile %q; this profile takes it over when %q is deleted or renamed", name, owner, owner)
}

// defaultSchedulerRefusal explains why default-scheduler is refused.
func defaultSchedulerRefusal() *Refusal {
	return refuse(v1alpha1.ReasonDefaultSchedulerReserved,
		"spec.schedulerName %q is reserved for the cluster's scheduler; start the operator with --allow-default-scheduler to serve it", corev1.DefaultSchedulerName)
}

// extenderRefusal explains a reference to an ExtenderConfig that cannot be
// used.
func extenderRefusal(index int, name string, r *Refusal) *Refusal {
	if r == nil {
		return refuse(v1alpha1.ReasonExtenderNotFound, "spec.extenders[%d]: ExtenderConfig %q not found", index, name)
	}
	return refuse(v1alpha1.ReasonExtenderNotReady, "spec.extenders[%d]: ExtenderConfig %q: %s", index, name, strings.TrimSpace(r.Message))
}

// loopRefresh is how often a served profile's status.loop is refreshed.
const loopRefresh = 30 * time.Second

// slowCycle is how long a cycle runs before status.loop names it.
const slowCycle = time.Second

// loopStatus is status.loop of a profile serving schedulerName (active:
// its serving generation, 0 when none serves): nil when none serves or
// the loops are not known. Its figures are coarse (busy share rounded to
// 5, a cycle named only once it is slow), so that an idle or steady loop
// does not rewrite the status at every refresh.
func (r *schedulerProfileReconciler) loopStatus(schedulerName string, active int64) *v1alpha1.LoopStatus {
	if r.Loops == nil || active == 0 {
		return nil
	}
	st, ok := r.Loops.LoopState(schedulerName)
	if !ok {
		return nil
	}
	out := &v1alpha1.LoopStatus{Own: st.Own, BusyPercent: (st.BusyPercent + 2) / 5 * 5, AssumeConflicts: st.AssumeConflicts}
	if st.Current != "" && r.now().Sub(st.CycleStart) >= slowCycle {
		out.SlowCycle = st.Current
		since := metav1.NewTime(st.CycleStart)
		out.SlowCycleSince = &since
	}
	return out
}

// promotedStatus is status.rollout of run, a rollout of steps steps
// promoted for the reason why at now.
func promotedStatus(run *rolloutRun, steps int, history []v1alpha1.RolloutRecord, why string, now time.Time) *v1alpha1.RolloutStatus {
	return &v1alpha1.RolloutStatus{
		Generation: run.generation, Revision: run.revision, ServingGeneration: run.generation,
		Phase: v1alpha1.RolloutPromoted, Steps: int32(steps), Summary: "promoted",
		Message:  fmt.Sprintf("generation %d promoted: %s", run.generation, why),
		Analysis: run.analysis, Shadow: run.shadow, Retried: run.retried,
		History: addHistory(history, run.generation, v1alpha1.RolloutPromoted, v1alpha1.ReasonActive, why, now),
	}
}

// rolledBackStatus is status.rollout of run, a rollout of steps steps
// rolled back or aborted (phase) for the reason why at now; the serving
// generation stays.
func rolledBackStatus(run *rolloutRun, steps int, history []v1alpha1.RolloutRecord, phase, why string, now time.Time) *v1alpha1.RolloutStatus {
	reason, summary := v1alpha1.ReasonRolledBack, "rolled back"
	if phase == v1alpha1.RolloutAborted {
		reason, summary = v1alpha1.ReasonRolloutAborted, "aborted"
	}
	msg := fmt.Sprintf("step %d of %d: %s", run.step+1, steps, why)
	return &v1alpha1.RolloutStatus{
		Generation: run.generation, Revision: run.revision, ServingGeneration: run.serving,
		Phase: phase, Steps: int32(steps), Summary: summary, Message: msg,
		Analysis: run.analysis, Shadow: run.shadow, Retried: run.retried,
		History: addHistory(history, run.generation, phase, reason, msg, now),
	}
}
