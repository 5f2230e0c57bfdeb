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
	"math"
	"strings"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// writeTargets checks the figures against the project's targets: ratios
// ours/upstream per case, placement agreement, and the swap storm.
func (r *Report) writeTargets(b *strings.Builder, cases []string) {
	type check struct {
		what, target, got string
		ok                bool
	}
	var checks []check
	ok := func(a, b *harness.Run) bool { return a != nil && b != nil && a.Error == "" && b.Error == "" }
	throughput := func(r *harness.Run) float64 { return r.Throughput.Average }
	p99 := func(r *harness.Run) float64 { return r.LatencyMillis.P99 }
	for _, c := range cases {
		up, ours := r.pick(c, harness.Upstream), r.pick(c, harness.Ours)
		if ok(up.thr, ours.thr) {
			v := stats.Ratio(throughput(ours.thr), throughput(up.thr))
			checks = append(checks, check{c + ": throughput ours/upstream", ">= 1.0", r.withRange(v, c, harness.ModeThroughput, throughput), v >= 1})
		}
		if ok(up.lat, ours.lat) {
			v := stats.Ratio(p99(ours.lat), p99(up.lat))
			checks = append(checks, check{c + ": p99 latency ours/upstream", "<= 1.0", r.withRange(v, c, harness.ModeLatency, p99), v <= 1})
		}
		if ok(up.thr, ours.thr) {
			v := stats.Ratio(cpuPerPod(ours.thr), cpuPerPod(up.thr))
			checks = append(checks, check{c + ": CPU per pod ours/upstream", "<= 1.1", r.withRange(v, c, harness.ModeThroughput, cpuPerPod), v <= 1.1})
		}
	}
	for _, c := range cases {
		if a, ok := r.Agreement[c]; ok {
			checks = append(checks, check{c + ": placement agreement", "100%", fmt.Sprintf("%.1f%%", 100*a.Share()), a.Compared > 0 && a.Same == a.Compared && a.Missing == 0})
		}
	}
	if s := r.swap(harness.Ours); s != nil && s.Error == "" {
		checks = append(checks,
			check{"swap: apply→Ready p99", "< 200 ms", fmt.Sprintf("%.0f ms", s.ApplyToReadyMillis.P99), s.ApplyToReadyMillis.N > 0 && s.ApplyToReadyMillis.P99 < 200},
			check{"swap: longest gap with no bind", "< 1 s", fmt.Sprintf("%.0f ms", s.LongestGapMillis), s.LongestGapMillis < 1000},
			check{"swap: pods lost / bound twice", "0 / 0", fmt.Sprintf("%d / %d", s.Lost, s.DoubleBound), s.Lost == 0 && s.DoubleBound == 0 && len(s.Overcommitted) == 0})
		if u := r.swap(harness.Upstream); u != nil {
			checks = append(checks, check{"swap: upstream restart gap (for comparison)", "reported", fmt.Sprintf("%.0f ms", u.LongestGapMillis), true})
		}
		if u := r.swapLeaderElection(); u != nil {
			checks = append(checks, check{"swap: upstream lease hand-over gap (for comparison)", "reported", fmt.Sprintf("%.0f ms", u.LongestGapMillis), true})
		}
	}
	for _, x := range r.gangChecks(cases) {
		checks = append(checks, check(x))
	}
	for _, x := range r.rolloutChecks() {
		checks = append(checks, check(x))
	}
	for _, x := range r.neighbourChecks(cases) {
		checks = append(checks, check(x))
	}
	for _, x := range r.stormChecks() {
		checks = append(checks, check(x))
	}
	for _, x := range r.coexistChecks() {
		checks = append(checks, check(x))
	}
	for _, x := range r.isolationChecks() {
		checks = append(checks, check(x))
	}
	for _, x := range r.targetRows() {
		checks = append(checks, check(x))
	}
	if len(checks) == 0 {
		return
	}
	b.WriteString("\n## Targets\n\n| check | target | measured | met |\n|---|---|---:|---|\n")
	for _, c := range checks {
		met := "yes"
		if !c.ok {
			met = "**no**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", c.what, c.target, c.got, met)
	}
}

// withRange formats the ratio v of the median runs and, with repeated
// runs, the range of the ratios of runs made back to back (run i of ours
// over run i of upstream): how far one pair of runs can stray.
func (r *Report) withRange(v float64, c string, m harness.Mode, f func(*harness.Run) float64) string {
	out := fmt.Sprintf("%.2f", v)
	if r.Repeat < 2 {
		return out
	}
	byRepeat := map[int]map[string]*harness.Run{}
	for _, run := range r.Runs {
		if run.Case == c && run.Mode == m && run.Error == "" {
			if byRepeat[run.Repeat] == nil {
				byRepeat[run.Repeat] = map[string]*harness.Run{}
			}
			byRepeat[run.Repeat][run.Scheduler] = run
		}
	}
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, pair := range byRepeat {
		up, ours := pair[harness.Upstream], pair[harness.Ours]
		if up == nil || ours == nil || f(up) == 0 {
			continue
		}
		x := stats.Ratio(f(ours), f(up))
		lo, hi, n = min(lo, x), max(hi, x), n+1
	}
	if n < 2 {
		return out
	}
	return fmt.Sprintf("%s (runs %.2f–%.2f)", out, lo, hi)
}

func thr(r *harness.Run) string {
	if r == nil {
		return "–"
	}
	t := r.Throughput
	return fmt.Sprintf("%.1f (%.0f/%.0f/%.0f)", t.Average, t.P50, t.P90, t.P99)
}

func lat(r *harness.Run) string {
	if r == nil {
		return "–"
	}
	l := r.LatencyMillis
	return fmt.Sprintf("%.0f/%.0f/%.0f", l.P50, l.P90, l.P99)
}

func cost(p runs) string {
	cpu := "–"
	if p.thr != nil {
		cpu = fmt.Sprintf("%.2f", 1000*cpuPerPod(p.thr))
	}
	if p.thr == nil && p.lat == nil {
		return "–"
	}
	return fmt.Sprintf("%s / %.0f", cpu, p.peakRSS()/mib)
}

func rssRatio(up, ours runs) string {
	if up.peakRSS() == 0 || ours.peakRSS() == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", stats.Ratio(ours.peakRSS(), up.peakRSS()))
}

func ratio(up, ours *harness.Run, f func(*harness.Run) float64) string {
	if up == nil || ours == nil || f(up) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", stats.Ratio(f(ours), f(up)))
}
