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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// fixedLoops answers LoopState with states by schedulerName.
type fixedLoops map[string]scheduler.LoopState

func (f fixedLoops) LoopState(name string) (scheduler.LoopState, bool) {
	st, ok := f[name]
	return st, ok
}

func TestLoopStatus(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	loops := fixedLoops{
		"idle":     {Own: true},
		"busy":     {Own: true, BusyPercent: 63, Current: "pod ns/quick", CycleStart: now.Add(-200 * time.Millisecond)},
		"stuck":    {Own: true, BusyPercent: 98, Current: "pod ns/web-3", CycleStart: now.Add(-4 * time.Second), AssumeConflicts: 2},
		"shared-a": {Own: false, BusyPercent: 2},
	}
	r := &schedulerProfileReconciler{Loops: loops, now: func() metav1.Time { return metav1.NewTime(now) }}
	since := metav1.NewTime(now.Add(-4 * time.Second))
	for name, want := range map[string]*v1alpha1.LoopStatus{
		"idle": {Own: true},
		// A short cycle is not named: the status would change at every
		// refresh.
		"busy":     {Own: true, BusyPercent: 65},
		"stuck":    {Own: true, BusyPercent: 100, SlowCycle: "pod ns/web-3", SlowCycleSince: &since, AssumeConflicts: 2},
		"shared-a": {BusyPercent: 0},
		"unknown":  nil,
	} {
		t.Run(name, func(t *testing.T) {
			NewWithT(t).Expect(r.loopStatus(name, 1)).To(Equal(want))
		})
	}
	t.Run("no generation serves", func(t *testing.T) {
		NewWithT(t).Expect(r.loopStatus("busy", 0)).To(BeNil())
	})
	t.Run("loops not known", func(t *testing.T) {
		NewWithT(t).Expect((&schedulerProfileReconciler{}).loopStatus("busy", 1)).To(BeNil())
	})
}
