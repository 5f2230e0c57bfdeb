package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/profile-scheduler/profile-scheduler/internal/stats"
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
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range pairs {
		if p.With == nil || p.Without == nil || p.With.Error != "" || p.Without.Error != "" || p.Without.Throughput.Average <= 0 {
			continue
		}
		w, wo := p.With.Throughput.Average, p.Without.Throughput.Average
		with, without = append(with, w), append(without, wo)
		x := w / wo
		lo, hi, n = min(lo, x), max(hi, x), n+1
	}
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), 0
	}
	return stats.Percentile(with, 50) / stats.Percentile(without, 50), lo, hi, n
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
			pods := 0
			for _, run := range []*harness.Run{p.Without, p.With} {
				if run != nil {
					pods = max(pods, run.MeasuredPods)
				}
			}
			fmt.Fprintf(b, "| %d | %d | %s | %s | %s | %s / %s | %d / %d / %d | %.0f / %.0f |\n", i+1, pods,
				thr(p.Without), thr(p.With), ratio(p.Without, p.With, func(r *harness.Run) float64 { return r.Throughput.Average }),
				cpuCell(p.Without), cpuCell(p.With),
				p.Reviews.Created, p.Reviews.Complete, p.Reviews.Failed, p.Millis.P50, p.Millis.P99)
		}
		b.WriteString("\n")
	}
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
	writeNotes(b, notes)
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
	return checks
}

func cpuCell(r *harness.Run) string {
	if r == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f", 1000*cpuPerPod(r))
}
