package controllers

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// refusedGenerations counts SchedulerProfile generations refused, per
// profile and reason (the Ready condition's reason). The reconciler counts
// a generation once, however often it is reconciled.
var refusedGenerations = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "profile_scheduler",
	Name:      "refused_generations_total",
	Help:      "SchedulerProfile generations refused, by profile (object name) and reason.",
}, []string{"profile", "reason"})

var registerMetrics sync.Once

// registerMetricsOnControllerRuntime registers the controllers' metrics on
// controller-runtime's registry (served on the manager's /metrics), once.
func registerMetricsOnControllerRuntime() {
	registerMetrics.Do(func() {
		ctrlmetrics.Registry.MustRegister(refusedGenerations)
	})
}
