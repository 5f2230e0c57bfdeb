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

package harness

import (
	"context"
	"testing"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func review(name string, cond string, node string) *v1alpha1.SchedulingReview {
	sr := &v1alpha1.SchedulingReview{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if cond != "" {
		sr.Status.Conditions = []metav1.Condition{{Type: cond, Status: metav1.ConditionTrue, Reason: "R", Message: "m"}}
	}
	if cond == v1alpha1.ConditionComplete {
		sr.Status.Result = &v1alpha1.PodReviewResult{SelectedNode: node}
	}
	return sr
}

// The watch counts each review once, when first seen finished, and times
// it from the harness's create.
func TestReviewWatchCounts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	rw := &reviewWatch{watchLoop: newWatchLoop(), start: map[string]time.Time{}, finished: map[string]time.Time{}}
	for i, name := range []string{"a", "b", "c", "d", "e"} {
		rw.created(name, t0.Add(time.Duration(i)*time.Second))
	}
	rw.observe(review("a", "", ""), t0.Add(time.Millisecond)) // not finished yet
	rw.observe(review("a", v1alpha1.ConditionComplete, "node-1"), t0.Add(10*time.Millisecond))
	rw.observe(review("a", v1alpha1.ConditionComplete, "node-1"), t0.Add(time.Hour)) // seen again: ignored
	rw.observe(review("b", v1alpha1.ConditionComplete, "node-2"), t0.Add(time.Second+30*time.Millisecond))
	rw.observe(review("c", v1alpha1.ConditionComplete, ""), t0.Add(2*time.Second+20*time.Millisecond))
	rw.observe(review("d", v1alpha1.ConditionFailed, ""), t0.Add(3*time.Second+40*time.Millisecond))
	counts, ms := rw.result()
	want := ReviewCounts{Created: 5, Complete: 3, NoNode: 1, Failed: 1, FirstFailure: "d: R: m", Unanswered: 1}
	if counts != want {
		t.Errorf("counts %+v, want %+v", counts, want)
	}
	if ms.N != 4 || ms.P50 != 20 || ms.Max != 40 {
		t.Errorf("times %+v, want 4 samples, p50 20 ms, max 40 ms", ms)
	}
	if !rw.wait(context.Background(), "a", time.Second) {
		t.Errorf("a finished, but wait did not return true")
	}
	if rw.waitAll(context.Background(), 10*time.Millisecond) {
		t.Errorf("e is not finished, but waitAll returned true")
	}
	rw.forget("e")
	if !rw.waitAll(context.Background(), time.Second) {
		t.Errorf("every review left is finished, but waitAll returned false")
	}
}
