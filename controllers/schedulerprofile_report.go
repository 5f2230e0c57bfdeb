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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// report computes the status that follows from the decided outcome into
// s.profile, and tells what the reconcile decided: a refused generation is
// counted in the refused generations metric (once per generation and
// reason, not again by a restarted operator that finds it in status) and
// announced by a Refused event when the Ready condition moves to it; a
// live generation clears the refusal memory of the object.
func (r *schedulerProfileReconciler) report(_ context.Context, s *profileScope) {
	if !s.decided {
		return
	}
	sp := s.profile
	o := profileOutcome{Generation: sp.Generation, SchedulerName: s.name, Refusal: s.refusal, Rollout: s.rollout}
	if cur, ok := r.served.get(sp.Name); ok {
		o.ActiveGeneration = cur.Generation
		o.Plugins = cur.Status.Plugins
		o.Extenders = cur.Status.Extenders
		o.ActiveSpec = cur.Status.ActiveSpec
	}
	sp.Status = profileStatus(s.base.Status, o, r.now())
	sp.Status.Loop = r.loopStatus(s.name, o.ActiveGeneration)
	if sp.Status.Loop != nil && (s.requeueAfter == 0 || s.requeueAfter > loopRefresh) {
		s.requeueAfter = loopRefresh
	}
	if s.refusal == nil {
		r.refusals.live(sp.Name)
		return
	}
	if r.refusals.count(sp.Name, sp.Generation, s.refusal.Reason) && !refusalReported(s.base.Status, sp.Generation, s.refusal.Reason) {
		refusedGenerations.WithLabelValues(sp.Name, s.refusal.Reason).Inc()
	}
	if refusalChanged(s.base.Status, sp.Status) && r.refusals.announce(sp.Name, sp.Generation, s.refusal) {
		r.Recorder.Eventf(sp, nil, corev1.EventTypeWarning, v1alpha1.EventRefused, "Apply",
			"generation %d refused (%s): %s; %s", sp.Generation, s.refusal.Reason, s.refusal.Message, servingNote(o.ActiveGeneration))
	}
}

// patchStatus writes the status report computed for a decided outcome,
// only when it differs from what is stored, or marks an undecided
// generation Reconciling.
func (r *schedulerProfileReconciler) patchStatus(ctx context.Context, s *profileScope) error {
	if !s.decided {
		return r.markReconciling(ctx, s)
	}
	sp := s.profile
	if equality.Semantic.DeepEqual(s.base.Status, sp.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, sp, client.MergeFrom(s.base)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("writing status: %w", err)
	}
	return nil
}

// refusalChanged reports whether the Ready condition moved to a refusal it
// did not already report.
func refusalChanged(before, after v1alpha1.SchedulerProfileStatus) bool {
	a := meta.FindStatusCondition(after.Conditions, v1alpha1.ConditionReady)
	b := meta.FindStatusCondition(before.Conditions, v1alpha1.ConditionReady)
	if a == nil || a.Status != metav1.ConditionFalse {
		return false
	}
	return b == nil || b.Status != a.Status || b.Reason != a.Reason || b.Message != a.Message
}

// refusalReported reports whether the stored status already says that
// generation is refused for reason, as after an operator restart: that
// refusal was counted by the process that decided it.
func refusalReported(st v1alpha1.SchedulerProfileStatus, generation int64, reason string) bool {
	c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == reason && c.ObservedGeneration == generation
}

// notify makes another profile reconcile, for example one whose name was
// just taken over.
func (r *schedulerProfileReconciler) notify(ctx context.Context, name string) {
	ev := event.GenericEvent{Object: &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}}
	select {
	case r.displaced <- ev:
	default:
		go func() {
			select {
			case r.displaced <- ev:
			case <-ctx.Done():
			case <-time.After(time.Minute):
			}
		}()
	}
}
