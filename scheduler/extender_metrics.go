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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// Verbs of the extender metrics' verb label.
const (
	ExtenderVerbFilter     = "filter"
	ExtenderVerbPrioritize = "prioritize"
	ExtenderVerbBind       = "bind"
	ExtenderVerbPreempt    = "preempt"
)

// Per-extender metrics, so that whoever is on call sees which extender
// hurts: labels profile (schedulerName), extender (its URL prefix, the
// upstream extender's name) and verb. Upstream kube-scheduler has no such
// metric; its extenders are global.
var (
	// ExtenderCalls counts calls to an extender.
	ExtenderCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "profile_scheduler",
		Name:      "extender_calls_total",
		Help:      "Calls to a scheduler extender, by profile, extender (URL prefix) and verb.",
	}, []string{"profile", "extender", "verb"})

	// ExtenderErrors counts calls that failed: the extender could not be
	// reached, timed out, answered a status other than 200, an answer
	// that does not decode, an error in its answer, or a node it was not
	// asked about. An ignorable extender's errors are counted too.
	ExtenderErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "profile_scheduler",
		Name:      "extender_errors_total",
		Help:      "Failed calls to a scheduler extender, by profile, extender (URL prefix) and verb.",
	}, []string{"profile", "extender", "verb"})

	// ExtenderCallDuration observes how long a call takes, failed or not.
	ExtenderCallDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "profile_scheduler",
		Name:      "extender_call_duration_seconds",
		Help:      "Duration of a call to a scheduler extender, by profile, extender (URL prefix) and verb.",
		Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"profile", "extender", "verb"})
)

// extenderCollectors are the metrics declared here (registerMetrics).
func extenderCollectors() []prometheus.Collector {
	return []prometheus.Collector{ExtenderCalls, ExtenderErrors, ExtenderCallDuration}
}

// instrumentExtender returns e, counting and timing every call it makes
// to the extender under profile. Everything else is e's.
func instrumentExtender(profile string, e fwk.Extender) fwk.Extender {
	return &instrumentedExtender{Extender: e, profile: profile}
}

// instrumentedExtender measures the calls of the extender it wraps.
type instrumentedExtender struct {
	fwk.Extender
	profile string
}

var _ fwk.Extender = &instrumentedExtender{}

func (e *instrumentedExtender) observe(verb string, start time.Time, err error) {
	labels := prometheus.Labels{"profile": e.profile, "extender": e.Name(), "verb": verb}
	ExtenderCalls.With(labels).Inc()
	ExtenderCallDuration.With(labels).Observe(time.Since(start).Seconds())
	if err != nil {
		ExtenderErrors.With(labels).Inc()
	}
}

// Filter calls the extender's filter, when it has one.
func (e *instrumentedExtender) Filter(pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodeInfo, extenderv1.FailedNodesMap, extenderv1.FailedNodesMap, error) {
	if !e.IsFilter() {
		return e.Extender.Filter(pod, nodes)
	}
	start := time.Now()
	kept, failed, unresolvable, err := e.Extender.Filter(pod, nodes)
	e.observe(ExtenderVerbFilter, start, err)
	return kept, failed, unresolvable, err
}

// Prioritize calls the extender's prioritize, when it has one.
func (e *instrumentedExtender) Prioritize(pod *v1.Pod, nodes []fwk.NodeInfo) (*extenderv1.HostPriorityList, int64, error) {
	if !e.IsPrioritizer() {
		return e.Extender.Prioritize(pod, nodes)
	}
	start := time.Now()
	list, weight, err := e.Extender.Prioritize(pod, nodes)
	e.observe(ExtenderVerbPrioritize, start, err)
	return list, weight, err
}

// Bind calls the extender's bind, when it is a binder.
func (e *instrumentedExtender) Bind(binding *v1.Binding) error {
	if !e.IsBinder() {
		return e.Extender.Bind(binding)
	}
	start := time.Now()
	err := e.Extender.Bind(binding)
	e.observe(ExtenderVerbBind, start, err)
	return err
}

// ProcessPreemption calls the extender's preempt, when it has one.
func (e *instrumentedExtender) ProcessPreemption(pod *v1.Pod, victims map[string]*extenderv1.Victims, nodeInfos fwk.NodeInfoLister) (map[string]*extenderv1.Victims, error) {
	if !e.SupportsPreemption() {
		return e.Extender.ProcessPreemption(pod, victims, nodeInfos)
	}
	start := time.Now()
	out, err := e.Extender.ProcessPreemption(pod, victims, nodeInfos)
	e.observe(ExtenderVerbPreempt, start, err)
	return out, err
}
