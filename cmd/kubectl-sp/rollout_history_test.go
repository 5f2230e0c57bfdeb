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
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func revision(n int64, generation, by string) appsv1.ControllerRevision {
	return appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "p-" + generation, CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Hour)),
			Annotations: map[string]string{v1alpha1.AnnotationRevisionGeneration: generation, v1alpha1.AnnotationRevisionChangedBy: by}},
		Revision: n,
	}
}

func TestUndoTarget(t *testing.T) {
	revs := []appsv1.ControllerRevision{revision(1, "1", "kubectl"), revision(3, "4", "argocd-controller"), revision(4, "6", "kubectl")}
	if n, err := undoTarget(revs, 0); err != nil || n != 3 {
		t.Errorf("undoTarget(0) = %d, %v; want the one before the newest, 3", n, err)
	}
	if n, err := undoTarget(revs, 1); err != nil || n != 1 {
		t.Errorf("undoTarget(1) = %d, %v; want 1", n, err)
	}
	if _, err := undoTarget(revs, 2); err == nil || !strings.Contains(err.Error(), "revision 2 is not in its history") {
		t.Errorf("undoTarget(2) = %v; want a revision not in the history refused", err)
	}
	if _, err := undoTarget(revs[:1], 0); err == nil || !strings.Contains(err.Error(), "nothing served before the newest") {
		t.Errorf("undoTarget of one revision = %v; want nothing to go back to", err)
	}
}

func TestRetryValue(t *testing.T) {
	sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: 5}}
	sp.Status.Rollout = &v1alpha1.RolloutStatus{Generation: 5, Phase: v1alpha1.RolloutRolledBack}
	if v, err := retryValue(sp); err != nil || v != "5/1" {
		t.Errorf("retryValue = %q, %v; want 5/1", v, err)
	}
	sp.Status.Rollout.Retried = "5/1"
	if v, _ := retryValue(sp); v != "5/2" {
		t.Errorf("retryValue after one retry = %q; want 5/2", v)
	}
	sp.Status.Rollout.Phase = v1alpha1.RolloutProgressing
	if _, err := retryValue(sp); err == nil {
		t.Error("retryValue of a rollout in progress: want it refused")
	}
	sp.Status.Rollout = &v1alpha1.RolloutStatus{Generation: 4, Phase: v1alpha1.RolloutRolledBack}
	if _, err := retryValue(sp); err == nil {
		t.Error("retryValue while a newer generation is the latest: want it refused")
	}
}

func TestRenderHistory(t *testing.T) {
	sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: 6}}
	sp.Status.ActiveGeneration = 6
	sp.Status.Rollout = &v1alpha1.RolloutStatus{History: []v1alpha1.RolloutRecord{
		{Generation: 6, Outcome: v1alpha1.RolloutPromoted}, {Generation: 5, Outcome: v1alpha1.RolloutRolledBack}, {Generation: 4, Outcome: v1alpha1.RolloutPromoted},
	}}
	var out bytes.Buffer
	if err := renderHistory(&out, sp, []appsv1.ControllerRevision{revision(1, "1", "kubectl"), revision(3, "4", "argocd-controller"), revision(4, "6", "kubectl")}, time.Now()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "REVISION") {
		t.Fatalf("history:\n%s", out.String())
	}
	for i, want := range [][]string{{"1", "kubectl", "Live"}, {"3", "4", "argocd-controller", "Promoted"}, {"4", "6", "kubectl", "Promoted (serving)"}} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("line %q lacks %q", lines[i+1], w)
			}
		}
	}
}

// TestRolloutStatusExitCodes: promoted, rolled back, aborted and a
// timeout each end rollout status with a status of its own.
func TestRolloutStatusExitCodes(t *testing.T) {
	code := func(phase string) int {
		sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: 2}}
		sp.Status.Rollout = &v1alpha1.RolloutStatus{Generation: 2, Phase: phase}
		p := rolloutProgress(sp, time.Now())
		if p.err == nil {
			return 0
		}
		var c codedError
		if !errors.As(p.err, &c) {
			t.Fatalf("%s: %v has no exit status of its own", phase, p.err)
		}
		return c.code
	}
	got := map[string]int{}
	for _, phase := range []string{v1alpha1.RolloutPromoted, v1alpha1.RolloutRolledBack, v1alpha1.RolloutAborted} {
		got[phase] = code(phase)
	}
	want := map[string]int{v1alpha1.RolloutPromoted: 0, v1alpha1.RolloutRolledBack: exitRolledBack, v1alpha1.RolloutAborted: exitAborted}
	for phase, c := range want {
		if got[phase] != c {
			t.Errorf("%s exits %d, want %d", phase, got[phase], c)
		}
	}
	if exitTimedOut == exitRolledBack || exitTimedOut == exitAborted || exitTimedOut == 0 {
		t.Errorf("a timeout exits %d, the status of another outcome", exitTimedOut)
	}
}
