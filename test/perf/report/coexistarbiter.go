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

package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// ArbiterThroughputTarget is the least throughput of each scheduler with
// the bind arbiter over without it, in the coexist cases.
const ArbiterThroughputTarget = 0.9

// arbiterPairs are the coexist setups compared with the arbiter and
// without: the same schedulers, the arbiter added.
var arbiterPairs = []setupPair{
	{harness.SetupTwoUpstream, harness.SetupTwoUpstreamArbiter},
	{harness.SetupCheck, harness.SetupCheckArbiter},
}

// setupPair is two coexist setups compared, each scheduler's throughput
// with over without.
type setupPair struct{ without, with harness.CoexistSetup }

// webhookPairs split the arbiter's price beside two kube-schedulers: a
// webhook on binds that admits at once over none (what any bind webhook
// costs), and the arbiter over that webhook (what judging adds). Reported
// beside the arbiter's pairs, not targets.
var webhookPairs = []setupPair{
	{harness.SetupTwoUpstream, harness.SetupTwoUpstreamWebhook},
	{harness.SetupTwoUpstreamWebhook, harness.SetupTwoUpstreamArbiter},
}

// coexistRuns are the runs of case c in setup that did not fail.
func (r *Report) coexistRuns(c string, setup harness.CoexistSetup) []*harness.CoexistRun {
	var out []*harness.CoexistRun
	for _, run := range r.Coexists {
		if run != nil && run.Case == c && run.Setup == setup && run.Error == "" {
			out = append(out, run)
		}
	}
	return out
}

// coexistCases are the coexist cases, in the order of their runs.
func (r *Report) coexistCases() []string {
	var cases []string
	for _, run := range r.Coexists {
		if run != nil && !slices.Contains(cases, run.Case) {
			cases = append(cases, run.Case)
		}
	}
	return cases
}

// bindSide picks one scheduler's figures of a coexist run.
type bindSide struct {
	name string
	of   func(*harness.CoexistRun) harness.BindFigures
}

func coexistSides(pair harness.CoexistSetup) []bindSide {
	second := "profile-scheduler"
	if pair == harness.SetupTwoUpstream || pair == harness.SetupTwoUpstreamWebhook {
		second = "second kube-scheduler"
	}
	return []bindSide{
		{"kube-scheduler", func(run *harness.CoexistRun) harness.BindFigures { return run.First }},
		{second, func(run *harness.CoexistRun) harness.BindFigures { return run.Second }},
	}
}

// medianOf is the median of f over runs (0 for none).
func medianOf(runs []*harness.CoexistRun, f func(*harness.CoexistRun) float64) float64 {
	if len(runs) == 0 {
		return 0
	}
	xs := make([]float64, len(runs))
	for i, run := range runs {
		xs[i] = f(run)
	}
	return median(xs)
}

// arbiterRatio is the median throughput of side with the arbiter over the
// median without, and how many runs each had.
func arbiterRatio(without, with []*harness.CoexistRun, side bindSide) (v float64, n int) {
	thr := func(run *harness.CoexistRun) float64 { return side.of(run).PodsPerSecond }
	if len(without) == 0 || len(with) == 0 {
		return 0, 0
	}
	return stats.Ratio(medianOf(with, thr), medianOf(without, thr)), min(len(without), len(with))
}

// writeCoexistArbiter writes, under the coexist table, each scheduler's
// binds with the arbiter and without, and what the arbiter cost.
func (r *Report) writeCoexistArbiter(b *strings.Builder) {
	cases := r.coexistCases()
	var rows []string
	for _, c := range cases {
		for _, p := range append(slices.Clone(arbiterPairs), webhookPairs...) {
			without, with := r.coexistRuns(c, p.without), r.coexistRuns(c, p.with)
			if len(without) == 0 || len(with) == 0 {
				continue
			}
			for _, side := range coexistSides(p.without) {
				v, _ := arbiterRatio(without, with, side)
				f := func(runs []*harness.CoexistRun, g func(harness.BindFigures) float64) float64 {
					return medianOf(runs, func(run *harness.CoexistRun) float64 { return g(side.of(run)) })
				}
				thr := func(x harness.BindFigures) float64 { return x.PodsPerSecond }
				p50 := func(x harness.BindFigures) float64 { return x.LatencyMillis.P50 }
				p99 := func(x harness.BindFigures) float64 { return x.LatencyMillis.P99 }
				bound := func(x harness.BindFigures) float64 { return float64(x.Bound) }
				rows = append(rows, fmt.Sprintf("| %s | %s / %s | %s | %.0f / %.0f | %.1f / %.1f | %.2f | %.0f / %.0f | %.0f / %.0f |", c, p.without, p.with, side.name,
					f(without, bound), f(with, bound), f(without, thr), f(with, thr), v, f(without, p50), f(with, p50), f(without, p99), f(with, p99)))
			}
		}
	}
	if len(rows) > 0 {
		b.WriteString("### With the bind arbiter and without\n\n")
		b.WriteString("Each scheduler's binds in the same run: pods bound, pods bound per second from the first create to its last bind, " +
			"and creation to bind (both seen by the pod watch) p50 and p99; without / with the arbiter, the median over the runs " +
			"(with several; the lower middle one of an even count, as elsewhere; every run is in report.json). The operator serving the arbiter runs with its CPU profiled and its metrics served in the runs with it. " +
			"Beside two kube-schedulers, two more rows split the arbiter's price: `two-upstream-webhook` has a webhook on binds that admits each at once (served by the harness), what any bind webhook costs; " +
			"the arbiter over it is what judging adds.\n\n")
		b.WriteString("| case | setups without / with | scheduler | bound | pods/s | with/without | latency p50 ms | latency p99 ms |\n")
		b.WriteString("|---|---|---|---:|---:|---:|---:|---:|\n")
		b.WriteString(strings.Join(rows, "\n") + "\n\n")
	}

	rows = rows[:0]
	for _, c := range cases {
		for _, setup := range harness.CoexistSetups {
			if !setup.Arbitrated() {
				continue
			}
			for _, run := range r.coexistRuns(c, setup) {
				a := run.Arbiter
				if a == nil {
					continue
				}
				rows = append(rows, fmt.Sprintf("| %s | %s | %d | %.0f (%.0f) | %.0f | %.1f | %.3f / %.2f | %.1f | %.0f |", c, setup, run.Repeat,
					a.Judged, a.Refused, a.Unjudged, a.DecisionMicros, a.DecisionCPUSeconds, a.CPUSeconds, a.DecisionCPUMicrosPerBind(), a.ProcessCPUMicrosPerBind()))
			}
		}
	}
	if len(rows) > 0 {
		b.WriteString("### What the bind arbiter cost\n\n")
		b.WriteString("From the operator that serves the arbiter, from the first create to the end of the run: binds judged (refused), " +
			"binds admitted unjudged, a decision's mean time (its histogram), the CPU its profile labels `work=arbiter` " +
			"(the decisions; scaled to the process's CPU from /proc) over the operator's whole CPU, and both per bind asked about. " +
			"Beside two kube-schedulers the operator serves the arbiter alone: its whole CPU per bind is what the arbiter costs " +
			"in all (TLS, JSON, its informers, idle time included).\n\n")
		b.WriteString("| case | setup | run | judged (refused) | unjudged | decision µs | decision / operator CPU s | decision CPU µs per bind | operator CPU µs per bind |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
		b.WriteString(strings.Join(rows, "\n") + "\n\n")
	}
}

// coexistChecks are the coexist cases' rows of the targets table: with
// the arbiter, no node overcommitted and no pod over capacity in any
// run, and each scheduler's throughput with it over without.
func (r *Report) coexistChecks() []targetRow {
	var checks []targetRow
	for _, c := range r.coexistCases() {
		for _, setup := range harness.CoexistSetups {
			if !setup.Arbitrated() {
				continue
			}
			var nodes, pods, n, failed int
			for _, run := range r.Coexists {
				if run == nil || run.Case != c || run.Setup != setup {
					continue
				}
				if run.Error != "" {
					failed++
					continue
				}
				n++
				nodes += run.OvercommittedNodes
				pods += run.PodsOver
			}
			if n+failed == 0 {
				continue
			}
			checks = append(checks, targetRow{
				what:   fmt.Sprintf("%s %s: overcommitted nodes / pods over capacity, every run", c, setup),
				target: "0 / 0",
				got:    fmt.Sprintf("%d / %d (%d runs, %d failed)", nodes, pods, n, failed),
				ok:     n > 0 && failed == 0 && nodes == 0 && pods == 0,
			})
		}
		for _, p := range arbiterPairs {
			without, with := r.coexistRuns(c, p.without), r.coexistRuns(c, p.with)
			for _, side := range coexistSides(p.without) {
				v, n := arbiterRatio(without, with, side)
				if n == 0 {
					continue
				}
				checks = append(checks, targetRow{
					what:   fmt.Sprintf("%s %s: %s throughput with the arbiter / without", c, p.with, side.name),
					target: fmt.Sprintf(">= %.1f", ArbiterThroughputTarget),
					got:    fmt.Sprintf("%.2f", v),
					ok:     v >= ArbiterThroughputTarget,
				})
			}
		}
		for _, setup := range []harness.CoexistSetup{harness.SetupTwoUpstreamArbiter, harness.SetupCheckArbiter} {
			var per []float64
			for _, run := range r.coexistRuns(c, setup) {
				if v := run.Arbiter.DecisionCPUMicrosPerBind(); v > 0 {
					per = append(per, v)
				}
			}
			if len(per) > 0 {
				checks = append(checks, targetRow{
					what:   fmt.Sprintf("%s %s: the admission decision's CPU per bind", c, setup),
					target: "reported",
					got:    fmt.Sprintf("%.0f µs (median of %d)", median(per), len(per)),
					ok:     true,
				})
			}
		}
	}
	return checks
}
