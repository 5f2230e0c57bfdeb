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
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// Kinds of review (the kind label): the question a review asks.
const (
	reviewKindPod         = "pod"
	reviewKindPodGroup    = "podGroup"
	reviewKindPendingPods = "pendingPods"
	reviewKindScenario    = "scenario"
)

// reviewsFinished counts the SchedulingReviews answered, per kind and
// result (answered, or failed: the review's Failed condition). Bounded by
// four kinds and two results.
var reviewsFinished = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "profile_scheduler",
	Name:      "reviews_total",
	Help:      "SchedulingReviews finished, by kind (pod, podGroup, pendingPods, scenario) and result (answered, failed).",
}, []string{"kind", "result"})

// reviewFailures counts the reviews that failed, per kind and reason (the
// Failed condition's reason: a constant of the API, or a refusal reason
// of a draft profile). EvaluationFailed is the operator's own failure;
// the others say what the review asked for is not there or not valid.
var reviewFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "profile_scheduler",
	Name:      "review_failures_total",
	Help:      "SchedulingReviews that failed, by kind (pod, podGroup, pendingPods, scenario) and reason (the Failed condition's reason; EvaluationFailed when the scheduler's pipeline returned an error).",
}, []string{"kind", "reason"})

var registerReviewMetrics sync.Once

// registerReviewMetricsOnControllerRuntime registers the reviews' metrics
// on controller-runtime's registry, once, with every kind and result (and
// EvaluationFailed) at 0, so that a rate or an increase is defined before
// the first review.
func registerReviewMetricsOnControllerRuntime() {
	registerReviewMetrics.Do(func() {
		ctrlmetrics.Registry.MustRegister(reviewsFinished, reviewFailures)
		for _, kind := range []string{reviewKindPod, reviewKindPodGroup, reviewKindPendingPods, reviewKindScenario} {
			for _, result := range []string{"answered", "failed"} {
				reviewsFinished.WithLabelValues(kind, result)
			}
			reviewFailures.WithLabelValues(kind, v1alpha1.ReasonEvaluationFailed)
		}
	})
}

// reviewKind is the kind of the question spec asks.
func reviewKind(spec v1alpha1.SchedulingReviewSpec) string {
	switch questionOf(spec).(type) {
	case scenarioQuestion:
		return reviewKindScenario
	case pendingQuestion:
		return reviewKindPendingPods
	case groupQuestion:
		return reviewKindPodGroup
	}
	return reviewKindPod
}

// countReview counts a review whose answer was written.
func countReview(sr *v1alpha1.SchedulingReview, o reviewOutcome) {
	kind, result := reviewKind(sr.Spec), "answered"
	if o.failure != nil {
		result = "failed"
		reviewFailures.WithLabelValues(kind, o.failure.Reason).Inc()
	}
	reviewsFinished.WithLabelValues(kind, result).Inc()
}
