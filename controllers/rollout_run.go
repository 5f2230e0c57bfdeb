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
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"

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
	// step is the index of the step in progress.
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
	applied  scheduler.Applied
	// custom holds the measurements of spec.rollout.analysis.metrics in
	// the step's window.
	custom   metricRuns
	analysis []v1alpha1.RolloutMetric
	shadow   *v1alpha1.ShadowResult
	message  string
}

// lastStep reports whether the step in progress is the rollout's last.
func (run *rolloutRun) lastStep(spec *v1alpha1.Rollout) bool {
	return run.step+1 >= len(spec.Steps)
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

// schedulerStep is what the scheduler serves at steps[i] (servedStep): a
// shadow, or a canary's percent and selector.
func (r *schedulerProfileReconciler) schedulerStep(steps []v1alpha1.RolloutStep, i int) scheduler.RolloutStep {
	s := servedStep(steps, i)
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
