package scheduler

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// metricsPrefix selects the upstream scheduler metrics in the legacy
// registry (which also holds client-go and process metrics that
// controller-runtime already exports).
const metricsPrefix = "scheduler_"

var registerBridge sync.Once

// registerMetricsOnControllerRuntime makes the upstream scheduler metrics,
// which upstream registers on component-base's legacy registry, visible on
// controller-runtime's registry (served on the manager's /metrics).
func registerMetricsOnControllerRuntime() {
	registerBridge.Do(func() {
		_ = ctrlmetrics.Registry.Register(legacyBridge{gatherer: legacyregistry.DefaultGatherer, prefix: metricsPrefix})
	})
}

// legacyBridge re-exports gathered metric families as an unchecked
// collector: it describes nothing, and on Collect hands over every gathered
// sample as is.
type legacyBridge struct {
	gatherer prometheus.Gatherer
	prefix   string
}

func (legacyBridge) Describe(chan<- *prometheus.Desc) {}

func (b legacyBridge) Collect(ch chan<- prometheus.Metric) {
	families, err := b.gatherer.Gather()
	if err != nil && len(families) == 0 {
		return
	}
	for _, mf := range families {
		if !strings.HasPrefix(mf.GetName(), b.prefix) {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := make([]string, 0, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName())
			}
			ch <- gatheredMetric{desc: prometheus.NewDesc(mf.GetName(), mf.GetHelp(), labels, nil), metric: m}
		}
	}
}

// gatheredMetric is one already-gathered sample.
type gatheredMetric struct {
	desc   *prometheus.Desc
	metric *dto.Metric
}

func (g gatheredMetric) Desc() *prometheus.Desc { return g.desc }

func (g gatheredMetric) Write(out *dto.Metric) error {
	out.Label = g.metric.Label
	out.Counter = g.metric.Counter
	out.Gauge = g.metric.Gauge
	out.Histogram = g.metric.Histogram
	out.Summary = g.metric.Summary
	out.Untyped = g.metric.Untyped
	out.TimestampMs = g.metric.TimestampMs
	return nil
}
