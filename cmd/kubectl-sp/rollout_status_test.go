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

package main

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// profileAt is a profile of generation gen, observed up to observed,
// generation active serving, with the conditions and rollout given.
func profileAt(gen, observed, active int64, ro *v1alpha1.RolloutStatus, conditions ...metav1.Condition) *v1alpha1.SchedulerProfile {
	return &v1alpha1.SchedulerProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "careful", Generation: gen},
		Status: v1alpha1.SchedulerProfileStatus{
			ObservedGeneration: observed, ActiveGeneration: active, Conditions: conditions, Rollout: ro,
		},
	}
}

func TestRolloutProgress(t *testing.T) {
	now := time.Date(2026, 8, 10, 10, 3, 0, 0, time.UTC)
	ends := metav1.NewTime(now.Add(7 * time.Minute))
	step := func(phase string, gen int64) *v1alpha1.RolloutStatus {
		return &v1alpha1.RolloutStatus{Generation: gen, ServingGeneration: gen - 1, Phase: phase,
			Step: 2, Steps: 3, StepKind: v1alpha1.StepCanary, Percent: 10, StepEnds: &ends}
	}
	ended := func(phase, message string) *v1alpha1.RolloutStatus {
		return &v1alpha1.RolloutStatus{Generation: 4, ServingGeneration: 3, Phase: phase, Steps: 3, Message: message}
	}
	ready := rolloutCond(v1alpha1.ConditionReady, metav1.ConditionTrue, 4, v1alpha1.ReasonActive, "")
	const waiting = `Waiting for schedulerprofiles.scheduling.profilescheduler.io "careful" rollout to finish: `
	for _, tc := range []struct {
		name        string
		sp          *v1alpha1.SchedulerProfile
		annotations map[string]string
		line        string
		done        bool
		err         string
	}{
		{
			name: "canary step in progress",
			sp:   profileAt(4, 4, 3, step(v1alpha1.RolloutProgressing, 4)),
			line: waiting + "generation 4, step 2 of 3 (canary 10%), window ends in 7m...",
		},
		{
			name: "shadow step extended, its window ended",
			sp: profileAt(4, 4, 3, &v1alpha1.RolloutStatus{Generation: 4, Phase: v1alpha1.RolloutProgressing, Step: 1, Steps: 3,
				StepKind: v1alpha1.StepShadow, Extensions: 2, StepEnds: &metav1.Time{Time: now.Add(-time.Second)}}),
			line: waiting + "generation 4, step 1 of 3 (shadow), window ended, being judged, extended 2 times for want of samples...",
		},
		{
			name:        "paused by the annotation",
			sp:          profileAt(4, 4, 3, step(v1alpha1.RolloutPaused, 4)),
			annotations: map[string]string{v1alpha1.AnnotationRolloutPaused: "true"},
			line:        waiting + "generation 4 paused at step 2 of 3 (canary 10%), until kubectl sp rollout resume careful...",
		},
		{
			name: "paused by a failed analysis (onFailure: Pause)",
			sp: profileAt(4, 4, 3, &v1alpha1.RolloutStatus{Generation: 4, Phase: v1alpha1.RolloutPaused, Step: 1, Steps: 3,
				StepKind: v1alpha1.StepShadow, Message: "ShadowAgreement 0.70 below 0.9"}),
			line: waiting + "generation 4 paused at step 1 of 3 (shadow): ShadowAgreement 0.70 below 0.9; promote or abort it (kubectl sp rollout promote|abort careful)...",
		},
		{
			name: "promoted",
			sp:   profileAt(4, 4, 4, ended(v1alpha1.RolloutPromoted, ""), ready),
			line: `schedulerprofiles.scheduling.profilescheduler.io "careful" successfully rolled out: generation 4 promoted`,
			done: true,
		},
		{
			name: "rolled back",
			sp:   profileAt(4, 4, 3, ended(v1alpha1.RolloutRolledBack, "step 2/3 canary 10%: Errors 3 exceeds 0 (serving 0)")),
			done: true,
			err:  `schedulerprofiles.scheduling.profilescheduler.io "careful" rollout of generation 4 rolled back (generation 3 serves): step 2/3 canary 10%: Errors 3 exceeds 0 (serving 0)`,
		},
		{
			name: "aborted, the message from the Stalled condition",
			sp: profileAt(4, 4, 3, ended(v1alpha1.RolloutAborted, ""),
				rolloutCond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 4, v1alpha1.ReasonRolloutAborted, "rollout of generation 4 aborted at step 1/3")),
			done: true,
			err:  `schedulerprofiles.scheduling.profilescheduler.io "careful" rollout of generation 4 aborted (generation 3 serves): rollout of generation 4 aborted at step 1/3`,
		},
		{
			name: "superseded: the next rollout is waited for",
			sp:   profileAt(4, 4, 3, ended(v1alpha1.RolloutSuperseded, "")),
			line: waiting + "the rollout of generation 4 is Superseded...",
		},
		{
			name: "a new generation not yet observed, the last rollout promoted",
			sp:   profileAt(5, 4, 4, ended(v1alpha1.RolloutPromoted, ""), ready),
			line: `Waiting for generation 5 of schedulerprofiles.scheduling.profilescheduler.io "careful" to be observed...`,
		},
		{
			name: "a new generation not yet observed, the rollout of the previous one in progress",
			sp:   profileAt(5, 4, 3, step(v1alpha1.RolloutProgressing, 4)),
			line: `Waiting for generation 5 of schedulerprofiles.scheduling.profilescheduler.io "careful" to be observed...`,
		},
		{
			name: "live without a rollout",
			sp:   profileAt(5, 5, 5, ended(v1alpha1.RolloutPromoted, ""), rolloutCond(v1alpha1.ConditionReady, metav1.ConditionTrue, 5, v1alpha1.ReasonActive, "")),
			line: `schedulerprofiles.scheduling.profilescheduler.io "careful" has no rollout in progress: generation 5 serves`,
			done: true,
		},
		{
			name: "refused without a rollout (a QueueSort change)",
			sp: profileAt(5, 5, 4, nil,
				rolloutCond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 5, v1alpha1.ReasonQueueSortChanged, "generation 5 refused: a rollout cannot split a change of QueueSort")),
			done: true,
			err:  `schedulerprofiles.scheduling.profilescheduler.io "careful" is stalled: generation 5 refused: a rollout cannot split a change of QueueSort`,
		},
		{
			name: "being applied",
			sp:   profileAt(5, 5, 4, nil, rolloutCond(v1alpha1.ConditionReconciling, metav1.ConditionTrue, 5, v1alpha1.ReasonApplying, "applying generation 5")),
			line: waiting + "generation 5 to be applied (applying generation 5)...",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sp.Annotations = tc.annotations
			p := rolloutProgress(tc.sp, now)
			if p.line != tc.line || p.done != tc.done {
				t.Errorf("got %q (done %v), want %q (done %v)", p.line, p.done, tc.line, tc.done)
			}
			if got := errString(p.err); got != tc.err {
				t.Errorf("error %q, want %q", got, tc.err)
			}
		})
	}
}

func TestRolloutProgressKeyIgnoresTime(t *testing.T) {
	now := time.Date(2026, 8, 10, 10, 3, 0, 0, time.UTC)
	ends := metav1.NewTime(now.Add(7 * time.Minute))
	sp := profileAt(4, 4, 3, &v1alpha1.RolloutStatus{Generation: 4, Phase: v1alpha1.RolloutProgressing, Step: 2, Steps: 3,
		StepKind: v1alpha1.StepCanary, Percent: 10, StepEnds: &ends})
	a, b := rolloutProgress(sp, now), rolloutProgress(sp, now.Add(time.Minute))
	if a.key != b.key {
		t.Errorf("a minute later the key changed (%q, %q): the watch would print a line though nothing changed", a.key, b.key)
	}
	sp.Status.Rollout.Step = 3
	if c := rolloutProgress(sp, now); c.key == a.key {
		t.Errorf("the next step has the same key %q", c.key)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimSpace(err.Error())
}
