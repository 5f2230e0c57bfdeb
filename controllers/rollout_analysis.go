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
	"fmt"
	"strconv"
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
)

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
)

// analysisBounds are spec.rollout.analysis with its defaults.
type analysisBounds struct {
	maxUnschedulableRatio, maxLatencyRatio, minShadowAgreement float64
	maxErrors, minSamples, maxExtensions                       int64
	passInsufficient                                           bool
}

func boundsOf(a *v1alpha1.RolloutAnalysis) analysisBounds {
	b := analysisBounds{
		maxUnschedulableRatio: defaultMaxUnschedulableRatio,
		maxLatencyRatio:       defaultMaxLatencyRatio,
		minShadowAgreement:    defaultMinShadowAgreement,
		maxErrors:             defaultMaxErrors,
		minSamples:            defaultMinSamples,
		maxExtensions:         defaultMaxExtensions,
	}
	if a == nil {
		return b
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
	// verdict: Pass, Fail or Insufficient.
	verdict string
	// failed names the first metric that failed, with both values.
	failed string
}

// analyze judges a step's window, new generation against serving: in a
// shadow step the share of the pods serving placed that the new one
// finds feasible on the same node; in a canary step the unschedulable
// ratio, the latency p99 ratio and the errors. Errors above the bound
// fail a step however few samples it has; any other metric needs
// minSamples of the new generation's.
func analyze(a *v1alpha1.RolloutAnalysis, shadowStep bool, w scheduler.RolloutWindow) analysis {
	b := boundsOf(a)
	var out analysis
	add := func(m v1alpha1.RolloutMetric, failed string) {
		out.metrics = append(out.metrics, m)
		if m.Verdict == verdictFail && out.failed == "" {
			out.failed = failed
		}
	}
	if shadowStep {
		sh := w.Shadow
		m := v1alpha1.RolloutMetric{Metric: metricShadowAgreement, Threshold: ">= " + ratio(b.minShadowAgreement),
			Samples: sh.ServingPlaced, ServingSamples: sh.Judged}
		agreement := 1.0
		if sh.ServingPlaced > 0 {
			agreement = float64(sh.FeasibleWhereServingPlaced) / float64(sh.ServingPlaced)
		}
		m.New, m.Serving = ratio(agreement), "1"
		switch {
		case sh.Judged < b.minSamples:
			m.Verdict = verdictInsufficient
		case agreement < b.minShadowAgreement:
			m.Verdict = verdictFail
		default:
			m.Verdict = verdictPass
		}
		add(m, fmt.Sprintf("ShadowAgreement %s < %s: the new generation finds %d of the %d pods the serving one placed feasible on the same node",
			ratio(agreement), ratio(b.minShadowAgreement), sh.FeasibleWhereServingPlaced, sh.ServingPlaced))
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
