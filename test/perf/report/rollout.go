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

// Targets of the rollout case (issue 31): a shadow step running costs at
// most 5% of the throughput and 30% more CPU per pod; a step change
// pauses binding for less than GapTarget. Issue 43: a bad change's canary
// is rolled back within CanaryRollbackTarget of its first failures.
const (
	ShadowThroughputTarget     = 0.95
	ShadowCPUTarget            = 1.3
	GapTargetMillis            = 100
	CanaryRollbackTargetMillis = 15000
)

// rolloutOf returns scheduler s's rollout run, nil without one.
func (r *Report) rolloutOf(s string) *harness.RolloutRun {
	for _, run := range r.Rollouts {
		if run.Scheduler == s {
			return run
		}
	}
	return nil
}

// ShadowCost is the median over pairs of with/without: throughput, CPU per
// pod bound (all of the operator's, the shadow's included), and the
// shadow's own CPU seconds; n pairs had both runs.
func ShadowCost(pairs []harness.ShadowPair) (throughput, cpu, shadowCPU float64, n int) {
	var thr, cp, sh []float64
	for _, p := range pairs {
		if p.With == nil || p.Without == nil || p.With.Error != "" || p.Without.Error != "" ||
			p.Without.Throughput.Average == 0 || p.Without.Bound == 0 || p.With.Bound == 0 || p.Without.CPUSeconds == 0 {
			continue
		}
		thr = append(thr, stats.Ratio(p.With.Throughput.Average, p.Without.Throughput.Average))
		cp = append(cp, stats.Ratio(cpuPerPod(p.With), cpuPerPod(p.Without)))
		sh = append(sh, p.ShadowCPUSeconds)
	}
	if len(thr) == 0 {
		return 0, 0, 0, 0
	}
	return median(thr), median(cp), median(sh), len(thr)
}

// goodRuns are the runs of the good change: Promotes, or Promote alone in
// a report written before rollout.goodRepeat.
func goodRuns(run *harness.RolloutRun) []*harness.PromoteRun {
	if len(run.Promotes) > 0 {
		return run.Promotes
	}
	if run.Promote != nil {
		return []*harness.PromoteRun{run.Promote}
	}
	return nil
}

// rate is a false-rollback rate as a percentage ("–": no run judged).
func rate(g harness.GoodOutcomes) string {
	if g.FalseRollbackRate < 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*g.FalseRollbackRate)
}

// median of xs (the lower middle one of an even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func (r *Report) writeRollout(b *strings.Builder) {
	ours, up := r.rolloutOf(harness.Ours), r.rolloutOf(harness.Upstream)
	if ours == nil {
		return
	}
	b.WriteString("## Progressive rollout (rollout)\n\n")
	b.WriteString("profile-scheduler only: upstream kube-scheduler has no rollout (a change is a restart, measured by the swap case); " +
		"its throughput run of the same measured step is the reference of the shadow cost.\n\n")
	if len(ours.ShadowPairs) > 0 {
		b.WriteString("Shadow cost: the measured step's throughput run (pods created while the scheduler is stopped, then drained) " +
			"without and with a shadow step running (a scoring change judging every pod the serving generation places, off the cycle), " +
			"back to back. CPU per pod: all of the operator's CPU from the resume to the last bind, per pod bound; " +
			"the shadow's: the share of the CPU profile's samples labelled work=shadow.\n\n")
		b.WriteString("| pair | upstream pods/s | without pods/s | with pods/s | with/without | CPU ms per pod upstream / without / with | with/without | shadow CPU s | pods judged / skipped |\n")
		b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for i, p := range ours.ShadowPairs {
			var base *harness.Run
			if up != nil && i < len(up.Baselines) {
				base = up.Baselines[i]
			}
			judged := "–"
			if p.Shadow != nil {
				judged = fmt.Sprintf("%d / %d", p.Shadow.Judged, p.Shadow.Skipped)
			}
			fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s / %s / %s | %s | %.2f | %s |\n", i+1,
				avg(base), avg(p.Without), avg(p.With), ratio(p.Without, p.With, func(r *harness.Run) float64 { return r.Throughput.Average }),
				perPod(base), perPod(p.Without), perPod(p.With), ratio(p.Without, p.With, cpuPerPod), p.ShadowCPUSeconds, judged)
		}
		b.WriteString("\n")
	}
	if len(ours.Blast) > 0 {
		b.WriteString("Blast radius: pods of two pools (nodeSelector) created at a steady rate; a change that excludes pool b " +
			"(NodeAffinity addedAffinity) applied with one canary step (its analysis looking every analysis.interval while the step runs), " +
			"then at once over as long a window. " +
			"Went pending: seen with PodScheduled=False (Unschedulable); bound by the bad generation: bound between the change and the rollback seen, " +
			"with a canary only the pods its hash picks; pending at the end: after the load stopped and a drain. " +
			"First failure: the first pod of the bad generation's share created since the change seen unschedulable.\n\n")
		b.WriteString("| change | window s | pods / of pool b | went pending | bound by the bad generation | affected | pending at the end | bound twice | change→rolled back ms | change→first failure ms | first failure→rolled back ms | rolled back→last pending pod bound ms | phase |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		for _, x := range ours.Blast {
			what, back, fail, rec := "at once", "–", "–", "–"
			if x.Percent > 0 {
				what = fmt.Sprintf("canary %d%%", x.Percent)
				if x.StepSeconds > 0 {
					what += fmt.Sprintf(" (%.0f s step)", x.StepSeconds)
				}
				back, fail, rec = millisOrNone(x.ToRollbackMillis), millisOrNone(x.FailureToRollbackMillis), millisOrNone(x.RecoveredMillis)
			}
			phase := x.Phase
			if x.Error != "" {
				phase += " (error: " + x.Error + ")"
			}
			bl := x.Blast
			fmt.Fprintf(b, "| %s | %.1f | %d / %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", what, x.WindowSeconds, x.Created, x.PoolPods,
				bl.WentPending, bl.BoundByBad, bl.Affected, bl.PendingAtEnd, bl.DoubleBound, back, millisOrNone(x.FirstFailureMillis), fail, rec, phase)
		}
		b.WriteString("\n")
	}
	if p := ours.Promote; p != nil {
		if p.Phase != "Promoted" {
			fmt.Fprintf(b, "The good change was not promoted: %s (%s).\n\n", p.Phase, p.Message)
		}
		fmt.Fprintf(b, "A good change (another scoring strategy) rolled out with %s under the same load: change→promoted %s ms, "+
			"%d pods created, %d bound, %d lost, %d bound twice, longest time without a bind %.0f ms. At each change, the longest time without a bind "+
			"from the last bind before it to the next change:\n\n", p.Steps, millisOrNone(p.ToPromotedMillis), p.Created, p.Bound, p.Lost, p.DoubleBound, p.LongestGapMillis)
		b.WriteString("| change | at s | gap ms |\n|---|---:|---:|\n")
		for _, c := range p.Changes {
			fmt.Fprintf(b, "| %s | %.1f | %.0f |\n", c.What, c.AtSeconds, c.GapMillis)
		}
		b.WriteString("\n")
		if p.Error != "" {
			fmt.Fprintf(b, "- error: %s\n\n", p.Error)
		}
	}
	if runs := goodRuns(ours); len(runs) > 1 {
		g := harness.CountGood(runs)
		fmt.Fprintf(b, "The good change rolled out %d times (rollout.goodRepeat), each on a fresh namespace: %d promoted, %d rolled back (false rollbacks), "+
			"%d other; false-rollback rate %s (of the %d runs that reached a verdict).\n\n", g.Runs, g.Promoted, g.RolledBack, g.Other, rate(g), g.Promoted+g.RolledBack)
		for i, p := range runs {
			if p == nil || (p.Phase == "Promoted" && p.Error == "") {
				continue
			}
			fmt.Fprintf(b, "- run %d: %s", i+1, p.Phase)
			if p.Message != "" {
				fmt.Fprintf(b, " (%s)", p.Message)
			}
			if p.Error != "" {
				fmt.Fprintf(b, "; error: %s", p.Error)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
}

func avg(r *harness.Run) string {
	if r == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f", r.Throughput.Average)
}

func perPod(r *harness.Run) string {
	if r == nil || r.Bound == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", 1000*cpuPerPod(r))
}

func millisOrNone(ms float64) string {
	if ms < 0 {
		return "not seen"
	}
	return fmt.Sprintf("%.0f", ms)
}

// rolloutChecks are the rollout case's rows of the targets table.
func (r *Report) rolloutChecks() []targetRow {
	ours := r.rolloutOf(harness.Ours)
	if ours == nil {
		return nil
	}
	var out []targetRow
	if thr, cpu, sh, n := ShadowCost(ours.ShadowPairs); n > 0 {
		out = append(out,
			targetRow{"rollout: throughput with a shadow step / without", fmt.Sprintf(">= %.2f", ShadowThroughputTarget), fmt.Sprintf("%.2f (%d pairs)", thr, n), thr >= ShadowThroughputTarget},
			targetRow{"rollout: CPU per pod with a shadow step / without", fmt.Sprintf("<= %.1f", ShadowCPUTarget), fmt.Sprintf("%.2f", cpu), cpu <= ShadowCPUTarget},
			targetRow{"rollout: the shadow's own CPU (work=shadow)", "reported", fmt.Sprintf("%.2f s", sh), true})
	}
	var canary, atOnce *harness.BlastRun
	for _, x := range ours.Blast {
		if x.Percent > 0 {
			canary = x
		} else {
			atOnce = x
		}
	}
	if canary != nil {
		bl := canary.Blast
		out = append(out,
			targetRow{fmt.Sprintf("rollout: bad change with canary %d%% rolled back", canary.Percent), "RolledBack",
				fmt.Sprintf("%s after %s ms", canary.Phase, millisOrNone(canary.ToRollbackMillis)), canary.Phase == "RolledBack" && canary.Error == ""},
			targetRow{"rollout: bad change with a canary: rolled back within 15 s of its first failures", fmt.Sprintf("<= %d ms", CanaryRollbackTargetMillis),
				fmt.Sprintf("%s ms (first failure %s ms after the change; canary %d%%, %.0f s step)", millisOrNone(canary.FailureToRollbackMillis),
					millisOrNone(canary.FirstFailureMillis), canary.Percent, canary.StepSeconds),
				canary.FailureToRollbackMillis >= 0 && canary.FailureToRollbackMillis <= CanaryRollbackTargetMillis},
			targetRow{"rollout: pods gone pending outside the canary's share", "0",
				fmt.Sprintf("%d (affected %d of the %d created since the change)", bl.OutsideCanary, bl.Affected, canary.CreatedSinceChange), bl.OutsideCanary == 0},
			targetRow{"rollout: canary's pods pending at the end / bound twice", "0 / 0", fmt.Sprintf("%d / %d", bl.PendingAtEnd, bl.DoubleBound), bl.PendingAtEnd == 0 && bl.DoubleBound == 0})
		if atOnce != nil {
			out = append(out, targetRow{"rollout: pods affected by the bad change, canary / at once", "canary fewer",
				fmt.Sprintf("%d / %d (went pending %d / %d)", bl.Affected, atOnce.Blast.Affected, bl.WentPending, atOnce.Blast.WentPending),
				atOnce.Error == "" && bl.WentPending < atOnce.Blast.WentPending})
		}
	}
	if p := ours.Promote; p != nil {
		gap := 0.0
		for _, c := range p.Changes {
			gap = max(gap, c.GapMillis)
		}
		promoted := fmt.Sprintf("%s after %s ms (%s)", p.Phase, millisOrNone(p.ToPromotedMillis), p.Steps)
		if p.Phase != "Promoted" {
			promoted = fmt.Sprintf("%s (%s): %s", p.Phase, p.Steps, p.Message)
		}
		out = append(out,
			targetRow{"rollout: good change promoted", "Promoted", promoted, p.Phase == "Promoted"},
			targetRow{"rollout: good change pods lost / bound twice", "0 / 0", fmt.Sprintf("%d / %d", p.Lost, p.DoubleBound), p.Lost == 0 && p.DoubleBound == 0 && len(p.Overcommitted) == 0 && p.Error == ""},
			targetRow{"rollout: longest no-bind gap at a step change", fmt.Sprintf("< %d ms", GapTargetMillis), fmt.Sprintf("%.0f ms", gap), len(p.Changes) > 0 && gap < GapTargetMillis})
	}
	if runs := goodRuns(ours); len(runs) > 0 {
		g := harness.CountGood(runs)
		out = append(out, targetRow{"rollout: good change: no false rollback", "0 rolled back",
			fmt.Sprintf("%d of %d runs rolled back (false-rollback rate %s), %d promoted, %d other", g.RolledBack, g.Runs, rate(g), g.Promoted, g.Other),
			g.Runs > 0 && g.RolledBack == 0 && g.Other == 0})
	}
	return out
}
