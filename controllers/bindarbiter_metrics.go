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
)

// Why the bind arbiter's webhook answered a review with an error (which
// its failurePolicy Ignore admits) before judging it.
const (
	// overloadBusy: as many reviews as it may answer at once were in
	// progress.
	overloadBusy = "busy"
	// overloadTooLarge: the body was larger than any Binding's review.
	overloadTooLarge = "too_large"
)

// bindWebhookOverload counts the reviews the bind arbiter's webhook
// turned away unread, by reason.
var bindWebhookOverload = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "profile_scheduler",
	Name:      "bind_arbiter_webhook_turned_away_total",
	Help:      "Reviews the bind arbiter's webhook answered with an error, unjudged (admitted: it fails open), by reason (busy, too_large).",
}, []string{"reason"})

var registerBindWebhookMetrics sync.Once

// registerBindWebhookMetricsOnControllerRuntime registers them on
// controller-runtime's registry, once.
func registerBindWebhookMetricsOnControllerRuntime() {
	registerBindWebhookMetrics.Do(func() { ctrlmetrics.Registry.MustRegister(bindWebhookOverload) })
}
