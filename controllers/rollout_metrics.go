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
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// MetricsQuerier answers the PromQL instant queries of
// spec.rollout.analysis.metrics: a Prometheus (NewPrometheusQuerier).
type MetricsQuerier interface {
	Query(ctx context.Context, query string, at time.Time) (model.Value, error)
}

// NewPrometheusQuerier queries the Prometheus HTTP API at address
// (--prometheus-address, for example http://prometheus.monitoring:9090).
func NewPrometheusQuerier(address string) (MetricsQuerier, error) {
	c, err := promapi.NewClient(promapi.Config{Address: address})
	if err != nil {
		return nil, fmt.Errorf("prometheus address %q: %w", address, err)
	}
	return prometheusQuerier{promv1.NewAPI(c)}, nil
}

type prometheusQuerier struct{ api promv1.API }

func (q prometheusQuerier) Query(ctx context.Context, query string, at time.Time) (model.Value, error) {
	v, _, err := q.api.Query(ctx, query, at)
	return v, err
}

// maxMeasureTimeout bounds a measurement's query: a Prometheus that does
// not answer in time is an error of the measurement (onError), never a
// reconcile that waits.
const maxMeasureTimeout = 5 * time.Second

// celCostLimit bounds a successCondition's evaluation.
const celCostLimit = 100_000

// metricRun is what one metric of spec.rollout.analysis.metrics measured
// in the window of the step in progress.
type metricRun struct {
	measured, failed, errored int32
	last                      time.Time
	// value is the last result; err the last error.
	value, err string
}

// metricRuns are the metrics' measurements in a step's window, by name.
type metricRuns map[string]*metricRun

// metricVars are the words a query's $ variables stand for.
type metricVars struct {
	profile             string
	generation, serving int64
	window              time.Duration
}

// expand replaces a query's $ variables.
func (v metricVars) expand(query string) string {
	window := max(1, int64(math.Ceil(v.window.Seconds())))
	return strings.NewReplacer(
		"$servingGeneration", strconv.FormatInt(v.serving, 10),
		"$generation", strconv.FormatInt(v.generation, 10),
		"$profile", v.profile,
		"$window", strconv.FormatInt(window, 10)+"s",
	).Replace(query)
}

// record counts one measurement of m taken at now.
func (mr *metricRun) record(m v1alpha1.AnalysisMetric, value string, ok bool, err error, now time.Time) {
	mr.last, mr.measured = now, mr.measured+1
	switch {
	case err != nil:
		mr.errored++
		mr.err = err.Error()
		if m.OnError != v1alpha1.MetricErrorIgnore {
			mr.failed++
		}
	case !ok:
		mr.failed++
	}
	if err == nil {
		mr.value = value
	}
}

// measure runs m's query and judges its result by m's successCondition:
// the result as written in status, and whether it passed.
func measure(ctx context.Context, q MetricsQuerier, m v1alpha1.AnalysisMetric, query string, timeout time.Duration, at time.Time) (string, bool, error) {
	if q == nil {
		return "", false, errors.New("no Prometheus: the operator runs without --prometheus-address")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := q.Query(ctx, query, at)
	if err != nil {
		if ctx.Err() != nil {
			return "", false, fmt.Errorf("query unanswered within %s: %w", timeout, err)
		}
		return "", false, fmt.Errorf("query: %w", err)
	}
	values, err := resultValues(v)
	if err != nil {
		return "", false, err
	}
	shown := resultText(values)
	ok, err := evalCondition(m.SuccessCondition, values)
	if err != nil {
		return shown, false, fmt.Errorf("successCondition on result %s: %w", shown, err)
	}
	return shown, ok, nil
}

// resultValues are the values CEL's result holds: a scalar's, or an
// instant vector's in the order of their label sets.
func resultValues(v model.Value) ([]float64, error) {
	switch r := v.(type) {
	case *model.Scalar:
		return []float64{float64(r.Value)}, nil
	case model.Vector:
		samples := slices.Clone(r)
		slices.SortFunc(samples, func(a, b *model.Sample) int { return strings.Compare(a.Metric.String(), b.Metric.String()) })
		out := make([]float64, 0, len(samples))
		for _, s := range samples {
			out = append(out, float64(s.Value))
		}
		return out, nil
	case nil:
		return nil, errors.New("the query returned nothing")
	}
	return nil, fmt.Errorf("the query returned a %s: a scalar or an instant vector is judged", v.Type())
}

// resultText writes values as status shows them, within its 64
// characters.
func resultText(values []float64) string {
	parts := make([]string, len(values))
	for i, f := range values {
		parts[i] = strconv.FormatFloat(f, 'g', 4, 64)
	}
	return cut("["+strings.Join(parts, ", ")+"]", 64)
}

// conditionCacheSize bounds the compiled successConditions kept: a
// profile's conditions are compiled once, not at every measurement, and
// conditions edited away do not pile up for the life of the process.
const conditionCacheSize = 256

// conditions caches the compiled successConditions, by expression; full,
// it starts over.
var conditions = struct {
	sync.Mutex
	programs map[string]cel.Program
}{programs: map[string]cel.Program{}}

// conditionEnv is the CEL environment of the successConditions: result,
// a list of doubles.
var conditionEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(cel.Variable("result", cel.ListType(cel.DoubleType)))
})

// compileCondition compiles a successCondition: a CEL expression over
// result (a list of doubles) that is a bool.
func compileCondition(expr string) (cel.Program, error) {
	conditions.Lock()
	p, ok := conditions.programs[expr]
	conditions.Unlock()
	if ok {
		return p, nil
	}
	env, err := conditionEnv()
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	if ast.OutputType() != cel.BoolType {
		return nil, fmt.Errorf("the condition is a %s, not a bool", ast.OutputType())
	}
	p, err = env.Program(ast, cel.CostLimit(celCostLimit))
	if err != nil {
		return nil, err
	}
	conditions.Lock()
	if len(conditions.programs) >= conditionCacheSize {
		clear(conditions.programs)
	}
	conditions.programs[expr] = p
	conditions.Unlock()
	return p, nil
}

func evalCondition(expr string, values []float64) (bool, error) {
	p, err := compileCondition(expr)
	if err != nil {
		return false, err
	}
	out, _, err := p.Eval(map[string]any{"result": values})
	if err != nil {
		return false, err
	}
	ok, isBool := out.Value().(bool)
	if !isBool {
		return false, fmt.Errorf("the condition gave %v, not a bool", out.Value())
	}
	return ok, nil
}

// checkAnalysisMetrics refuses a successCondition that does not compile,
// naming its field.
func checkAnalysisMetrics(sp *v1alpha1.SchedulerProfile) *Refusal {
	r := sp.Spec.Rollout
	if r == nil || r.Analysis == nil {
		return nil
	}
	for i, m := range r.Analysis.Metrics {
		if _, err := compileCondition(m.SuccessCondition); err != nil {
			return refuse(v1alpha1.ReasonInvalidSpec, "spec.rollout.analysis.metrics[%d].successCondition: metric %q: %v", i, m.Name, err)
		}
	}
	return nil
}

// judgeMetrics adds the metrics of spec.rollout.analysis.metrics to out,
// the analysis of a step's window: a metric fails once more of its
// measurements failed than its failureLimit allows, which is certain
// while the step runs (failures only add up); else it is Pending while the
// step runs, and passes at its end.
func judgeMetrics(out analysis, a *v1alpha1.RolloutAnalysis, runs metricRuns, ended bool) analysis {
	if a == nil || len(a.Metrics) == 0 {
		return out
	}
	if out.why == nil {
		out.why = map[string]string{}
	}
	for _, m := range a.Metrics {
		mr := runs[m.Name]
		if mr == nil {
			mr = &metricRun{}
		}
		limit := int32(0)
		if m.FailureLimit != nil {
			limit = *m.FailureLimit
		}
		rm := v1alpha1.RolloutMetric{Metric: m.Name, New: mr.value, Threshold: cut(m.SuccessCondition, 64),
			Samples: int64(mr.measured), Failed: mr.failed, Errored: mr.errored, Error: cut(mr.err, 1024)}
		failed := fmt.Sprintf("metric %s failed %d of %d measurements (failureLimit %d; %d could not be taken): last result %s against %s",
			m.Name, mr.failed, mr.measured, limit, mr.errored, orNone(mr.value), m.SuccessCondition)
		if mr.err != "" {
			failed += "; last error: " + mr.err
		}
		out.why[m.Name] = failed
		switch {
		case mr.failed > limit:
			rm.Verdict = verdictFail
			if out.verdict != verdictFail {
				out.verdict, out.failed = verdictFail, failed
				if !ended {
					out.failed += " (certain while the step runs)"
				}
			}
		case ended:
			rm.Verdict = verdictPass
		default:
			rm.Verdict = verdictPending
		}
		out.metrics = append(out.metrics, rm)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
