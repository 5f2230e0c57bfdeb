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
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// rolloutPoll bounds how long a rollout in progress waits between two
// reconciles (status.rollout.summary shows the time spent in the step).
const rolloutPoll = 10 * time.Second

// rolloutOutcome is what the reconcile decided of a rollout: the status
// to write, and whether it is in progress.
type rolloutOutcome struct {
	status     *v1alpha1.RolloutStatus
	inProgress bool
}

// progressRollout is the rollout phase of the reconcile. A generation
// with spec.rollout, when another generation of this object (or the same
// one with other extenders) serves its schedulerName, goes through its
// steps beside the serving one instead of live at once; each reconcile
// moves it on:
//
//  1. restoreServing: after a restart or a leader hand-over, the
//     generation that served serves again and the rollout resumes beside
//     it;
//  2. currentRun: the rollout in progress, or one started at step 1 or
//     resumed at the step status.rollout names (startRollout), after a
//     rollout of another revision ended (supersede); none when this
//     revision was rolled back or aborted before (rolledBackBefore);
//     its steps planned once (planSteps);
//  3. followAnnotations: abort, promote at once, promote the step;
//  4. endHold, endPause: a hold past pauseTimeout, a timed pause over;
//  5. analyzeStep (rollout_analysis.go), once the step's window ended or
//     a look is due: the analysis and its verdict, which act carries out;
//  6. recordProgress: status.rollout of the rollout that goes on, and the
//     next reconcile.
//
// It decides the outcome (in progress, promoted by promote, rolled back
// by rollBack), or leaves a generation that goes through no rollout to
// apply.
func (r *schedulerProfileReconciler) progressRollout(ctx context.Context, s *profileScope) error {
	if r.Rollouts == nil || s.profile.Spec.Rollout == nil {
		return nil
	}
	if err := r.restoreServing(ctx, s); err != nil {
		return err
	}
	if !r.goesThroughRollout(s) {
		return nil
	}
	sp, now := s.profile, r.now().Time
	run, history, refusal := r.currentRun(ctx, s, now)
	if refusal != nil {
		s.refuse(refusal)
		return nil
	}
	if err := r.followAnnotations(ctx, s, run, history, now); err != nil || s.decided {
		return err
	}
	spec := sp.Spec.Rollout
	if err := r.endHold(ctx, s, run, history, now); err != nil || s.decided {
		return err
	}
	paused := sp.Annotations[v1alpha1.AnnotationRolloutPaused] == "true" || run.held
	w, _ := r.Rollouts.Window(s.name, false)
	run.matched = w.Matched
	if run.current().shadow {
		run.shadow = shadowResult(w.Shadow)
	}
	switch {
	case paused:
	case run.current().pause != nil:
		if err := r.endPause(ctx, s, run, history, now); err != nil || s.decided {
			return err
		}
	case !now.Before(run.stepEnds), now.Sub(run.lastLook) >= run.lookEvery:
		ended := !now.Before(run.stepEnds)
		d, acts := analyzeStep(ctx, r.Metrics, spec, run, w, r.metricVars(s, run, now), now, ended)
		if !acts {
			break
		}
		if err := r.act(ctx, s, run, history, d, now); err != nil || s.decided {
			return err
		}
	}
	r.recordProgress(s, run, history, paused, now)
	return nil
}

// shadowResult is status.rollout.shadow of a shadow step's counts.
func shadowResult(c scheduler.ShadowCounts) *v1alpha1.ShadowResult {
	out := &v1alpha1.ShadowResult{
		Judged: c.Judged, SameNode: c.SameNode, FeasibleWhereServingPlaced: c.FeasibleWhereServingPlaced,
		ServingPlaced: c.ServingPlaced, WouldPlace: c.WouldPlace, WouldNotPlace: c.WouldNotPlace, Skipped: c.Skipped,
	}
	if g := c.Groups; g.Judged > 0 {
		out.Groups = &v1alpha1.ShadowGroupResult{Judged: g.Judged, ServingPlaced: g.ServingPlaced, PlacedWhereServingPlaced: g.PlacedWhereServingPlaced,
			WouldPlace: g.WouldPlace, WouldNotPlace: g.WouldNotPlace}
	}
	for _, d := range c.Disagreements {
		out.Disagreements = append(out.Disagreements, v1alpha1.ShadowDisagreement{Pod: d.Pod, ServingNode: d.ServingNode, NewNode: d.NewNode, Plugin: d.Plugin})
	}
	return out
}

// metricVars are what the $ variables of run's metric queries stand for
// at now.
func (r *schedulerProfileReconciler) metricVars(s *profileScope, run *rolloutRun, now time.Time) metricVars {
	return metricVars{profile: s.name, generation: run.generation, serving: run.serving, window: now.Sub(run.stepStarted)}
}

// endPause ends a pause step whose duration passed: the rollout goes on
// (onTimeout Continue, the default: the next step, or the promotion after
// the last) or is rolled back (onTimeout Rollback). A pause without a
// duration waits until its step is promoted (followAnnotations).
func (r *schedulerProfileReconciler) endPause(ctx context.Context, s *profileScope, run *rolloutRun, history []v1alpha1.RolloutRecord, now time.Time) error {
	p := run.current().pause
	if p.Duration == nil || now.Before(run.stepEnds) {
		return nil
	}
	n := run.step + 1
	if p.OnTimeout == v1alpha1.PauseRollback {
		return r.rollBack(ctx, s, run, history, v1alpha1.RolloutRolledBack,
			fmt.Sprintf("pause step %d ended after %s without a promotion (onTimeout: Rollback)", n, shortDuration(p.Duration.Duration)))
	}
	action := stepNext
	if run.lastStep() {
		action = stepPromote
	}
	return r.act(ctx, s, run, history, stepDecision{action, fmt.Sprintf("pause step %d ended after %s", n, shortDuration(p.Duration.Duration))}, now)
}

// endHold rolls back a rollout that a failed analysis has held (onFailure
// Pause) for longer than spec.rollout.pauseTimeout.
func (r *schedulerProfileReconciler) endHold(ctx context.Context, s *profileScope, run *rolloutRun, history []v1alpha1.RolloutRecord, now time.Time) error {
	t := s.profile.Spec.Rollout.PauseTimeout
	if !run.held || t == nil || now.Sub(run.heldSince) < t.Duration {
		return nil
	}
	return r.rollBack(ctx, s, run, history, v1alpha1.RolloutRolledBack,
		fmt.Sprintf("held for %s, past pauseTimeout, after %s", shortDuration(now.Sub(run.heldSince).Truncate(time.Second)), run.message))
}

// currentRun returns the rollout of the generation in s, and the history
// status.rollout keeps: the rollout in progress, or one started or resumed
// (startRollout) after a rollout of another revision ended (supersede).
// It returns the refusal of the generation instead: a revision rolled
// back or aborted before (rolledBackBefore), or one that cannot start.
func (r *schedulerProfileReconciler) currentRun(ctx context.Context, s *profileScope, now time.Time) (*rolloutRun, []v1alpha1.RolloutRecord, *Refusal) {
	sp, rev := s.profile, revision(s.fingerprint)
	st := s.base.Status.Rollout.DeepCopy()
	history := []v1alpha1.RolloutRecord(nil)
	if st != nil {
		history = st.History
	}
	run := r.runs.get(sp.Name)
	if run != nil && run.revision != rev {
		history = r.supersede(s, run, history, now)
		run = nil
	}
	retry, retried := retryRequested(sp, st)
	if run == nil {
		if rolledBackBefore(st, sp.Generation, rev) && retried {
			// Rolled out again, from its first step: what rolled it
			// back may have been transient.
			history = addHistory(history, sp.Generation, st.Phase, "Retried", fmt.Sprintf("rolled out again (annotation %s=%q) after: %s", v1alpha1.AnnotationRolloutRetry, retry, st.Message), now)
			st = &v1alpha1.RolloutStatus{History: history, Retried: retry}
			r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolloutStep, "Rollout", "generation %d rolled out again (retry %s)", sp.Generation, retry)
		} else if rolledBackBefore(st, sp.Generation, rev) {
			s.rollout = &rolloutOutcome{status: st}
			return nil, nil, rolledBackRefusal(st.Phase, st.Message)
		}
		var refusal *Refusal
		if run, refusal = r.startRollout(ctx, s, st); refusal != nil {
			return nil, nil, refusal
		}
	}
	cur, _ := r.served.get(sp.Name)
	run.serving = cur.Generation
	return run, history, nil
}

// restoreServing applies status.activeSpec again after a restart, or with
// a new leader, in the middle of this generation's rollout (or after it
// was rolled back), so that the generation that served serves again and
// the rollout resumes beside it. After a promotion (the active generation
// is the latest) there is nothing to restore: the latest goes live at
// once.
func (r *schedulerProfileReconciler) restoreServing(ctx context.Context, s *profileScope) error {
	sp, st := s.profile, s.base.Status
	if _, ok := r.served.get(sp.Name); ok {
		return nil
	}
	if st.ActiveSpec == nil || st.ActiveGeneration == 0 || st.ActiveGeneration == sp.Generation ||
		st.Rollout == nil || st.Rollout.Generation != sp.Generation {
		return nil
	}
	return r.restoreActive(ctx, s)
}

// goesThroughRollout reports whether the generation in s goes through its
// rollout rather than live at once: it has spec.rollout, and another
// generation (or the same one with other extenders) of this object serves
// its schedulerName.
func (r *schedulerProfileReconciler) goesThroughRollout(s *profileScope) bool {
	if r.Rollouts == nil || s.profile.Spec.Rollout == nil {
		return false
	}
	cur, ok := r.served.get(s.profile.Name)
	return ok && cur.SchedulerName == s.name && r.Profiles.Serving(s.name)
}

// revision is the short form of a fingerprint status.rollout names.
func revision(fp string) string { return fp[:min(len(fp), 12)] }

// supersede ends run, the rollout of another revision that the generation
// in s replaces, and returns history with it recorded.
func (r *schedulerProfileReconciler) supersede(s *profileScope, run *rolloutRun, history []v1alpha1.RolloutRecord, now time.Time) []v1alpha1.RolloutRecord {
	sp := s.profile
	history = addHistory(history, run.generation, v1alpha1.RolloutSuperseded, "",
		fmt.Sprintf("generation %d replaced it at step %d", sp.Generation, run.step+1), now)
	r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolledBack, "Rollout",
		"generation %d's rollout superseded by generation %d at step %d", run.generation, sp.Generation, run.step+1)
	r.runs.set(sp.Name, nil)
	rolloutOutcomes.WithLabelValues(sp.Name, "superseded").Inc()
	return history
}

// rolledBackBefore reports whether status.rollout st says that revision
// rev of generation was rolled back or aborted, by this process or the
// one before it: it is not tried again until the spec or its
// ExtenderConfigs change.
func rolledBackBefore(st *v1alpha1.RolloutStatus, generation int64, rev string) bool {
	return st != nil && st.Revision == rev && st.Generation == generation &&
		(st.Phase == v1alpha1.RolloutRolledBack || st.Phase == v1alpha1.RolloutAborted)
}

// startRollout serves the generation in s as the candidate, at step 1 or
// at the step status.rollout names for its revision (a restart).
func (r *schedulerProfileReconciler) startRollout(ctx context.Context, s *profileScope, st *v1alpha1.RolloutStatus) (*rolloutRun, *Refusal) {
	sp, fp := s.profile, s.fingerprint
	spec := sp.Spec.Rollout
	now := r.now().Time
	if spec.Analysis != nil && len(spec.Analysis.Metrics) > 0 && r.Metrics == nil {
		return nil, refuse(v1alpha1.ReasonPrometheusNotConfigured,
			"spec.rollout.analysis.metrics: metric %q needs a Prometheus, and the operator runs without --prometheus-address (chart value rollout.prometheus.address)", spec.Analysis.Metrics[0].Name)
	}
	run := &rolloutRun{generation: sp.Generation, revision: revision(fp), plan: planSteps(spec.Steps), lookEvery: lookInterval(spec.Analysis), custom: metricRuns{}}
	if st != nil {
		run.retried = st.Retried
	}
	resumed := st != nil && st.Revision == run.revision && st.Generation == sp.Generation &&
		(st.Phase == v1alpha1.RolloutProgressing || st.Phase == v1alpha1.RolloutPaused) && st.Step >= 1 && int(st.Step) <= len(spec.Steps)
	if resumed {
		run.step = int(st.Step) - 1
		run.extensions = st.Extensions
		// A rollout a failed analysis held stays held, for as long as it
		// had been.
		if st.HeldSince != nil {
			run.held, run.heldSince = true, st.HeldSince.Time
		}
	}
	if refusal := r.refusals.buildRefused(sp.Name, fp); refusal != nil {
		return nil, refusal
	}
	applied, err := r.Rollouts.StartRollout(ctx, scheduler.Profile{Config: *s.upstream, Extenders: s.extenders, Generation: sp.Generation}, run.current().serve)
	if err != nil {
		refusal := buildRefusal(err)
		r.refusals.noteBuildRefused(sp.Name, fp, refusal)
		return nil, refusal
	}
	cur, _ := r.served.get(sp.Name)
	run.applied = applied
	run.serving = cur.Generation
	run.stepStarted, run.stepEnds, run.lastLook = now, now.Add(run.current().duration), now
	r.runs.set(sp.Name, run)
	verb := "started"
	if resumed {
		verb = "resumed (its window started again)"
	}
	run.message = fmt.Sprintf("step %d of %d %s: %s", run.step+1, len(run.plan), verb, run.current().text)
	r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolloutStep, "Rollout",
		"generation %d: %s; generation %d serves the other pods", sp.Generation, run.message, cur.Generation)
	log.FromContext(ctx).Info("Rollout step", "generation", sp.Generation, "step", run.step+1, "kind", run.current().text, "resumed", resumed)
	return run, nil
}

// followAnnotations does what a person asks of run through the profile's
// annotations: abort it, promote it at once, or promote the step in
// progress. Aborting or promoting decides the outcome.
func (r *schedulerProfileReconciler) followAnnotations(ctx context.Context, s *profileScope, run *rolloutRun, history []v1alpha1.RolloutRecord, now time.Time) error {
	ann := s.profile.Annotations
	switch v := ann[v1alpha1.AnnotationRolloutPromote]; {
	case ann[v1alpha1.AnnotationRolloutAbort] == strconv.FormatInt(run.generation, 10):
		return r.rollBack(ctx, s, run, history, v1alpha1.RolloutAborted, "aborted (annotation "+v1alpha1.AnnotationRolloutAbort+")")
	case v == fmt.Sprintf("%d/full", run.generation):
		return r.promote(ctx, s, run, history, "promoted at once (annotation "+v1alpha1.AnnotationRolloutPromote+")")
	case v == fmt.Sprintf("%d/%d", run.generation, run.step+1):
		run.message = fmt.Sprintf("step %d promoted (annotation %s)", run.step+1, v1alpha1.AnnotationRolloutPromote)
		if run.lastStep() {
			return r.promote(ctx, s, run, history, run.message)
		}
		r.advance(ctx, s, run, now)
	}
	return nil
}

// act does what a verdict d on run's step says: the window runs once
// more, the next step starts, the generation is promoted, the rollout
// holds, or it is rolled back.
func (r *schedulerProfileReconciler) act(ctx context.Context, s *profileScope, run *rolloutRun, history []v1alpha1.RolloutRecord, d stepDecision, now time.Time) error {
	sp := s.profile
	switch d.action {
	case stepExtend:
		run.extensions++
		run.stepEnds = run.stepEnds.Add(run.current().duration)
		run.message = d.message
		r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolloutStep, "Rollout", "generation %d: %s", run.generation, run.message)
	case stepNext:
		run.message = d.message
		r.advance(ctx, s, run, now)
	case stepPromote:
		run.message = d.message
		return r.promote(ctx, s, run, history, run.message)
	case stepHold:
		run.held, run.heldSince = true, now
		run.message = d.message
		r.Recorder.Eventf(sp, nil, corev1.EventTypeWarning, v1alpha1.EventRolloutStep, "Rollout", "generation %d %s", run.generation, run.message)
	case stepRollBack:
		return r.rollBack(ctx, s, run, history, v1alpha1.RolloutRolledBack, d.message)
	}
	return nil
}

// advance moves run to its next step (the caller checked that the step in
// progress is not the last).
func (r *schedulerProfileReconciler) advance(ctx context.Context, s *profileScope, run *rolloutRun, now time.Time) {
	sp := s.profile
	run.step++
	run.extensions, run.held, run.looks, run.lastLook, run.custom = 0, false, 0, now, metricRuns{}
	step := run.current()
	run.stepStarted, run.stepEnds = now, now.Add(step.duration)
	if step.pause == nil {
		r.Rollouts.SetRolloutStep(ctx, s.name, step.serve)
	}
	run.message += fmt.Sprintf("; step %d of %d: %s", run.step+1, len(run.plan), step.text)
	r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolloutStep, "Rollout", "generation %d: %s", run.generation, run.message)
}

// recordProgress decides the outcome of a rollout that goes on: its
// status.rollout, and the next reconcile, at the end of the step's window
// and within rolloutPoll.
func (r *schedulerProfileReconciler) recordProgress(s *profileScope, run *rolloutRun, history []v1alpha1.RolloutRecord, paused bool, now time.Time) {
	sp := s.profile
	r.runs.set(sp.Name, run)
	rolloutStepGauge.WithLabelValues(sp.Name).Set(float64(run.step + 1))
	s.rollout = &rolloutOutcome{status: progressingStatus(run, sp.Spec.Rollout, history, paused, now), inProgress: true}
	s.decided = true
	s.requeueAfter = rolloutPoll
	if p := run.current().pause; !paused && p == nil {
		next := min(run.stepEnds.Sub(now), run.lastLook.Add(run.lookEvery).Sub(now))
		s.requeueAfter = min(rolloutPoll, max(next, 200*time.Millisecond))
	} else if !paused && p.Duration != nil {
		s.requeueAfter = min(rolloutPoll, max(run.stepEnds.Sub(now), 200*time.Millisecond))
	}
}

// promote makes the rollout's generation serve every pod.
func (r *schedulerProfileReconciler) promote(ctx context.Context, s *profileScope, run *rolloutRun, history []v1alpha1.RolloutRecord, why string) error {
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
		Fingerprint:   s.fingerprint,
		Status:        profileOutcome{Plugins: run.applied.Plugins, Extenders: s.resolved, ActiveSpec: sp.Spec.DeepCopy()},
	})
	st := promotedStatus(run, len(sp.Spec.Rollout.Steps), history, why, r.now().Time)
	s.rollout = &rolloutOutcome{status: st}
	s.decided = true
	rolloutOutcomes.WithLabelValues(sp.Name, "promoted").Inc()
	rolloutStepGauge.WithLabelValues(sp.Name).Set(0)
	r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventPromoted, "Rollout", "%s; it serves every pod with schedulerName %q", st.Message, s.name)
	log.FromContext(ctx).Info("Rollout promoted", "generation", run.generation)
	r.recordRevision(ctx, sp)
	return nil
}

// rollBack retires the rollout's generation, which was rolled back or
// aborted (phase) at why, and refuses it: the serving generation stays.
func (r *schedulerProfileReconciler) rollBack(ctx context.Context, s *profileScope, run *rolloutRun, history []v1alpha1.RolloutRecord, phase, why string) error {
	sp := s.profile
	r.Rollouts.Rollback(ctx, s.name)
	r.runs.set(sp.Name, nil)
	st := rolledBackStatus(run, len(sp.Spec.Rollout.Steps), history, phase, why, r.now().Time)
	s.rollout = &rolloutOutcome{status: st}
	s.refuse(rolledBackRefusal(phase, st.Message))
	outcome := "rolled_back"
	if phase == v1alpha1.RolloutAborted {
		outcome = "aborted"
	}
	rolloutOutcomes.WithLabelValues(sp.Name, outcome).Inc()
	rolloutStepGauge.WithLabelValues(sp.Name).Set(0)
	r.Recorder.Eventf(sp, nil, corev1.EventTypeWarning, v1alpha1.EventRolledBack, "Rollout",
		"generation %d %s at %s; generation %d keeps serving", run.generation, st.Summary, st.Message, run.serving)
	log.FromContext(ctx).Info("Rollout ended", "generation", run.generation, "phase", phase, "message", st.Message)
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

func addHistory(h []v1alpha1.RolloutRecord, generation int64, outcome, reason, msg string, now time.Time) []v1alpha1.RolloutRecord {
	out := append([]v1alpha1.RolloutRecord{{Generation: generation, Outcome: outcome, Reason: reason, Message: msg, Time: metav1.Time{Time: now}}}, h...)
	if len(out) > v1alpha1.MaxRolloutHistory {
		out = out[:v1alpha1.MaxRolloutHistory]
	}
	return out
}
