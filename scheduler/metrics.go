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

package scheduler

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

var metricsRegistered sync.Once

// registerMetrics is the one place this package's metrics are registered,
// on controller-runtime's registry (served on the manager's /metrics):
// those each file declares, and, through legacyBridge, the upstream
// scheduler metrics, which upstream registers on component-base's legacy
// registry.
func registerMetrics() {
	metricsRegistered.Do(func() {
		for _, collectors := range [][]prometheus.Collector{
			swapCollectors(), generationsCollectors(), rolloutCollectors(), loopCollectors(),
			bindCheckCollectors(), overcommitCollectors(), arbiterCollectors(), buildCollectors(),
			extenderCollectors(),
		} {
			ctrlmetrics.Registry.MustRegister(collectors...)
		}
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
