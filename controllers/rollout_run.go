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
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// rolloutRun is a rollout in progress in this process.
type rolloutRun struct {
	generation int64
	revision   string
	serving    int64
	// matched counts the attempts the step's canary selector matched.
	matched int64
	// retried is the last rollout-retry annotation honoured.
	retried string
	// plan is every step of the rollout, planned; step is the index of
	// the step in progress.
	plan                  []plannedStep
	step                  int
	stepStarted, stepEnds time.Time
	extensions            int32
	// held: a failed analysis with onFailure Pause holds the rollout,
	// since heldSince.
	held      bool
	heldSince time.Time
	// looks counts the looks at the step's window while it ran, the last
	// at lastLook.
	looks    int32
	lastLook time.Time
	// lookEvery is how often the step is looked at (lookInterval).
	lookEvery time.Duration
	applied   scheduler.Applied
	// custom holds the measurements of spec.rollout.analysis.metrics in
	// the step's window.
	custom   metricRuns
	analysis []v1alpha1.RolloutMetric
	shadow   *v1alpha1.ShadowResult
	message  string
}

// lastStep reports whether the step in progress is the rollout's last.
func (run *rolloutRun) lastStep() bool {
	return run.step+1 >= len(run.plan)
}

// current is the step in progress.
func (run *rolloutRun) current() plannedStep {
	return run.plan[run.step]
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

func isShadow(s v1alpha1.RolloutStep) bool { return s.Shadow != nil }

// servedStep is the step whose traffic the scheduler serves at steps[i]:
// the step itself, or for a pause the last step before it that is not one
// (the first step never is).
func servedStep(steps []v1alpha1.RolloutStep, i int) v1alpha1.RolloutStep {
	for ; i > 0 && steps[i].Pause != nil; i-- {
	}
	return steps[i]
}

// progressingStatus is status.rollout of run, a rollout in progress
// (Paused when paused), at now.
func progressingStatus(run *rolloutRun, spec *v1alpha1.Rollout, history []v1alpha1.RolloutRecord, paused bool, now time.Time) *v1alpha1.RolloutStatus {
	step := spec.Steps[run.step]
	st := &v1alpha1.RolloutStatus{
		Generation: run.generation, Revision: run.revision, ServingGeneration: run.serving,
		Phase: v1alpha1.RolloutProgressing, Step: int32(run.step + 1), Steps: int32(len(spec.Steps)),
		StepKind:    v1alpha1.StepCanary,
		StepStarted: &metav1.Time{Time: run.stepStarted}, StepEnds: &metav1.Time{Time: run.stepEnds},
		Extensions: run.extensions, Message: run.message, Analysis: run.analysis, Shadow: run.shadow, History: history,
		Retried: run.retried,
	}
	served := servedStep(spec.Steps, run.step)
	switch {
	case step.Pause != nil:
		st.StepKind = v1alpha1.StepPause
	case step.Shadow != nil:
		st.StepKind = v1alpha1.StepShadow
	}
	if served.Canary != nil {
		st.Percent = served.Canary.Percent
		st.Covers = "every pod of the profile"
		if sel := served.Canary.Selector; sel != nil {
			st.Covers = "pods of " + selectorText(sel)
			matched := run.matched
			st.Matched = &matched
		}
	}
	st.Looks = run.looks
	if run.held {
		st.HeldSince = &metav1.Time{Time: run.heldSince}
	}
	elapsed := now.Sub(run.stepStarted).Truncate(time.Second)
	total := run.stepEnds.Sub(run.stepStarted)
	text := run.current().text
	st.Summary = fmt.Sprintf("%s %s/%s", text, shortDuration(elapsed), shortDuration(total))
	if step.Pause != nil && step.Pause.Duration == nil {
		st.StepEnds = nil
		st.Summary = fmt.Sprintf("%s %s", text, shortDuration(elapsed))
	}
	if paused {
		st.Phase = v1alpha1.RolloutPaused
		st.Summary = "paused: " + text
	}
	return st
}

// plannedStep is what one step of a rollout is, worked out once when the
// rollout starts or resumes (planSteps): the generation's spec.rollout
// does not change while its rollout runs (an edit is a new generation,
// whose rollout supersedes this one).
type plannedStep struct {
	// duration of the step's window (0: a pause until promoted).
	duration time.Duration
	// text names the step in events and status: "canary 10%".
	text string
	// pause is the step's pause, nil for a canary or shadow step.
	pause *v1alpha1.PauseStep
	// shadow is set when the step served is a shadow (a pause serves the
	// step before it: servedStep).
	shadow bool
	// serve is what the scheduler serves at the step: a shadow, or a
	// canary's percent and selector.
	serve scheduler.RolloutStep
}

// planSteps plans every step of a rollout.
func planSteps(steps []v1alpha1.RolloutStep) []plannedStep {
	out := make([]plannedStep, len(steps))
	for i, st := range steps {
		served := servedStep(steps, i)
		out[i] = plannedStep{duration: stepDuration(st), text: stepText(st), pause: st.Pause, shadow: isShadow(served), serve: schedulerStep(served)}
	}
	return out
}

// schedulerStep is what the scheduler serves for the served step s.
func schedulerStep(s v1alpha1.RolloutStep) scheduler.RolloutStep {
	if s.Canary == nil {
		return scheduler.RolloutStep{}
	}
	out := scheduler.RolloutStep{Percent: s.Canary.Percent}
	if sel := s.Canary.Selector; sel != nil {
		// Admission refused selectors that do not parse.
		if sel.NamespaceSelector != nil {
			out.NamespaceSelector, _ = metav1.LabelSelectorAsSelector(sel.NamespaceSelector.AsMeta())
		}
		if sel.PodSelector != nil {
			out.PodSelector, _ = metav1.LabelSelectorAsSelector(sel.PodSelector.AsMeta())
		}
	}
	return out
}

func stepDuration(s v1alpha1.RolloutStep) time.Duration {
	switch {
	case s.Canary != nil:
		return s.Canary.Duration.Duration
	case s.Shadow != nil:
		return s.Shadow.Duration.Duration
	case s.Pause != nil && s.Pause.Duration != nil:
		return s.Pause.Duration.Duration
	}
	return 0
}

func stepText(s v1alpha1.RolloutStep) string {
	switch {
	case s.Canary != nil && s.Canary.Selector != nil:
		return fmt.Sprintf("canary %d%% of %s", s.Canary.Percent, selectorText(s.Canary.Selector))
	case s.Canary != nil:
		return fmt.Sprintf("canary %d%%", s.Canary.Percent)
	case s.Pause != nil && s.Pause.Duration != nil:
		return "pause " + shortDuration(s.Pause.Duration.Duration)
	case s.Pause != nil:
		return "pause until promoted"
	}
	return "shadow"
}

// selectorText writes a canary's selector as kubectl writes selectors:
// "namespaces team=a, pods app=web".
func selectorText(sel *v1alpha1.CanarySelector) string {
	var parts []string
	if sel.NamespaceSelector != nil {
		parts = append(parts, "namespaces "+metav1.FormatLabelSelector(sel.NamespaceSelector.AsMeta()))
	}
	if sel.PodSelector != nil {
		parts = append(parts, "pods "+metav1.FormatLabelSelector(sel.PodSelector.AsMeta()))
	}
	return strings.Join(parts, ", ")
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
