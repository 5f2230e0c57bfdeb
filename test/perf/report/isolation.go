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
	"slices"
	"sort"
	"strings"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// IsolationTarget is the least throughput of ours's busy profile with the
// slow profile's pods pending over without them.
const IsolationTarget = 0.9

// isolationSchedulers are the isolation case's rows, in order.
var isolationSchedulers = []string{harness.Upstream, harness.Ours, harness.OursOneLoop}

// isolationRuns are the runs of setup on scheduler s.
func (r *Report) isolationRuns(s string, setup harness.IsolationSetup) []*harness.IsolationRun {
	var out []*harness.IsolationRun
	for _, run := range r.Isolations {
		if run != nil && run.Scheduler == s && run.IsolationSetup == setup {
			out = append(out, run)
		}
	}
	return out
}

// isolationMedian is the median of runs, as find picks one: by pods/s in
// a throughput run, by p99 latency in a latency run (the lower middle one
// of an even count), runs that failed counting as the worst; nil without
// a run that measured.
func isolationMedian(runs []*harness.IsolationRun) *harness.IsolationRun {
	var ok []*harness.IsolationRun
	for _, run := range runs {
		if run.Measured != nil {
			ok = append(ok, run)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	key := func(run *harness.IsolationRun) float64 {
		switch {
		case run.Error != "":
			return math.Inf(-1)
		case run.Mode == harness.ModeLatency:
			return -run.Measured.LatencyMillis.P99
		default:
			return run.Measured.Throughput.Average
		}
	}
	sort.SliceStable(ok, func(i, j int) bool { return key(ok[i]) < key(ok[j]) })
	return ok[(len(ok)-1)/2]
}

// IsolationPair is the busy profile's median runs of one variant and mode
// on one scheduler, without the slow profile's pods and with them.
type IsolationPair struct{ Alone, With *harness.IsolationRun }

// isolationPair picks the pair of scheduler s in variant and mode.
func (r *Report) isolationPair(s string, variant harness.IsolationVariant, mode harness.Mode) IsolationPair {
	setup := harness.IsolationSetup{Part: harness.PartExtender, Variant: variant, Mode: mode}
	alone := isolationMedian(r.isolationRuns(s, setup))
	setup.WithSlow = true
	return IsolationPair{Alone: alone, With: isolationMedian(r.isolationRuns(s, setup))}
}

// Ratio is f of the run with over f of the run alone; NaN unless both
// measured without error and f alone is above 0.
func (p IsolationPair) Ratio(f func(*harness.Run) float64) float64 {
	if p.Alone == nil || p.With == nil || p.Alone.Error != "" || p.With.Error != "" || f(p.Alone.Measured) <= 0 {
		return math.NaN()
	}
	return stats.Ratio(f(p.With.Measured), f(p.Alone.Measured))
}

func podsPerSecond(r *harness.Run) float64 { return r.Throughput.Average }
func p99Latency(r *harness.Run) float64    { return r.LatencyMillis.P99 }

// fmtRatio is "–" for NaN, whole from 100 up (a latency stretched a
// thousandfold).
func fmtRatio(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// measuredOf formats f of run's measured pods, "–" without.
func measuredOf(run *harness.IsolationRun, format string, f func(*harness.Run) float64) string {
	if run == nil || run.Measured == nil {
		return "–"
	}
	return fmt.Sprintf(format, f(run.Measured))
}

// slowOf says how A's pods fared in run.
func slowOf(run *harness.IsolationRun) string {
	if run == nil || run.Slow == nil {
		return "–"
	}
	s := run.Slow
	return fmt.Sprintf("%d/%d in %.1f s (%d calls)", s.Bound, s.Pods, s.Seconds, s.ExtenderCalls)
}

// writeIsolation writes the isolation case's section: the busy profile
// beside the slow one, per variant and scheduler, then the several
// profiles at once.
func (r *Report) writeIsolation(b *strings.Builder) {
	if len(r.Isolations) == 0 && len(r.IsolationNotes) == 0 {
		return
	}
	var cases []string
	for _, run := range r.Isolations {
		if run != nil && !slices.Contains(cases, run.Case) {
			cases = append(cases, run.Case)
		}
	}
	p := map[string]int{}
	if len(cases) > 0 {
		p = r.Params[cases[0]]
	}
	b.WriteString("## Profile isolation (isolation)\n\n")
	b.WriteString("One scheduler process serving several profiles. Upstream kube-scheduler has one scheduling queue and loop for all its profiles; " +
		"ours has one loop per profile (`--profile-loops`, on by default), and `ours-one-loop` is ours with `--profile-loops=false`.\n\n")
	var notes []string
	notes = append(notes, r.IsolationNotes...)
	if n := r.isolationShortSteps(); n != "" {
		notes = append(notes, n)
	}
	for _, run := range r.Isolations {
		if n := isolationNote(run, r.Repeat > 1); n != "" {
			notes = append(notes, n)
		}
	}
	if slices.ContainsFunc(r.Isolations, func(run *harness.IsolationRun) bool { return run != nil && run.Part == harness.PartExtender }) {
		fmt.Fprintf(b, "### A slow extender beside a busy profile\n\n"+
			"Profile A calls an HTTP extender served by the harness whose filter answers after %d ms (httpTimeout %d ms); profile B calls none. "+
			"A's %d pods ask for `example.com/slow`, the extender's one managed resource, so that upstream's extender, which is global, is asked about A's pods only "+
			"(ours's is an ExtenderConfig that A's profile names). A's pods are created first, then B's %d: in the throughput run all of them while the scheduler is stopped, "+
			"B's pods/s from the resume to B's last bind; in the latency run B's at %d/s once the extender has been called, creation to bind p99. "+
			"Alone: A's profile served, none of its pods. Shared: A's pods on B's %d nodes; disjoint: on %d nodes of their own. "+
			"B's CPU: the scheduler's CPU from the resume to B's last bind, per B's pod. A's pods: bound in the throughput run, from the resume to A's last bind, and the extender's calls. "+
			"The median run of each (by pods/s, by p99).\n\n",
			p["delayMillis"], p["httpTimeoutMillis"], p["slowPods"], p["pods"], p["rate"], p["nodes"], p["slowNodes"])
		b.WriteString("| A's pods on | scheduler | B pods/s alone | B pods/s with A | with/alone | B p99 ms alone | B p99 ms with A | with/alone | B CPU ms per pod alone / with A | A's pods |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, v := range harness.IsolationVariants {
			for _, s := range isolationSchedulers {
				thr, lat := r.isolationPair(s, v, harness.ModeThroughput), r.isolationPair(s, v, harness.ModeLatency)
				if thr.Alone == nil && thr.With == nil && lat.Alone == nil && lat.With == nil {
					continue
				}
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |\n", v, s,
					measuredOf(thr.Alone, "%.1f", podsPerSecond), measuredOf(thr.With, "%.1f", podsPerSecond), fmtRatio(thr.Ratio(podsPerSecond)),
					measuredOf(lat.Alone, "%.0f", p99Latency), measuredOf(lat.With, "%.0f", p99Latency), fmtRatio(lat.Ratio(p99Latency)),
					measuredOf(thr.Alone, "%.2f", perPodMillis), measuredOf(thr.With, "%.2f", perPodMillis), slowOf(thr.With))
			}
		}
		b.WriteString("\n")
	}
	if slices.ContainsFunc(r.Isolations, func(run *harness.IsolationRun) bool { return run != nil && run.Part == harness.PartProfiles }) {
		fmt.Fprintf(b, "### Several profiles at once\n\n"+
			"%d profiles of %d pods each, each profile's pods on a pool of %d nodes of its own, created interleaved while the scheduler is stopped: "+
			"pods/s of all of them from the resume to the last bind (average, p50/p90/p99 of 1 s windows), each profile's own pods/s (the slowest and the fastest), "+
			"the scheduler's CPU per pod. The median run by pods/s.\n\n", p["profiles"], p["podsEach"], p["poolNodes"])
		b.WriteString("| scheduler | pods bound | pods/s avg (p50/p90/p99) | one profile's pods/s, slowest–fastest | CPU ms per pod | pods/s vs upstream | CPU per pod vs upstream |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
		setup := harness.IsolationSetup{Part: harness.PartProfiles, Mode: harness.ModeThroughput}
		up := isolationMedian(r.isolationRuns(harness.Upstream, setup))
		for _, s := range isolationSchedulers {
			run := isolationMedian(r.isolationRuns(s, setup))
			if run == nil {
				continue
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, f := range run.Profiles {
				lo, hi = min(lo, f.PodsPerSecond), max(hi, f.PodsPerSecond)
			}
			spread := "–"
			if len(run.Profiles) > 0 {
				spread = fmt.Sprintf("%.1f–%.1f", lo, hi)
			}
			var upRun *harness.Run
			if up != nil {
				upRun = up.Measured
			}
			fmt.Fprintf(b, "| %s | %d / %d | %s | %s | %s | %s | %s |\n", s, run.Measured.Bound, run.Measured.MeasuredPods, thr(run.Measured), spread,
				perPod(run.Measured), ratio(upRun, run.Measured, podsPerSecond), ratio(upRun, run.Measured, cpuPerPod))
		}
		b.WriteString("\n")
	}
	writeNotes(b, notes)
}

func perPodMillis(r *harness.Run) float64 { return 1000 * cpuPerPod(r) }

// isolationShortSteps notes the throughput runs whose measured pods were
// all bound in less than MinStepSeconds from the resume, as shortSteps
// does for the other cases: B's pods alone drain in a few seconds.
func (r *Report) isolationShortSteps() string {
	if r.MinStepSeconds <= 0 {
		return ""
	}
	n, total, shortest, c := 0, 0, math.Inf(1), ""
	for _, run := range r.Isolations {
		if run == nil || run.Measured == nil || run.Mode != harness.ModeThroughput || run.Measured.Bound == 0 {
			continue
		}
		total, c = total+1, run.Case
		if s := run.Measured.MeasureSeconds; s < r.MinStepSeconds {
			n, shortest = n+1, min(shortest, s)
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d of %d throughput steps lasted under %.0f s (shortest %.1f s): add pods (-set %s.pods=N, %s.podsEach=N) for steadier figures",
		c, n, total, r.MinStepSeconds, shortest, c, c)
}

// isolationNote says what went wrong in run, "" when nothing did.
func isolationNote(run *harness.IsolationRun, repeated bool) string {
	if run == nil {
		return ""
	}
	name := fmt.Sprintf("%s %s/%s", run.Case, run.IsolationSetup, run.Scheduler)
	if repeated {
		name += fmt.Sprintf(" run %d", run.Repeat)
	}
	var parts []string
	if run.Error != "" {
		parts = append(parts, "error: "+run.Error)
	}
	if m := run.Measured; m != nil {
		if m.Bound != m.MeasuredPods {
			parts = append(parts, fmt.Sprintf("%d of %d measured pods bound", m.Bound, m.MeasuredPods))
		}
		if m.DoubleBound > 0 {
			parts = append(parts, fmt.Sprintf("%d pods bound twice", m.DoubleBound))
		}
		if len(m.Overcommitted) > 0 {
			parts = append(parts, fmt.Sprintf("%d nodes overcommitted", len(m.Overcommitted)))
		}
	}
	if s := run.Slow; s != nil && s.Bound != s.Pods {
		parts = append(parts, fmt.Sprintf("%d of A's %d pods bound", s.Bound, s.Pods))
	}
	if len(parts) == 0 {
		return ""
	}
	return name + ": " + strings.Join(parts, "; ")
}

// isolationChecks are the isolation case's rows of the targets table:
// ours's busy profile with the slow one's pods over alone, per variant
// (upstream's and ours-one-loop's beside it, for comparison), and the
// several profiles' throughput and CPU against upstream's.
func (r *Report) isolationChecks() []targetRow {
	var out []targetRow
	for _, v := range harness.IsolationVariants {
		for _, s := range isolationSchedulers {
			x := r.isolationPair(s, v, harness.ModeThroughput).Ratio(podsPerSecond)
			if math.IsNaN(x) {
				continue
			}
			row := targetRow{fmt.Sprintf("isolation %s: %s, B's throughput with A's pods / alone", v, s), "reported", fmt.Sprintf("%.2f", x), true}
			if s == harness.Ours {
				row.target, row.ok = fmt.Sprintf(">= %.1f", IsolationTarget), x >= IsolationTarget
			}
			out = append(out, row)
		}
	}
	setup := harness.IsolationSetup{Part: harness.PartProfiles, Mode: harness.ModeThroughput}
	up, ours := isolationMedian(r.isolationRuns(harness.Upstream, setup)), isolationMedian(r.isolationRuns(harness.Ours, setup))
	if up != nil && ours != nil && up.Error == "" && ours.Error == "" && up.Measured.Throughput.Average > 0 {
		v := stats.Ratio(ours.Measured.Throughput.Average, up.Measured.Throughput.Average)
		c := stats.Ratio(cpuPerPod(ours.Measured), cpuPerPod(up.Measured))
		out = append(out,
			targetRow{"isolation profiles: throughput ours/upstream", ">= 1.0", fmt.Sprintf("%.2f", v), v >= 1},
			targetRow{"isolation profiles: CPU per pod ours/upstream", "<= 1.1", fmt.Sprintf("%.2f", c), c <= 1.1})
	}
	return out
}
