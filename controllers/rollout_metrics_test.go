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
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// promAPI serves Prometheus' instant-query API: each query answered with
// the data of answers (its resultType and result, as Prometheus writes
// them), "error" with a refusal as Prometheus gives a bad query, "slow"
// after release is closed or the client went away. It records the
// queries it was asked.
type promAPI struct {
	answers map[string]string
	release chan struct{}
	mu      sync.Mutex
	asked   []string
}

func (p *promAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.FormValue("query")
	p.mu.Lock()
	p.asked = append(p.asked, q)
	answer, ok := p.answers[q]
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case q == "slow":
		select {
		case <-p.release:
		case <-r.Context().Done():
		}
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"scalar","result":[0,"1"]}}`))
	case !ok:
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"status":"error","errorType":"bad_data","error":"1:1: parse error: unexpected identifier"}`))
	default:
		_, _ = w.Write([]byte(`{"status":"success","data":` + answer + `}`))
	}
}

func (p *promAPI) queries() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.asked...)
}

// AnswerScalar makes p answer query with the scalar value.
func (p *promAPI) AnswerScalar(query, value string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answers[query] = `{"resultType":"scalar","result":[0,"` + value + `"]}`
}

// AskedLike reports whether a query p was asked matches the regular
// expression.
func (p *promAPI) AskedLike(expr string) bool {
	re := regexp.MustCompile(expr)
	return slices.ContainsFunc(p.queries(), re.MatchString)
}

// WasAsked reports whether p was asked query.
func (p *promAPI) WasAsked(query string) bool { return slices.Contains(p.queries(), query) }

func newPromAPI(answers map[string]string) *promAPI {
	if answers == nil {
		answers = map[string]string{}
	}
	return &promAPI{answers: answers, release: make(chan struct{})}
}

func startPromAPI(t *testing.T, answers map[string]string) (*promAPI, MetricsQuerier) {
	t.Helper()
	p := newPromAPI(answers)
	srv := httptest.NewServer(p)
	t.Cleanup(func() { close(p.release); srv.Close() })
	q, err := NewPrometheusQuerier(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return p, q
}

func TestMeasure(t *testing.T) {
	_, q := startPromAPI(t, map[string]string{
		"scalar":   `{"resultType":"scalar","result":[1700000000,"0.25"]}`,
		"vector":   `{"resultType":"vector","result":[{"metric":{"team":"b"},"value":[1700000000,"3"]},{"metric":{"team":"a"},"value":[1700000000,"1"]}]}`,
		"empty":    `{"resultType":"vector","result":[]}`,
		"nan":      `{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"NaN"]}]}`,
		"matrix":   `{"resultType":"matrix","result":[{"metric":{},"values":[[1700000000,"1"]]}]}`,
		"a string": `{"resultType":"string","result":[1700000000,"hello"]}`,
	})
	tests := []struct {
		query, condition string
		value            string
		pass             bool
		err              string
	}{
		{query: "scalar", condition: "result[0] < 0.5", value: "[0.25]", pass: true},
		{query: "scalar", condition: "result[0] > 0.5", value: "[0.25]", pass: false},
		// An instant vector's values in the order of their label sets.
		{query: "vector", condition: "result == [1.0, 3.0]", value: "[1, 3]", pass: true},
		{query: "vector", condition: "result.all(v, v < 2.0)", value: "[1, 3]", pass: false},
		// No series: a condition that indexes it cannot be evaluated.
		{query: "empty", condition: "size(result) == 0 || result[0] < 1.0", value: "[]", pass: true},
		{query: "empty", condition: "result[0] < 1.0", value: "[]", err: "successCondition on result []: index out of bounds"},
		// NaN cannot be ordered: an error of the measurement.
		{query: "nan", condition: "result[0] < 1.0", err: "successCondition on result [NaN]: NaN values cannot be ordered"},
		{query: "nan", condition: "!result.exists(v, v != v)", value: "[NaN]", pass: false},
		{query: "matrix", condition: "true", err: "the query returned a matrix: a scalar or an instant vector is judged"},
		{query: "a string", condition: "true", err: `unexpected value type "string"`},
		{query: "refused", condition: "true", err: "query: bad_data: 1:1: parse error"},
	}
	for _, tc := range tests {
		t.Run(tc.query+" "+tc.condition, func(t *testing.T) {
			m := v1alpha1.AnalysisMetric{Name: "m", Query: tc.query, SuccessCondition: tc.condition}
			value, pass, err := measure(context.Background(), q, m, tc.query, time.Second, time.Now())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if value != tc.value || pass != tc.pass {
				t.Errorf("measured %s pass=%v, want %s pass=%v", value, pass, tc.value, tc.pass)
			}
		})
	}
}

// A query Prometheus does not answer within the measurement's timeout is
// an error of the measurement, not a reconcile that waits.
func TestMeasureTimesOut(t *testing.T) {
	_, q := startPromAPI(t, nil)
	m := v1alpha1.AnalysisMetric{Name: "m", Query: "slow", SuccessCondition: "true"}
	start := time.Now()
	_, _, err := measure(context.Background(), q, m, "slow", 200*time.Millisecond, time.Now())
	if err == nil || !strings.Contains(err.Error(), "query unanswered within 200ms") {
		t.Fatalf("error %v, want the query unanswered within 200ms", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s", took)
	}
}

// Metrics due together are measured together: a reconcile waits on a
// Prometheus that does not answer for one timeout, not one per metric.
func TestMeasureMetricsAtOnce(t *testing.T) {
	_, q := startPromAPI(t, nil)
	a := &v1alpha1.RolloutAnalysis{}
	for _, name := range []string{"a", "b", "c", "d"} {
		a.Metrics = append(a.Metrics, v1alpha1.AnalysisMetric{Name: name, Query: "slow", SuccessCondition: "true", Interval: &metav1.Duration{Duration: time.Second}})
	}
	runs, start := metricRuns{}, time.Now()
	measureMetrics(context.Background(), q, a, runs, metricVars{}, start.Add(-time.Second), start, false)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("four metrics of a 1s timeout took %s", took)
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		if mr := runs[name]; mr == nil || mr.measured != 1 || mr.errored != 1 || mr.failed != 1 {
			t.Errorf("%s: %+v, want one measurement, an error counted as a failure", name, mr)
		}
	}
}

// An address nothing listens on is an error of each measurement.
func TestMeasureUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	q, err := NewPrometheusQuerier(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	m := v1alpha1.AnalysisMetric{Name: "m", Query: "up", SuccessCondition: "true"}
	if _, _, err := measure(context.Background(), q, m, "up", time.Second, time.Now()); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error %v, want connection refused", err)
	}
}

func TestExpandQuery(t *testing.T) {
	v := metricVars{profile: "team-a", generation: 7, serving: 6, window: 89500 * time.Millisecond}
	got := v.expand(`sum(rate(x{profile="$profile",generation="$generation"}[$window])) / sum(rate(x{generation="$servingGeneration"}[$window]))`)
	want := `sum(rate(x{profile="team-a",generation="7"}[90s])) / sum(rate(x{generation="6"}[90s]))`
	if got != want {
		t.Errorf("expanded\n%s\nwant\n%s", got, want)
	}
	if got := (metricVars{}).expand("[$window]"); got != "[1s]" {
		t.Errorf("a window just started is %s, want [1s]", got)
	}
}

// Measurements are taken every metric's interval from the step's start,
// all of them at its end; failures, errors and onError add up as the
// docs say, and a metric fails its step once its failures pass the limit.
func TestMeasureAndJudgeMetrics(t *testing.T) {
	p, q := startPromAPI(t, map[string]string{
		"good": `{"resultType":"scalar","result":[0,"0.01"]}`,
		"bad":  `{"resultType":"scalar","result":[0,"0.9"]}`,
	})
	a := &v1alpha1.RolloutAnalysis{Interval: &metav1.Duration{Duration: 10 * time.Second}, Metrics: []v1alpha1.AnalysisMetric{
		{Name: "good", Query: "good", SuccessCondition: "result[0] < 0.05"},
		{Name: "bad", Query: "bad", SuccessCondition: "result[0] < 0.05", FailureLimit: ptr.To[int32](1), Interval: &metav1.Duration{Duration: 5 * time.Second}},
		{Name: "refused-ignored", Query: "nonsense", SuccessCondition: "true", OnError: v1alpha1.MetricErrorIgnore},
		{Name: "refused", Query: "nonsense", SuccessCondition: "true", FailureLimit: ptr.To[int32](5)},
	}}
	if got := lookInterval(a); got != 5*time.Second {
		t.Errorf("looked at every %s, want 5s (the shortest metric interval)", got)
	}
	start := time.Unix(1_700_000_000, 0)
	runs := metricRuns{}
	vars := metricVars{profile: "p", generation: 2, serving: 1}
	// 4s: nothing is due yet.
	measureMetrics(context.Background(), q, a, runs, vars, start, start.Add(4*time.Second), false)
	if n := len(p.queries()); n != 0 {
		t.Fatalf("%d queries before any interval passed", n)
	}
	// 5s: bad is due (once failed, within its limit of 1).
	measureMetrics(context.Background(), q, a, runs, vars, start, start.Add(5*time.Second), false)
	out := judgeMetrics(analysis{verdict: verdictPending}, a, runs, false)
	if out.verdict != verdictPending {
		t.Fatalf("verdict %s after one failure of bad (limit 1): %s", out.verdict, out.failed)
	}
	// 10s: every metric is due; bad fails a second time, past its limit.
	measureMetrics(context.Background(), q, a, runs, vars, start, start.Add(10*time.Second), false)
	out = judgeMetrics(analysis{verdict: verdictPending}, a, runs, false)
	if out.verdict != verdictFail {
		t.Fatalf("verdict %s, want Fail", out.verdict)
	}
	wantFailed := `metric bad failed 2 of 2 measurements (failureLimit 1; 0 could not be taken): last result [0.9] against result[0] < 0.05 (certain while the step runs)`
	if out.failed != wantFailed {
		t.Errorf("failed:\n%s\nwant\n%s", out.failed, wantFailed)
	}
	byName := map[string]v1alpha1.RolloutMetric{}
	for _, m := range out.metrics {
		byName[m.Metric] = m
	}
	want := map[string]v1alpha1.RolloutMetric{
		"good":            {Metric: "good", New: "[0.01]", Threshold: "result[0] < 0.05", Samples: 1, Verdict: verdictPending},
		"bad":             {Metric: "bad", New: "[0.9]", Threshold: "result[0] < 0.05", Samples: 2, Failed: 2, Verdict: verdictFail},
		"refused-ignored": {Metric: "refused-ignored", Threshold: "true", Samples: 1, Errored: 1, Verdict: verdictPending},
		"refused":         {Metric: "refused", Threshold: "true", Samples: 1, Failed: 1, Errored: 1, Verdict: verdictPending},
	}
	for name, w := range want {
		g := byName[name]
		g.Error = ""
		if g != w {
			t.Errorf("%s:\n%+v\nwant\n%+v", name, g, w)
		}
	}
	if e := byName["refused"].Error; !strings.Contains(e, "bad_data") {
		t.Errorf("refused's error %q does not say why", e)
	}
	// At the step's end every metric is measured once more, and passes
	// within its limit; an error with onError Ignore judges nothing.
	runs = metricRuns{}
	a.Metrics = a.Metrics[2:]
	measureMetrics(context.Background(), q, a, runs, vars, start, start.Add(time.Second), true)
	out = judgeMetrics(analysis{verdict: verdictPass}, a, runs, true)
	if out.verdict != verdictPass {
		t.Errorf("verdict %s at the step's end, want Pass: %s", out.verdict, out.failed)
	}
	for _, m := range out.metrics {
		if m.Verdict != verdictPass {
			t.Errorf("%s: %s at the step's end", m.Metric, m.Verdict)
		}
	}
}

// With no Prometheus, every measurement is an error.
func TestMeasureWithoutPrometheus(t *testing.T) {
	m := v1alpha1.AnalysisMetric{Name: "m", Query: "up", SuccessCondition: "true"}
	if _, _, err := measure(context.Background(), nil, m, "up", time.Second, time.Now()); err == nil || !strings.Contains(err.Error(), "--prometheus-address") {
		t.Fatalf("error %v", err)
	}
}

// A successCondition that is not a CEL bool over result is refused,
// naming its field.
func TestCheckAnalysisMetrics(t *testing.T) {
	for cond, want := range map[string]string{
		"result[0] <":            "spec.rollout.analysis.metrics[1].successCondition: metric \"second\": ERROR: <input>:1:12: Syntax error",
		"result[0] + 1.0":        "spec.rollout.analysis.metrics[1].successCondition: metric \"second\": the condition is a double, not a bool",
		"series[0] < 1.0":        "undeclared reference to 'series'",
		"result[0] < 'a'":        "found no matching overload",
		"size(result) == 1":      "",
		"result.all(v, v > 0.0)": "",
	} {
		sp := &v1alpha1.SchedulerProfile{Spec: v1alpha1.SchedulerProfileSpec{Rollout: &v1alpha1.Rollout{Analysis: &v1alpha1.RolloutAnalysis{Metrics: []v1alpha1.AnalysisMetric{
			{Name: "first", Query: "up", SuccessCondition: "true"},
			{Name: "second", Query: "up", SuccessCondition: cond},
		}}}}}
		r := checkAnalysisMetrics(sp)
		switch {
		case want == "" && r != nil:
			t.Errorf("%q refused: %s", cond, r.Message)
		case want != "" && (r == nil || r.Reason != v1alpha1.ReasonInvalidSpec || !strings.Contains(r.Message, want)):
			t.Errorf("%q: refusal %+v, want InvalidSpec containing %q", cond, r, want)
		}
	}
}

// The compiled conditions kept are bounded: conditions edited away do
// not pile up, and one still in use is compiled again when it is asked.
func TestCompiledConditionsBounded(t *testing.T) {
	for i := range 3 * conditionCacheSize {
		if _, err := compileCondition(fmt.Sprintf("size(result) == %d", i)); err != nil {
			t.Fatal(err)
		}
		conditions.Lock()
		n := len(conditions.programs)
		conditions.Unlock()
		if n > conditionCacheSize {
			t.Fatalf("%d compiled conditions kept, more than %d", n, conditionCacheSize)
		}
	}
	if ok, err := evalCondition("size(result) == 2", []float64{1, 2}); err != nil || !ok {
		t.Errorf("a condition evicted and asked again: %v, %v", ok, err)
	}
}
