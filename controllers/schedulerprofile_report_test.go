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
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// TestReport checks the reconciler's report step without an API server: a
// refused generation is counted and announced once however often it is
// reconciled (the cache may still show the status before the refusal), is
// not counted again by a restarted operator that finds it in status, and a
// live generation clears the refusal memory. An undecided outcome reports
// nothing.
func TestReport(t *testing.T) {
	g := NewWithT(t)
	now := metav1.Now()
	recorder := events.NewFakeRecorder(10)
	newReconciler := func() *schedulerProfileReconciler {
		return &schedulerProfileReconciler{served: newServedNames(), refusals: newRefusalMemory(), Recorder: recorder,
			now: func() metav1.Time { return now }}
	}
	r := newReconciler()
	const name = "report-unit"
	reason := v1alpha1.ReasonInvalidPluginArgs
	counted := func() float64 { return testutil.ToFloat64(refusedGenerations.WithLabelValues(name, reason)) }
	profile := func(generation int64, st v1alpha1.SchedulerProfileStatus) *v1alpha1.SchedulerProfile {
		return &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: generation}, Status: st}
	}
	refused := func(r *schedulerProfileReconciler, st v1alpha1.SchedulerProfileStatus) *profileScope {
		s := newProfileScope(profile(2, st))
		s.refuse(refuse(reason, "spec.pluginConfig[0].args.typo: unknown field"))
		r.report(context.Background(), s)
		return s
	}
	before := counted()

	s := refused(r, v1alpha1.SchedulerProfileStatus{})
	ready := meta.FindStatusCondition(s.profile.Status.Conditions, v1alpha1.ConditionReady)
	g.Expect(ready).NotTo(BeNil())
	g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
	g.Expect(ready.Reason).To(Equal(reason))
	g.Expect(s.profile.Status.ObservedGeneration).To(BeEquivalentTo(2))
	g.Expect(s.base.Status.Conditions).To(BeEmpty(), "report leaves the base of the status patch alone")
	g.Expect(counted()).To(Equal(before + 1))
	g.Expect(recorder.Events).To(Receive(HavePrefix("Warning Refused generation 2 refused (InvalidPluginArgs)")))

	// Reconciled again while the cache still shows the old status: neither counted nor announced again.
	refused(r, v1alpha1.SchedulerProfileStatus{})
	g.Expect(counted()).To(Equal(before + 1))
	g.Expect(recorder.Events).NotTo(Receive())

	// A restarted operator finds the refusal in status: neither counted nor announced.
	refused(newReconciler(), s.profile.Status)
	g.Expect(counted()).To(Equal(before + 1))
	g.Expect(recorder.Events).NotTo(Receive())

	// A live generation clears the refusal memory.
	r.refusals.noteBuildRefused(name, "fp", refuse(reason, "x"))
	r.served.set(name, servedProfile{SchedulerName: name, Generation: 3})
	live := newProfileScope(profile(3, s.profile.Status))
	live.decided = true
	r.report(context.Background(), live)
	g.Expect(meta.IsStatusConditionTrue(live.profile.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
	g.Expect(live.profile.Status.ActiveGeneration).To(BeEquivalentTo(3))
	g.Expect(r.refusals.buildRefused(name, "fp")).To(BeNil())
	g.Expect(r.refusals.announce(name, 2, refuse(reason, "spec.pluginConfig[0].args.typo: unknown field"))).To(BeTrue(),
		"a refusal after a live generation is announced again")

	// An undecided outcome reports nothing.
	undecided := newProfileScope(profile(4, live.profile.Status))
	r.report(context.Background(), undecided)
	g.Expect(undecided.profile.Status).To(Equal(live.profile.Status))
	g.Expect(recorder.Events).NotTo(Receive())
}
