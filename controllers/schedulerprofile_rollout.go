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
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// A rollout (spec.rollout) takes a new generation of a profile, or the
// same generation with changed ExtenderConfigs, through its steps beside
// the serving generation (scheduler.Rollouts), judging each step's window
// at its end (analyze). Its state lives in status.rollout: an operator
// restarted or a new leader restores the serving generation
// (status.activeSpec) and resumes the rollout at the step status names,
// with the step's window started again. A rollout that ended stays
// decided for its revision: a rolled-back revision is not tried again
// until the spec or its ExtenderConfigs change.

// rolloutPoll bounds how long a rollout in progress waits between two
// reconciles (status.rollout.summary shows the time spent in the step).
const rolloutPoll = 10 * time.Second

// rolloutRun is a rollout in progress in this process.
type rolloutRun struct {
	generation int64
	revision   string
	serving    int64
	// step is the index of the step in progress.
	step                  int
	stepStarted, stepEnds time.Time
	extensions            int32
	// held: a failed analysis with onFailure Pause holds the rollout.
	held     bool
	applied  scheduler.Applied
	analysis []v1alpha1.RolloutMetric
	shadow   *v1alpha1.ShadowResult
	message  string
}

// rolloutRuns are the rollouts in progress, by object name.
type rolloutRuns struct {
	mu   sync.Mutex
	runs map[string]*rolloutRun
}

func (rr *rolloutRuns) get(name string) *rolloutRun {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.runs[name]
}

func (rr *rolloutRuns) set(name string, run *rolloutRun) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.runs == nil {
		rr.runs = map[string]*rolloutRun{}
	}
	if run == nil {
		delete(rr.runs, name)
		return
	}
	rr.runs[name] = run
}

// rolloutOutcome is what the reconcile decided of a rollout: the status
// to write, and whether it is in progress.
type rolloutOutcome struct {
	status     *v1alpha1.RolloutStatus
	inProgress bool
}

// rollsOut reports whether the generation in s goes through its rollout
// rather than live at once: it has spec.rollout, and another generation
// (or the same one with other extenders) of this object serves its
// schedulerName.
func (r *schedulerProfileReconciler) rollsOut(s *profileScope) bool {
	if r.Rollouts == nil || s.profile.Spec.Rollout == nil {
		return false
	}
	cur, ok := r.served.get(s.profile.Name)
	return ok && cur.SchedulerName == s.name && r.Profiles.Serving(s.name)
}

// revision is the short form of a fingerprint status.rollout names.
func revision(fp string) string { return fp[:min(len(fp), 12)] }

// rollOut moves the rollout of the generation in s on: it starts it (or
// resumes it from status), applies the annotations, and judges the step
// when its window ended.
func (r *schedulerProfileReconciler) rollOut(ctx context.Context, s *profileScope, fp string) error {
	sp := s.profile
	spec := sp.Spec.Rollout
	rev := revision(fp)
	now := r.now().Time
	st := s.base.Status.Rollout.DeepCopy()
	history := []v1alpha1.RolloutRecord(nil)
	if st != nil {
		history = st.History
	}
	run := r.runs.get(sp.Name)
	if run != nil && run.revision != rev {
		history = addHistory(history, run.generation, v1alpha1.RolloutSuperseded, "",
			fmt.Sprintf("generation %d replaced it at step %d", sp.Generation, run.step+1), now)
		r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolledBack, "Rollout",
			"generation %d's rollout superseded by generation %d at step %d", run.generation, sp.Generation, run.step+1)
		run = nil
		r.runs.set(sp.Name, nil)
		rolloutOutcomes.WithLabelValues(sp.Name, "superseded").Inc()
	}
	if run == nil {
		if st != nil && st.Revision == rev && st.Generation == sp.Generation && (st.Phase == v1alpha1.RolloutRolledBack || st.Phase == v1alpha1.RolloutAborted) {
			// Decided before (by this process or the one before it).
			s.rollout = &rolloutOutcome{status: st}
			s.refuse(rolledBackRefusal(st.Phase, st.Message))
			return nil
		}
		var refusal *Refusal
		run, refusal = r.startRollout(ctx, s, fp, st)
		if refusal != nil {
			s.refuse(refusal)
			return nil
		}
	}
	cur, _ := r.served.get(sp.Name)
	run.serving = cur.Generation
	ann := sp.Annotations
	switch v := ann[v1alpha1.AnnotationRolloutPromote]; {
	case ann[v1alpha1.AnnotationRolloutAbort] == strconv.FormatInt(run.generation, 10):
		return r.endRollout(ctx, s, run, history, v1alpha1.RolloutAborted, "aborted (annotation "+v1alpha1.AnnotationRolloutAbort+")")
	case v == fmt.Sprintf("%d/full", run.generation):
		return r.promote(ctx, s, fp, run, history, "promoted at once (annotation "+v1alpha1.AnnotationRolloutPromote+")")
	case v == fmt.Sprintf("%d/%d", run.generation, run.step+1):
		run.message = fmt.Sprintf("step %d promoted (annotation %s)", run.step+1, v1alpha1.AnnotationRolloutPromote)
		if done := r.advance(ctx, s, run, now); done {
			return r.promote(ctx, s, fp, run, history, run.message)
		}
	}
	paused := ann[v1alpha1.AnnotationRolloutPaused] == "true" || run.held
	w, _ := r.Rollouts.Window(s.name, false)
	if isShadow(spec.Steps[run.step]) {
		run.shadow = shadowResult(w.Shadow)
	}
	if !paused && !now.Before(run.stepEnds) {
		a := analyze(spec.Analysis, isShadow(spec.Steps[run.step]), w)
		run.analysis = a.metrics
		b := boundsOf(spec.Analysis)
		verdict := a.verdict
		if verdict == verdictInsufficient {
			if int64(run.extensions) < b.maxExtensions {
				run.extensions++
				run.stepEnds = run.stepEnds.Add(stepDuration(spec.Steps[run.step]))
				run.message = fmt.Sprintf("step %d extended (%d of %d): fewer than %d samples", run.step+1, run.extensions, b.maxExtensions, b.minSamples)
				r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolloutStep, "Rollout", "generation %d: %s", run.generation, run.message)
			} else if b.passInsufficient {
				verdict = verdictPass
				run.message = fmt.Sprintf("step %d passed with fewer than %d samples (onInsufficientSamples: Pass)", run.step+1, b.minSamples)
			} else {
				verdict = verdictFail
				a.failed = fmt.Sprintf("fewer than %d samples after %d extensions of step %d (onInsufficientSamples: Fail)", b.minSamples, run.extensions, run.step+1)
			}
		}
		switch verdict {
		case verdictPass:
			if run.message == "" || !strings.HasPrefix(run.message, fmt.Sprintf("step %d passed", run.step+1)) {
				run.message = fmt.Sprintf("step %d passed its analysis", run.step+1)
			}
			if done := r.advance(ctx, s, run, now); done {
				return r.promote(ctx, s, fp, run, history, run.message)
			}
		case verdictFail:
			if spec.OnFailure == v1alpha1.RolloutPause {
				run.held = true
				run.message = fmt.Sprintf("paused at step %d: %s", run.step+1, a.failed)
				r.Recorder.Eventf(sp, nil, corev1.EventTypeWarning, v1alpha1.EventRolloutStep, "Rollout", "generation %d %s", run.generation, run.message)
			} else {
				return r.endRollout(ctx, s, run, history, v1alpha1.RolloutRolledBack, a.failed)
			}
		}
	}
	r.runs.set(sp.Name, run)
	rolloutStepGauge.WithLabelValues(sp.Name).Set(float64(run.step + 1))
	s.rollout = &rolloutOutcome{status: run.status(spec, history, paused, now), inProgress: true}
	s.decided = true
	s.requeueAfter = rolloutPoll
	if !paused {
		s.requeueAfter = min(rolloutPoll, max(run.stepEnds.Sub(now), time.Second))
	}
	return nil
}

// startRollout serves the generation in s as the candidate, at step 1 or
// at the step status.rollout names for its revision (a restart).
func (r *schedulerProfileReconciler) startRollout(ctx context.Context, s *profileScope, fp string, st *v1alpha1.RolloutStatus) (*rolloutRun, *Refusal) {
	sp := s.profile
	spec := sp.Spec.Rollout
	now := r.now().Time
	run := &rolloutRun{generation: sp.Generation, revision: revision(fp)}
	resumed := st != nil && st.Revision == run.revision && st.Generation == sp.Generation &&
		(st.Phase == v1alpha1.RolloutProgressing || st.Phase == v1alpha1.RolloutPaused) && st.Step >= 1 && int(st.Step) <= len(spec.Steps)
	if resumed {
		run.step = int(st.Step) - 1
		run.extensions = st.Extensions
	}
	if refusal := r.refusals.buildRefused(sp.Name, fp); refusal != nil {
		return nil, refusal
	}
	applied, err := r.Rollouts.StartRollout(ctx, scheduler.Profile{Config: *s.upstream, Extenders: s.extenders, Generation: sp.Generation}, stepOf(spec.Steps[run.step]))
	if err != nil {
		refusal := buildRefusal(err)
		r.refusals.noteBuildRefused(sp.Name, fp, refusal)
		return nil, refusal
	}
	cur, _ := r.served.get(sp.Name)
	if was, is := queueSort(cur.Status.Plugins), queueSort(applied.Plugins); was != is {
		r.Rollouts.Rollback(ctx, s.name)
		return nil, refuse(v1alpha1.ReasonQueueSortChanged,
			"spec.plugins.queueSort: a rollout cannot split a change of the QueueSort plugin (%s to %s): the profile's pods wait in one queue; remove spec.rollout to apply the change at once",
			was, is)
	}
	run.applied = applied
	run.serving = cur.Generation
	run.stepStarted, run.stepEnds = now, now.Add(stepDuration(spec.Steps[run.step]))
	r.runs.set(sp.Name, run)
	verb := "started"
	if resumed {
		verb = "resumed (its window started again)"
	}
	run.message = fmt.Sprintf("step %d of %d %s: %s", run.step+1, len(spec.Steps), verb, stepText(spec.Steps[run.step]))
	r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolloutStep, "Rollout",
		"generation %d: %s; generation %d serves the other pods", sp.Generation, run.message, cur.Generation)
	log.FromContext(ctx).Info("Rollout step", "generation", sp.Generation, "step", run.step+1, "kind", stepText(spec.Steps[run.step]), "resumed", resumed)
	return run, nil
}

// advance moves run to its next step; it reports true when the step was
// the last (the caller promotes).
func (r *schedulerProfileReconciler) advance(ctx context.Context, s *profileScope, run *rolloutRun, now time.Time) bool {
	sp := s.profile
	steps := sp.Spec.Rollout.Steps
	if run.step+1 >= len(steps) {
		return true
	}
	run.step++
	run.extensions, run.held = 0, false
	run.stepStarted, run.stepEnds = now, now.Add(stepDuration(steps[run.step]))
	r.Rollouts.SetRolloutStep(ctx, s.name, stepOf(steps[run.step]))
	run.message += fmt.Sprintf("; step %d of %d: %s", run.step+1, len(steps), stepText(steps[run.step]))
	r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolloutStep, "Rollout", "generation %d: %s", run.generation, run.message)
	return false
}

// promote makes the rollout's generation serve every pod.
func (r *schedulerProfileReconciler) promote(ctx context.Context, s *profileScope, fp string, run *rolloutRun, history []v1alpha1.RolloutRecord, why string) error {
	sp := s.profile
	if !r.Rollouts.Promote(ctx, s.name) {
		// The candidate is gone (the scheduler stopped): start over.
		r.runs.set(sp.Name, nil)
		return fmt.Errorf("promoting generation %d: no candidate serves %q", run.generation, s.name)
	}
	r.runs.set(sp.Name, nil)
	r.served.set(sp.Name, servedProfile{
		SchedulerName: s.name,
		Generation:    sp.Generation,
		Fingerprint:   fp,
		Status:        profileOutcome{Plugins: run.applied.Plugins, Extenders: s.resolved, ActiveSpec: sp.Spec.DeepCopy()},
	})
	now := r.now()
	msg := fmt.Sprintf("generation %d promoted: %s", run.generation, why)
	st := &v1alpha1.RolloutStatus{
		Generation: run.generation, Revision: run.revision, ServingGeneration: run.generation,
		Phase: v1alpha1.RolloutPromoted, Steps: int32(len(sp.Spec.Rollout.Steps)), Summary: "promoted", Message: msg,
		Analysis: run.analysis, Shadow: run.shadow,
		History: addHistory(history, run.generation, v1alpha1.RolloutPromoted, v1alpha1.ReasonActive, why, now.Time),
	}
	s.rollout = &rolloutOutcome{status: st}
	s.decided = true
	rolloutOutcomes.WithLabelValues(sp.Name, "promoted").Inc()
	rolloutStepGauge.WithLabelValues(sp.Name).Set(0)
	r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventPromoted, "Rollout", "%s; it serves every pod with schedulerName %q", msg, s.name)
	log.FromContext(ctx).Info("Rollout promoted", "generation", run.generation)
	return nil
}

// endRollout retires the rollout's generation: the serving one stays.
func (r *schedulerProfileReconciler) endRollout(ctx context.Context, s *profileScope, run *rolloutRun, history []v1alpha1.RolloutRecord, phase, why string) error {
	sp := s.profile
	r.Rollouts.Rollback(ctx, s.name)
	r.runs.set(sp.Name, nil)
	now := r.now()
	reason := v1alpha1.ReasonRolledBack
	outcome := "rolled_back"
	summary := "rolled back"
	if phase == v1alpha1.RolloutAborted {
		reason, outcome, summary = v1alpha1.ReasonRolloutAborted, "aborted", "aborted"
	}
	msg := fmt.Sprintf("step %d of %d: %s", run.step+1, len(sp.Spec.Rollout.Steps), why)
	st := &v1alpha1.RolloutStatus{
		Generation: run.generation, Revision: run.revision, ServingGeneration: run.serving,
		Phase: phase, Steps: int32(len(sp.Spec.Rollout.Steps)), Summary: summary, Message: msg,
		Analysis: run.analysis, Shadow: run.shadow,
		History: addHistory(history, run.generation, phase, reason, msg, now.Time),
	}
	s.rollout = &rolloutOutcome{status: st}
	s.refuse(rolledBackRefusal(phase, msg))
	rolloutOutcomes.WithLabelValues(sp.Name, outcome).Inc()
	rolloutStepGauge.WithLabelValues(sp.Name).Set(0)
	r.Recorder.Eventf(sp, nil, corev1.EventTypeWarning, v1alpha1.EventRolledBack, "Rollout",
		"generation %d %s at %s; generation %d keeps serving", run.generation, summary, msg, run.serving)
	log.FromContext(ctx).Info("Rollout ended", "generation", run.generation, "phase", phase, "message", msg)
	return nil
}

// dropRollout forgets the rollout in progress of an object whose
// generation goes live at once, or that stops serving (the scheduler
// retires the candidate itself).
func (r *schedulerProfileReconciler) dropRollout(name string) {
	if r.runs.get(name) != nil {
		r.runs.set(name, nil)
		rolloutOutcomes.WithLabelValues(name, "superseded").Inc()
	}
	rolloutStepGauge.WithLabelValues(name).Set(0)
}

func rolledBackRefusal(phase, msg string) *Refusal {
	if phase == v1alpha1.RolloutAborted {
		return refuse(v1alpha1.ReasonRolloutAborted, "rollout aborted at %s", msg)
	}
	return refuse(v1alpha1.ReasonRolledBack, "rolled back at %s", msg)
}

// status is the status.rollout of a rollout in progress.
func (run *rolloutRun) status(spec *v1alpha1.Rollout, history []v1alpha1.RolloutRecord, paused bool, now time.Time) *v1alpha1.RolloutStatus {
	step := spec.Steps[run.step]
	st := &v1alpha1.RolloutStatus{
		Generation: run.generation, Revision: run.revision, ServingGeneration: run.serving,
		Phase: v1alpha1.RolloutProgressing, Step: int32(run.step + 1), Steps: int32(len(spec.Steps)),
		StepKind:    v1alpha1.StepCanary,
		StepStarted: &metav1.Time{Time: run.stepStarted}, StepEnds: &metav1.Time{Time: run.stepEnds},
		Extensions: run.extensions, Message: run.message, Analysis: run.analysis, Shadow: run.shadow, History: history,
	}
	if step.Canary != nil {
		st.Percent = step.Canary.Percent
	} else {
		st.StepKind = v1alpha1.StepShadow
	}
	elapsed := now.Sub(run.stepStarted).Truncate(time.Second)
	total := run.stepEnds.Sub(run.stepStarted)
	st.Summary = fmt.Sprintf("%s %s/%s", stepText(step), shortDuration(elapsed), shortDuration(total))
	if paused {
		st.Phase = v1alpha1.RolloutPaused
		st.Summary = "paused: " + stepText(step)
	}
	return st
}

func addHistory(h []v1alpha1.RolloutRecord, generation int64, outcome, reason, msg string, now time.Time) []v1alpha1.RolloutRecord {
	out := append([]v1alpha1.RolloutRecord{{Generation: generation, Outcome: outcome, Reason: reason, Message: msg, Time: metav1.Time{Time: now}}}, h...)
	if len(out) > v1alpha1.MaxRolloutHistory {
		out = out[:v1alpha1.MaxRolloutHistory]
	}
	return out
}

func isShadow(s v1alpha1.RolloutStep) bool { return s.Canary == nil }

func stepOf(s v1alpha1.RolloutStep) scheduler.RolloutStep {
	if s.Canary != nil {
		return scheduler.RolloutStep{Percent: s.Canary.Percent}
	}
	return scheduler.RolloutStep{}
}

func stepDuration(s v1alpha1.RolloutStep) time.Duration {
	if s.Canary != nil {
		return s.Canary.Duration.Duration
	}
	if s.Shadow != nil {
		return s.Shadow.Duration.Duration
	}
	return 0
}

func stepText(s v1alpha1.RolloutStep) string {
	if s.Canary != nil {
		return fmt.Sprintf("canary %d%%", s.Canary.Percent)
	}
	return "shadow"
}

// shortDuration writes d as kubectl writes ages: 45s, 3m, 3m20s, 2h.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		if s := int(d.Seconds()) % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", int(d.Minutes()), s)
		}
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	if m := int(d.Minutes()) % 60; m != 0 {
		return fmt.Sprintf("%dh%dm", int(d.Hours()), m)
	}
	return fmt.Sprintf("%dh", int(d.Hours()))
}

func shadowResult(c scheduler.ShadowCounts) *v1alpha1.ShadowResult {
	out := &v1alpha1.ShadowResult{
		Judged: c.Judged, SameNode: c.SameNode, FeasibleWhereServingPlaced: c.FeasibleWhereServingPlaced,
		ServingPlaced: c.ServingPlaced, WouldPlace: c.WouldPlace, WouldNotPlace: c.WouldNotPlace, Skipped: c.Skipped,
	}
	for _, d := range c.Disagreements {
		out.Disagreements = append(out.Disagreements, v1alpha1.ShadowDisagreement{Pod: d.Pod, ServingNode: d.ServingNode, NewNode: d.NewNode, Plugin: d.Plugin})
	}
	return out
}

// queueSort names the QueueSort plugins a framework runs.
func queueSort(p *config.Plugins) string {
	if p == nil {
		return ""
	}
	var names []string
	for _, pl := range p.QueueSort.Enabled {
		names = append(names, pl.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
