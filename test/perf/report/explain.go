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
	"strings"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// ExplainTarget is the least throughput with reviews beside the run, as a
// share of the throughput without.
const ExplainTarget = 0.95

// targetRow is one row of the targets table (see writeTargets).
type targetRow struct {
	what, target, got string
	ok                bool
}

// ExplainRatio compares the throughput runs with reviews to those without:
// the median average throughput with over the median without, and the
// lowest and highest ratio of a pair made back to back. n counts the pairs
// compared (both runs present, without error, the one without above 0);
// with none, ratio is NaN.
func ExplainRatio(pairs []harness.ExplainPair) (ratio, lo, hi float64, n int) {
	var with, without []float64
	for _, p := range pairs {
		if bothRan(p.Without, p.With) {
			with, without = append(with, p.With.Throughput.Average), append(without, p.Without.Throughput.Average)
		}
	}
	return pairRatio(with, without)
}

// bothRan says whether both runs of a pair are there, without error.
func bothRan(without, with *harness.Run) bool {
	return with != nil && without != nil && with.Error == "" && without.Error == ""
}

// pairRatio is the median of with over the median of without, and the
// lowest and highest with/without of a pair; pairs whose without is not
// above 0 are left out, n counts the others. With none, ratio is NaN.
func pairRatio(with, without []float64) (ratio, lo, hi float64, n int) {
	var w, wo []float64
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range with {
		if without[i] <= 0 {
			continue
		}
		w, wo = append(w, with[i]), append(wo, without[i])
		x := with[i] / without[i]
		lo, hi, n = min(lo, x), max(hi, x), n+1
	}
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), 0
	}
	return stats.Percentile(w, 50) / stats.Percentile(wo, 50), lo, hi, n
}

// ScenarioCPUTarget is the most CPU per pod the live cycle may spend with
// a capacity scenario beside it, as a multiple of what it spends without.
const ScenarioCPUTarget = 1.05

// Ratio is a pairRatio.
type Ratio struct {
	V, Lo, Hi float64
	N         int
}

// String writes the ratio and, over several pairs, their range.
func (x Ratio) String() string {
	switch {
	case x.N > 1:
		return fmt.Sprintf("%.2f (pairs %.2f–%.2f)", x.V, x.Lo, x.Hi)
	case x.N == 1:
		return fmt.Sprintf("%.2f", x.V)
	}
	return "–"
}

// ScenarioRatios compares the scenario pairs' runs with a scenario beside
// to those without (pairRatio): average throughput, p99 scheduling
// latency and the live cycle's CPU per pod. A pair counts when both runs
// are there without error, and for CPU when both were profiled.
func ScenarioRatios(pairs []harness.ScenarioPair) (thr, p99, cpu Ratio) {
	var v [3][2][]float64
	add := func(i int, with, without float64) {
		v[i][0], v[i][1] = append(v[i][0], with), append(v[i][1], without)
	}
	for _, p := range pairs {
		if !bothRan(p.Without, p.With) {
			continue
		}
		add(0, p.With.Throughput.Average, p.Without.Throughput.Average)
		add(1, p.With.LatencyMillis.P99, p.Without.LatencyMillis.P99)
		if w, wo := profileOK(p.WithProfile), profileOK(p.WithoutProfile); w != nil && wo != nil && w.LiveCPUMillisPerPod > 0 && wo.LiveCPUMillisPerPod > 0 {
			add(2, p.WithProfile.LiveCPUMillisPerPod, p.WithoutProfile.LiveCPUMillisPerPod)
		}
	}
	out := [3]Ratio{}
	for i := range out {
		x := &out[i]
		x.V, x.Lo, x.Hi, x.N = pairRatio(v[i][0], v[i][1])
	}
	return out[0], out[1], out[2]
}

func (r *Report) explain() *harness.ExplainRun {
	for _, x := range r.Explains {
		if x != nil && x.Scheduler == harness.Ours {
			return x
		}
	}
	return nil
}

// writeExplain writes the SchedulingReview tables.
func (r *Report) writeExplain(b *strings.Builder) {
	x := r.explain()
	if x == nil {
		return
	}
	b.WriteString("## SchedulingReview (explain)\n\n")
	b.WriteString("profile-scheduler only: upstream kube-scheduler has no SchedulingReview, so nothing is compared with it. " +
		"Answer time: reviews of one pod (spec.podTemplate) created one at a time once the case's other pods are bound, " +
		"from the create request to the watch showing the Complete condition. ")
	fmt.Fprintf(b, "Throughput: the case's throughput run (pods created while the scheduler is stopped, then drained), "+
		"without reviews and with %.0f reviews/s created from the resume to the last bind, back to back in this run.\n\n", x.Rate)
	if len(x.Sizes) > 0 {
		b.WriteString("| nodes | reviews | complete / failed / unanswered | create→Complete ms p50 / p90 / p99 / max | CPU ms per review: kube-apiserver / etcd / profile-scheduler |\n|---:|---:|---:|---:|---:|\n")
		for _, s := range x.Sizes {
			c, m, cpu := s.Reviews, s.Millis, s.CPUMillisPerReview
			fmt.Fprintf(b, "| %d | %d | %d / %d / %d | %.0f / %.0f / %.0f / %.0f | %.1f / %.1f / %.1f |\n",
				s.Nodes, c.Created, c.Complete, c.Failed, c.Unanswered, m.P50, m.P90, m.P99, m.Max, cpu.APIServer, cpu.Etcd, cpu.Scheduler)
		}
		b.WriteString("\n")
		if slices.ContainsFunc(x.Sizes, func(s harness.ReviewLatency) bool { return s.Scenarios != nil }) {
			b.WriteString("Capacity scenarios, one at a time after the reviews, create→Complete: a drain of every tenth node (its pods placed again), " +
				"and a minimize search for the nodes of a new pool that 50 one-CPU pods need (max 100).\n\n")
			b.WriteString("| nodes | scenario | complete / failed / unanswered | create→Complete ms p50 / p99 / max |\n|---:|---|---:|---:|\n")
			for _, s := range x.Sizes {
				if s.Scenarios == nil {
					continue
				}
				for _, k := range []struct {
					what string
					t    harness.ReviewTimes
				}{{"drain 10%", s.Scenarios.Drain}, {"minimize", s.Scenarios.Minimize}} {
					c, m := k.t.Reviews, k.t.Millis
					fmt.Fprintf(b, "| %d | %s | %d / %d / %d | %.0f / %.0f / %.0f |\n", s.Nodes, k.what, c.Complete, c.Failed, c.Unanswered, m.P50, m.P99, m.Max)
				}
			}
			b.WriteString("\n")
		}
	}
	if len(x.Pairs) > 0 {
		fmt.Fprintf(b, "| pair | pods | without reviews pods/s avg (p50/p90/p99) | with %.0f reviews/s pods/s avg (p50/p90/p99) | with/without | CPU ms per pod without / with | reviews created / complete / failed | review ms p50 / p99 beside the run |\n", x.Rate)
		b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for i, p := range x.Pairs {
			pods := pairPods(p.Without, p.With)
			fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %s / %s | %d / %d / %d | %.0f / %.0f |\n", i+1, pods,
				thr(p.Without), thr(p.With), ratio(p.Without, p.With, func(r *harness.Run) float64 { return r.Throughput.Average }),
				cpuCell(p.Without), cpuCell(p.With),
				p.Reviews.Created, p.Reviews.Complete, p.Reviews.Failed, p.Millis.P50, p.Millis.P99)
		}
		b.WriteString("\n")
	}
	r.writeScenarioPairs(b, x)
	var notes []string
	if x.Error != "" {
		notes = append(notes, "error: "+x.Error)
	}
	for _, s := range x.Sizes {
		if s.Reviews.NoNode > 0 {
			notes = append(notes, fmt.Sprintf("%d nodes: %d reviews named no node", s.Nodes, s.Reviews.NoNode))
		}
		if s.Reviews.FirstFailure != "" {
			notes = append(notes, fmt.Sprintf("%d nodes: failed review %s", s.Nodes, s.Reviews.FirstFailure))
		}
	}
	for i, p := range x.Pairs {
		for _, run := range []*harness.Run{p.Without, p.With} {
			if run != nil {
				if n := runNote(run, false); n != "" {
					notes = append(notes, fmt.Sprintf("pair %d: %s", i+1, n))
				}
			}
		}
		if p.Reviews.FirstFailure != "" {
			notes = append(notes, fmt.Sprintf("pair %d: failed review %s", i+1, p.Reviews.FirstFailure))
		}
	}
	for i, p := range x.ScenarioPairs {
		for _, run := range []*harness.Run{p.Without, p.With} {
			if run != nil {
				if n := runNote(run, false); n != "" {
					notes = append(notes, fmt.Sprintf("scenario pair %d: %s", i+1, n))
				}
			}
		}
		for _, o := range []struct {
			what string
			p    *harness.OperatorProfile
		}{{"without", p.WithoutProfile}, {"with", p.WithProfile}} {
			switch {
			case o.p == nil:
			case o.p.Error != "":
				notes = append(notes, fmt.Sprintf("scenario pair %d, %s: %s", i+1, o.what, o.p.Error))
			case o.p.CPU.UnlabelledReview > 0:
				notes = append(notes, fmt.Sprintf("scenario pair %d, %s: %.3f CPU s sampled in review code without the work=review label", i+1, o.what, o.p.CPU.UnlabelledReview))
			}
		}
		if p.Scenarios.FirstFailure != "" {
			notes = append(notes, fmt.Sprintf("scenario pair %d: failed scenario %s", i+1, p.Scenarios.FirstFailure))
		}
	}
	writeNotes(b, notes)
}

// writeScenarioPairs writes the table of the scenario pairs.
func (r *Report) writeScenarioPairs(b *strings.Builder, x *harness.ExplainRun) {
	if len(x.ScenarioPairs) == 0 {
		return
	}
	b.WriteString("A capacity scenario beside the scheduling cycle: the same throughput run without and with one drain scenario " +
		"(every tenth node) always running, the next created as soon as one is answered, from the resume to the last bind; " +
		"back to back, who goes first alternating, the operator profiled in both (CPU profile in one-second windows, --contention-profiling). " +
		"Live CPU per pod is the operator's CPU (/proc) from the resume to the end of the last profile window, less the share of samples " +
		"labelled work=review (the scenarios, apart) and of the SchedulingReview controller, per pod bound. " +
		"Lock waits: the mutex profile's delay over the step, at the stacks that released the locks; review-held is the part released by review code " +
		"(an upper bound of the cycle's waits on a scenario's locks). The cycle's lock waits: the block profile's waits of the scheduling loop and its binding cycles " +
		"for a sync.Mutex or RWMutex, whoever held it.\n\n")
	b.WriteString("| pair | pods | pods/s without / with (ratio) | p99 ms without / with (ratio) | live CPU ms per pod without / with (ratio) | " +
		"scenarios CPU s / review controller CPU s | scenarios created / complete / failed, ms p50 / p99 | lock waits ms without / with, review-held | the cycle's lock waits ms without / with |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i, p := range x.ScenarioPairs {
		pods := pairPods(p.Without, p.With)
		thr, p99, cpu := ScenarioRatios(x.ScenarioPairs[i : i+1])
		runCell := func(f func(*harness.Run) float64) string {
			return fmt.Sprintf("%s / %s", orDash(p.Without, f), orDash(p.With, f))
		}
		without, with := profileOK(p.WithoutProfile), profileOK(p.WithProfile)
		live := func(o *harness.OperatorProfile) float64 { return o.LiveCPUMillisPerPod }
		lockWait := func(o *harness.OperatorProfile) float64 { return o.Locks.DelaySeconds * 1000 }
		cycleWait := func(o *harness.OperatorProfile) float64 { return o.Locks.CycleWaitSeconds * 1000 }
		scenarioCPU, held := "–", "–"
		if with != nil {
			scenarioCPU = fmt.Sprintf("%.2f / %.2f", with.ScenarioCPUSeconds, with.ReviewControllerCPUSeconds)
			held = fmt.Sprintf("%.1f", with.Locks.ReviewHeldDelaySeconds*1000)
		}
		fmt.Fprintf(b, "| %d | %d | %s (%s) | %s (%s) | %s / %s (%s) | %s | %d / %d / %d, %.0f / %.0f | %s / %s, %s | %s / %s |\n", i+1, pods,
			runCell(func(r *harness.Run) float64 { return r.Throughput.Average }), thr,
			runCell(func(r *harness.Run) float64 { return r.LatencyMillis.P99 }), p99,
			orDash(without, live), orDash(with, live), cpu,
			scenarioCPU, p.Scenarios.Created, p.Scenarios.Complete, p.Scenarios.Failed, p.Millis.P50, p.Millis.P99,
			orDash(without, lockWait), orDash(with, lockWait), held, orDash(without, cycleWait), orDash(with, cycleWait))
	}
	b.WriteString("\n")
}

// profileOK is o, or nil when it is missing or failed.
func profileOK(o *harness.OperatorProfile) *harness.OperatorProfile {
	if o == nil || o.Error != "" {
		return nil
	}
	return o
}

// orDash writes f(v) with one decimal, or a dash when v is nil.
func orDash[T any](v *T, f func(*T) float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f", f(v))
}

// targetRows are the explain rows of the targets table.
func (r *Report) targetRows() []targetRow {
	x := r.explain()
	if x == nil {
		return nil
	}
	var checks []targetRow
	for _, s := range x.Sizes {
		c := s.Reviews
		checks = append(checks, targetRow{
			what:   fmt.Sprintf("explain: create→Complete p50 / p99, %d nodes", s.Nodes),
			target: "reported",
			got:    fmt.Sprintf("%.0f / %.0f ms (%d of %d complete)", s.Millis.P50, s.Millis.P99, c.Complete, c.Created),
			ok:     s.Error == "" && c.Created > 0 && c.Complete == c.Created,
		})
	}
	if len(x.Pairs) > 0 {
		v, lo, hi, n := ExplainRatio(x.Pairs)
		got := "–"
		switch {
		case n > 1:
			got = fmt.Sprintf("%.2f (pairs %.2f–%.2f)", v, lo, hi)
		case n == 1:
			got = fmt.Sprintf("%.2f", v)
		}
		checks = append(checks, targetRow{
			what:   fmt.Sprintf("explain: throughput with %.0f reviews/s / without", x.Rate),
			target: fmt.Sprintf(">= %.2f", ExplainTarget),
			got:    got,
			ok:     n > 0 && v >= ExplainTarget,
		})
	}
	if len(x.ScenarioPairs) > 0 {
		thr, p99, cpu := ScenarioRatios(x.ScenarioPairs)
		checks = append(checks, targetRow{
			what:   "explain: live cycle's CPU per pod with a drain scenario beside / without",
			target: fmt.Sprintf("<= %.2f", ScenarioCPUTarget),
			got:    cpu.String(),
			ok:     cpu.N > 0 && cpu.V <= ScenarioCPUTarget,
		}, targetRow{
			what:   "explain: throughput / p99 latency with a drain scenario beside / without",
			target: "reported",
			got:    thr.String() + " / " + p99.String(),
			ok:     thr.N > 0,
		})
		var held, total, cycleWith, cycleWithout float64
		var waits int64
		profiled := 0
		for _, p := range x.ScenarioPairs {
			if o, wo := profileOK(p.WithProfile), profileOK(p.WithoutProfile); o != nil && wo != nil {
				held, total, waits, profiled = held+o.Locks.ReviewHeldDelaySeconds, total+o.Locks.DelaySeconds, waits+o.Locks.ReviewHeldContentions, profiled+1
				cycleWith, cycleWithout = cycleWith+o.Locks.CycleWaitSeconds, cycleWithout+wo.Locks.CycleWaitSeconds
			}
		}
		checks = append(checks, targetRow{
			what:   "explain: lock waits on locks a scenario held (mutex profile)",
			target: "none",
			got: fmt.Sprintf("%.1f ms in %d waits (of %.1f ms of lock waits); the cycle's lock waits %.1f ms with, %.1f without; %d pairs",
				held*1000, waits, total*1000, cycleWith*1000, cycleWithout*1000, profiled),
			ok: profiled > 0 && waits == 0,
		})
	}
	return checks
}

func cpuCell(r *harness.Run) string {
	if r == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f", 1000*cpuPerPod(r))
}

// pairPods is the measured pods of a pair's runs (the larger, should one
// have ended early; 0 when neither ran).
func pairPods(runs ...*harness.Run) int {
	pods := 0
	for _, run := range runs {
		if run != nil {
			pods = max(pods, run.MeasuredPods)
		}
	}
	return pods
}
