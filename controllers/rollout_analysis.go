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
	"maps"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// Analysis defaults, for the fields of spec.rollout.analysis left unset.
const (
	defaultMaxUnschedulableRatio = 1.5
	defaultMaxLatencyRatio       = 2.0
	defaultMaxErrors             = 0
	defaultMinShadowAgreement    = 0.9
	defaultMinSamples            = 10
	defaultMaxExtensions         = 3
	defaultAnalysisInterval      = 10 * time.Second
)

// interimAlpha bounds the chance that the looks at one step's window,
// all together, fail a new generation that is exactly at its bounds:
// each of a window's K looks judges a ratio at the edge of its Wilson
// score interval at confidence 1 - interimAlpha/K (a Bonferroni split),
// so more looks make each one stricter, not the step likelier to fail.
const interimAlpha = 0.05

// Metric names of an analysis.
const (
	metricUnschedulableRatio = "UnschedulableRatio"
	metricLatencyP99Ratio    = "LatencyP99Ratio"
	metricErrors             = "Errors"
	metricShadowAgreement    = "ShadowAgreement"
)

// Verdicts.
const (
	verdictPass         = "Pass"
	verdictFail         = "Fail"
	verdictInsufficient = "Insufficient"
	// verdictPending: a look while the step runs found no certain
	// failure; the metric is judged at the step's end.
	verdictPending = "Pending"
)

// analysisBounds are spec.rollout.analysis with its defaults.
type analysisBounds struct {
	maxUnschedulableRatio, maxLatencyRatio, minShadowAgreement float64
	maxErrors, minSamples, maxExtensions                       int64
	passInsufficient                                           bool
	interval                                                   time.Duration
}

func boundsOf(a *v1alpha1.RolloutAnalysis) analysisBounds {
	b := analysisBounds{
		maxUnschedulableRatio: defaultMaxUnschedulableRatio,
		maxLatencyRatio:       defaultMaxLatencyRatio,
		minShadowAgreement:    defaultMinShadowAgreement,
		maxErrors:             defaultMaxErrors,
		minSamples:            defaultMinSamples,
		maxExtensions:         defaultMaxExtensions,
		interval:              defaultAnalysisInterval,
	}
	if a == nil {
		return b
	}
	if a.Interval != nil && a.Interval.Duration > 0 {
		b.interval = a.Interval.Duration
	}
	if a.MaxUnschedulableRatio != nil {
		b.maxUnschedulableRatio = *a.MaxUnschedulableRatio
	}
	if a.MaxLatencyRatio != nil {
		b.maxLatencyRatio = *a.MaxLatencyRatio
	}
	if a.MinShadowAgreement != nil {
		b.minShadowAgreement = *a.MinShadowAgreement
	}
	if a.MaxErrors != nil {
		b.maxErrors = int64(*a.MaxErrors)
	}
	if a.MinSamples != nil {
		b.minSamples = int64(*a.MinSamples)
	}
	if a.MaxExtensions != nil {
		b.maxExtensions = int64(*a.MaxExtensions)
	}
	b.passInsufficient = a.OnInsufficientSamples == "Pass"
	return b
}

// analysis is the judgement of one step's window.
type analysis struct {
	metrics []v1alpha1.RolloutMetric
	// verdict: Pass, Fail or Insufficient (Pending: a look while the
	// step runs, lookAt).
	verdict string
	// failed names the first metric that failed, with both values.
	failed string
	// why says, for each metric, what its failure would say.
	why map[string]string
}

// failedOf is what the failure of metric says.
func (a analysis) failedOf(metric string) string { return a.why[metric] }

// analyze judges a step's window, new generation against serving: in a
// shadow step the share of the pods serving placed that the new one
// finds feasible on the same node; in a canary step the unschedulable
// ratio, the latency p99 ratio and the errors. Errors above the bound
// fail a step however few samples it has; any other metric needs
// minSamples of the new generation's.
func analyze(a *v1alpha1.RolloutAnalysis, shadowStep bool, w scheduler.RolloutWindow) analysis {
	b := boundsOf(a)
	var out analysis
	out.why = map[string]string{}
	add := func(m v1alpha1.RolloutMetric, failed string) {
		out.metrics = append(out.metrics, m)
		out.why[m.Metric] = failed
		if m.Verdict == verdictFail && out.failed == "" {
			out.failed = failed
		}
	}
	if shadowStep {
		agreed, placed, judged := shadowAgreement(w.Shadow)
		m := v1alpha1.RolloutMetric{Metric: metricShadowAgreement, Threshold: ">= " + ratio(b.minShadowAgreement),
			Samples: placed, ServingSamples: judged}
		agreement := 1.0
		if placed > 0 {
			agreement = float64(agreed) / float64(placed)
		}
		m.New, m.Serving = ratio(agreement), "1"
		switch {
		case judged < b.minSamples:
			m.Verdict = verdictInsufficient
		case agreement < b.minShadowAgreement:
			m.Verdict = verdictFail
		default:
			m.Verdict = verdictPass
		}
		what := "pods"
		if w.Shadow.Groups.Judged > 0 {
			what = "pods and pod groups (a group agreed when placed, every member)"
		}
		add(m, fmt.Sprintf("ShadowAgreement %s < %s: the new generation finds %d of the %d %s the serving one placed feasible on the same node",
			ratio(agreement), ratio(b.minShadowAgreement), agreed, placed, what))
	} else {
		c, s := w.Candidate, w.Serving
		enough := c.Attempts >= b.minSamples
		// Errors first: they fail a step whatever else it shows.
		em := v1alpha1.RolloutMetric{Metric: metricErrors, New: strconv.FormatInt(c.Errors, 10), Serving: strconv.FormatInt(s.Errors, 10),
			Threshold: "<= " + strconv.FormatInt(b.maxErrors, 10), Samples: c.Attempts, ServingSamples: s.Attempts}
		em.Verdict = verdictPass
		if c.Errors > b.maxErrors {
			em.Verdict = verdictFail
		}
		add(em, fmt.Sprintf("Errors %d > %d: the new generation's plugins, extenders or binds failed %d times (serving: %d)",
			c.Errors, b.maxErrors, c.Errors, s.Errors))
		// Unschedulable attempts per attempt, each plus unschedulableFloor,
		// so that a window without any is defined and one attempt of a
		// canary's few does not swing the ratio.
		cr, sr := rate(c.Unschedulable, c.Attempts), rate(s.Unschedulable, s.Attempts)
		ur := (cr + unschedulableFloor) / (sr + unschedulableFloor)
		m := v1alpha1.RolloutMetric{Metric: metricUnschedulableRatio, New: ratio(cr), Serving: ratio(sr),
			Threshold: "<= " + ratio(b.maxUnschedulableRatio), Samples: c.Attempts, ServingSamples: s.Attempts}
		m.Verdict = judge(enough, ur <= b.maxUnschedulableRatio)
		add(m, fmt.Sprintf("UnschedulableRatio %s > %s: new generation %d of %d attempts unschedulable, serving %d of %d",
			ratio(ur), ratio(b.maxUnschedulableRatio), c.Unschedulable, c.Attempts, s.Unschedulable, s.Attempts))

		lm := v1alpha1.RolloutMetric{Metric: metricLatencyP99Ratio, New: duration(c.LatencyP99), Serving: duration(s.LatencyP99),
			Threshold: "<= " + ratio(b.maxLatencyRatio) + "x", Samples: int64(c.LatencySamples), ServingSamples: int64(s.LatencySamples)}
		lr := 0.0
		switch {
		case c.LatencySamples == 0 || s.LatencySamples == 0:
			// Nothing bound on one side: the unschedulable ratio judges.
			lm.Verdict = judge(enough, true)
		default:
			// Below latencyFloor latencies are noise, not a ratio.
			lr = float64(max(c.LatencyP99, latencyFloor)) / float64(max(s.LatencyP99, latencyFloor))
			lm.Verdict = judge(enough, lr <= b.maxLatencyRatio)
		}
		add(lm, fmt.Sprintf("LatencyP99Ratio %s > %s: new generation p99 %s, serving %s", ratio(lr), ratio(b.maxLatencyRatio), duration(c.LatencyP99), duration(s.LatencyP99)))

	}
	out.verdict = verdictPass
	for _, m := range out.metrics {
		switch m.Verdict {
		case verdictFail:
			out.verdict = verdictFail
			return out
		case verdictInsufficient:
			out.verdict = verdictInsufficient
		}
	}
	return out
}

// lookAt judges a step's window while the step runs, at one of looks
// looks its window allows: a metric fails only when its failure is
// certain, and passes only at the step's end (analyze), so the verdict is
// Fail or Pending. Errors past maxErrors are certain (a window's errors
// only grow). A ratio needs minSamples of the new generation's and must
// be past its bound at the edge of its confidence interval (interimAlpha
// split over the looks): the new generation's unschedulable share at the
// lower end of its Wilson interval against the serving one's at the upper
// end; the shadow's agreement at the upper end of its interval. The
// latency p99 is judged at the step's end only.
func lookAt(a *v1alpha1.RolloutAnalysis, shadowStep bool, w scheduler.RolloutWindow, looks int) analysis {
	b := boundsOf(a)
	z := zScore(interimAlpha / float64(max(looks, 1)))
	full := analyze(a, shadowStep, w)
	out := analysis{verdict: verdictPending}
	for _, m := range full.metrics {
		certain := false
		switch m.Metric {
		case metricErrors:
			certain = m.Verdict == verdictFail
		case metricUnschedulableRatio:
			c, s := w.Candidate, w.Serving
			if c.Attempts >= b.minSamples {
				low, _ := wilson(c.Unschedulable, c.Attempts, z)
				_, high := wilson(s.Unschedulable, s.Attempts, z)
				certain = (low+unschedulableFloor)/(high+unschedulableFloor) > b.maxUnschedulableRatio
			}
		case metricShadowAgreement:
			agreed, placed, judged := shadowAgreement(w.Shadow)
			if judged >= b.minSamples && placed > 0 {
				_, high := wilson(agreed, placed, z)
				certain = high < b.minShadowAgreement
			}
		}
		m.Verdict = verdictPending
		if certain {
			m.Verdict = verdictFail
			if out.verdict != verdictFail {
				out.verdict, out.failed = verdictFail, full.failedOf(m.Metric)+" (certain while the step runs)"
			}
		}
		out.metrics = append(out.metrics, m)
	}
	return out
}

// shadowAgreement counts what a shadow's agreement is judged on: the pods
// and the pod groups (each one sample, all or nothing) the serving
// generation placed, those the new generation agrees with (a pod feasible
// on the same node, a group placed), and all it judged.
func shadowAgreement(sh scheduler.ShadowCounts) (agreed, placed, judged int64) {
	g := sh.Groups
	return sh.FeasibleWhereServingPlaced + g.PlacedWhereServingPlaced, sh.ServingPlaced + g.ServingPlaced, sh.Judged + g.Judged
}

// looksIn is how many looks a window of d allows at interval.
func looksIn(d, interval time.Duration) int {
	if interval <= 0 {
		return 1
	}
	return max(1, int((d+interval-1)/interval))
}

// wilson is the Wilson score interval of k successes in n trials at
// z standard deviations: [0, 1] when there is no trial.
func wilson(k, n int64, z float64) (low, high float64) {
	if n <= 0 {
		return 0, 1
	}
	nf, p, z2 := float64(n), float64(k)/float64(n), z*z
	center := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / (1 + z2/nf)
	return max(0, center-half), min(1, center+half)
}

// zScore is the standard normal quantile of 1 - p (one-sided).
func zScore(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(1-2*p)
}

// stepAction is what the end of a step's window does with the rollout.
type stepAction int

const (
	// stepExtend: too few samples; the step's window runs once more.
	stepExtend stepAction = iota
	// stepNext: the step passed; the next one starts.
	stepNext
	// stepPromote: the last step passed; the generation serves every pod.
	stepPromote
	// stepHold: the step failed and onFailure is Pause; the rollout holds
	// until a person promotes or aborts it, or the spec changes.
	stepHold
	// stepRollBack: the step failed; the serving generation stays.
	stepRollBack
)

// stepDecision is the verdict on a step whose window ended, and the
// message that says it (status.rollout.message; for stepRollBack, why it
// was rolled back).
type stepDecision struct {
	action  stepAction
	message string
}

// decideStep decides what follows the analysis a of step (an index into
// spec.Steps) whose window ended, extended extensions times already: a
// step without enough samples is extended up to maxExtensions times, then
// passes or fails as onInsufficientSamples says; a step that passed leads
// to the next, or to the promotion after the last; a step that failed
// holds the rollout with onFailure Pause, and rolls it back otherwise.
func decideStep(spec *v1alpha1.Rollout, step int, extensions int32, a analysis) stepDecision {
	b := boundsOf(spec.Analysis)
	n := step + 1
	pass := stepNext
	if n >= len(spec.Steps) {
		pass = stepPromote
	}
	failed := a.failed
	switch a.verdict {
	case verdictPass:
		return stepDecision{pass, fmt.Sprintf("step %d passed its analysis", n)}
	case verdictInsufficient:
		switch {
		case int64(extensions) < b.maxExtensions:
			return stepDecision{stepExtend, fmt.Sprintf("step %d extended (%d of %d): fewer than %d samples", n, extensions+1, b.maxExtensions, b.minSamples)}
		case b.passInsufficient:
			return stepDecision{pass, fmt.Sprintf("step %d passed with fewer than %d samples (onInsufficientSamples: Pass)", n, b.minSamples)}
		}
		failed = fmt.Sprintf("fewer than %d samples after %d extensions of step %d (onInsufficientSamples: Fail)", b.minSamples, extensions, n)
	}
	if spec.OnFailure == v1alpha1.RolloutPause {
		return stepDecision{stepHold, fmt.Sprintf("paused at step %d: %s", n, failed)}
	}
	return stepDecision{stepRollBack, failed}
}

// decideLook decides what a look at a running step (lookAt) does: nothing
// while no failure is certain (false); else the rollout holds with
// onFailure Pause and is rolled back otherwise, as at a step's end.
func decideLook(spec *v1alpha1.Rollout, step int, a analysis) (stepDecision, bool) {
	if a.verdict != verdictFail {
		return stepDecision{}, false
	}
	if spec.OnFailure == v1alpha1.RolloutPause {
		return stepDecision{stepHold, fmt.Sprintf("paused at step %d: %s", step+1, a.failed)}, true
	}
	return stepDecision{stepRollBack, a.failed}, true
}

// analyzeStep is the verdict on run's step at now, beside the analysis it
// rests on: once the step's window ended (final), the whole window is
// judged (analyze) and decideStep says what follows; while it runs, a
// look (lookAt) acts only on a failure that is certain (decideLook; false
// while the step goes on). The step's own metrics, measured when due
// (measureMetrics), are judged beside the built-in ones (judgeMetrics).
func analyzeStep(ctx context.Context, q MetricsQuerier, spec *v1alpha1.Rollout, run *rolloutRun, w scheduler.RolloutWindow, vars metricVars, now time.Time, final bool) (stepDecision, bool) {
	step := run.current()
	var a analysis
	if final {
		a = analyze(spec.Analysis, step.shadow, w)
	} else {
		a = lookAt(spec.Analysis, step.shadow, w, looksIn(run.stepEnds.Sub(run.stepStarted), run.lookEvery))
		run.looks++
		run.lastLook = now
	}
	measureMetrics(ctx, q, spec.Analysis, run.custom, vars, run.stepStarted, now, final)
	a = a.with(judgeMetrics(analysis{}, spec.Analysis, run.custom, final))
	run.analysis = a.metrics
	if final {
		return decideStep(spec, run.step, run.extensions, a), true
	}
	return decideLook(spec, run.step, a)
}

// with adds own, the judgement of the step's own metrics, to a: their
// results after the built-in ones', and their failure when a has none.
func (a analysis) with(own analysis) analysis {
	a.metrics = append(a.metrics, own.metrics...)
	if len(own.why) > 0 && a.why == nil {
		a.why = map[string]string{}
	}
	maps.Copy(a.why, own.why)
	if own.verdict == verdictFail && a.verdict != verdictFail {
		a.verdict, a.failed = verdictFail, own.failed
	}
	return a
}

// lookInterval is how often a running step is looked at: the analysis'
// interval, or a metric's when it is shorter.
func lookInterval(a *v1alpha1.RolloutAnalysis) time.Duration {
	b := boundsOf(a)
	d := b.interval
	if a != nil {
		for _, m := range a.Metrics {
			d = min(d, metricInterval(m, b))
		}
	}
	return d
}

// metricInterval is how often m is measured: its interval, or the
// analysis'.
func metricInterval(m v1alpha1.AnalysisMetric, b analysisBounds) time.Duration {
	if m.Interval != nil && m.Interval.Duration > 0 {
		return m.Interval.Duration
	}
	return b.interval
}

// measureMetrics takes the measurements of spec.rollout.analysis.metrics
// that are due at now (each every its interval from the step's start;
// every one when final, at the step's end) into runs. The queries run at
// once, so that a reconcile waits on Prometheus for at most one
// measurement's timeout, however many metrics are due.
func measureMetrics(ctx context.Context, q MetricsQuerier, a *v1alpha1.RolloutAnalysis, runs metricRuns, vars metricVars, stepStarted, now time.Time, final bool) {
	if a == nil {
		return
	}
	b := boundsOf(a)
	var wg sync.WaitGroup
	for _, m := range a.Metrics {
		mr := runs[m.Name]
		if mr == nil {
			mr = &metricRun{last: stepStarted}
			runs[m.Name] = mr
		}
		every := metricInterval(m, b)
		if !final && now.Sub(mr.last) < every {
			continue
		}
		wg.Go(func() {
			value, ok, err := measure(ctx, q, m, vars.expand(m.Query), min(every, maxMeasureTimeout), now)
			mr.record(m, value, ok, err, now)
		})
	}
	wg.Wait()
}

// latencyFloor is the least p99 latency compared: below it, a cycle's
// latency varies with the machine's load more than with the policy, and
// a canary's few samples would swing the ratio.
const latencyFloor = 100 * time.Millisecond

// unschedulableFloor is added to both unschedulable rates before they are
// compared.
const unschedulableFloor = 0.1

func rate(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func judge(enough, ok bool) string {
	switch {
	case !ok && enough:
		return verdictFail
	case !enough:
		return verdictInsufficient
	}
	return verdictPass
}

func ratio(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func duration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	return d.Round(time.Millisecond).String()
}
