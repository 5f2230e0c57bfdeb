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
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// reviewOutcome is what answering a review decided: a failure, or the
// scheduler's review and the profile it used.
type reviewOutcome struct {
	failure    *Refusal
	review     *review.Answer
	draft      bool
	profile    string
	generation int64
}

func failed(reason, message string) reviewOutcome {
	return reviewOutcome{failure: &Refusal{Reason: reason, Message: message}}
}

// reviewStatus is the status of sr once answered with o.
func reviewStatus(sr *v1alpha1.SchedulingReview, o reviewOutcome, now metav1.Time) v1alpha1.SchedulingReviewStatus {
	st := v1alpha1.SchedulingReviewStatus{
		ObservedGeneration: sr.Generation,
		Profile:            o.profile,
		ProfileGeneration:  o.generation,
		Draft:              o.draft,
		CompletionTime:     &now,
	}
	if o.failure != nil {
		setCondition(&st.Conditions, sr.Generation, v1alpha1.ConditionFailed, metav1.ConditionTrue, o.failure.Reason, o.failure.Message, now)
		return st
	}
	r := o.review
	st.SchedulerName = r.SchedulerName
	st.SnapshotNodes = int32(r.SnapshotNodes)
	msg := "evaluated on " + plural(r.SnapshotNodes, "node") + "; " + questionOf(sr.Spec).answer(sr, r, &st)
	setCondition(&st.Conditions, sr.Generation, v1alpha1.ConditionComplete, metav1.ConditionTrue, v1alpha1.ReasonAnswered, msg, now)
	boundReviewStatus(&st)
	return st
}

// maxNodes is spec.maxNodes, 10 when unset.
func maxNodes(sr *v1alpha1.SchedulingReview) int {
	if sr.Spec.MaxNodes == nil {
		return 10
	}
	return int(*sr.Spec.MaxNodes)
}

// finishedAt is when the review got its Complete or Failed condition.
func finishedAt(sr *v1alpha1.SchedulingReview) time.Time {
	if sr.Status.CompletionTime != nil {
		return sr.Status.CompletionTime.Time
	}
	for _, c := range sr.Status.Conditions {
		if c.Type == v1alpha1.ConditionComplete || c.Type == v1alpha1.ConditionFailed {
			return c.LastTransitionTime.Time
		}
	}
	return sr.CreationTimestamp.Time
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
