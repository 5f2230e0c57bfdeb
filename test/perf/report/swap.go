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

// swap is scheduler s's swap run without leader election.
func (r *Report) swap(s string) *harness.SwapRun {
	for _, run := range r.Swaps {
		if run.Scheduler == s && !run.LeaderElection {
			return run
		}
	}
	return nil
}

// swapLeaderElection is upstream's swap run with leader election, if made.
func (r *Report) swapLeaderElection() *harness.SwapRun {
	for _, run := range r.Swaps {
		if run.Scheduler == harness.Upstream && run.LeaderElection {
			return run
		}
	}
	return nil
}

// writeSwap writes the swap table: upstream's restart, its lease hand-over
// when that ran, and our update; ratios ours/upstream's bare restart.
func (r *Report) writeSwap(b *strings.Builder) {
	up, ours, le := r.swap(harness.Upstream), r.swap(harness.Ours), r.swapLeaderElection()
	cols := []*harness.SwapRun{up}
	head, rule := "| measure | upstream (restart) |", "|---|---:|"
	if le != nil {
		cols = append(cols, le)
		head, rule = head+" upstream (restart, lease hand-over) |", rule+"---:|"
	}
	cols = append(cols, ours)
	b.WriteString("## Profile swap under load\n\n")
	b.WriteString("Pods arrive at a fixed rate while the profile alternates between MostAllocated and LeastAllocated. " +
		"Ours: the SchedulerProfile is updated. Upstream: kube-scheduler is stopped and started with the other configuration file, " +
		"without leader election (a lower bound for a real cluster)")
	if le != nil {
		b.WriteString("; and with leader election, as a rolling update does it: the new process starts as a standby, " +
			"then the old one stops and releases the lease, which the standby takes at its next retry (2 s)")
	}
	b.WriteString(". \"Placed\" is the first pod bound on a node only the new profile picks. " +
		"\"Gap after a change\" is the longest time without a bind from the last bind before a change to the next change. " +
		"Chart: swap.svg.\n\n")
	b.WriteString(head + " ours (update) | ours/upstream |\n" + rule + "---:|---:|\n")
	cells := func(f func(*harness.SwapRun) string) string {
		var out []string
		for _, c := range cols {
			if c == nil {
				out = append(out, "–")
			} else {
				out = append(out, f(c))
			}
		}
		return strings.Join(out, " | ")
	}
	row := func(name string, f func(*harness.SwapRun) float64, format string) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", name, cells(func(s *harness.SwapRun) string { return fmt.Sprintf(format, f(s)) }), swapRatio(up, ours, f))
	}
	rowNoRatio := func(name string, f func(*harness.SwapRun) string) {
		fmt.Fprintf(b, "| %s | %s | |\n", name, cells(f))
	}
	num := func(f func(*harness.SwapRun) float64, format string) func(*harness.SwapRun) string {
		return func(s *harness.SwapRun) string { return fmt.Sprintf(format, f(s)) }
	}
	rowNoRatio("profile changes", num(func(s *harness.SwapRun) float64 { return float64(s.Swaps) }, "%.0f"))
	rowNoRatio("load, pods/s", num(func(s *harness.SwapRun) float64 { return s.Rate }, "%.0f"))
	rowNoRatio("storm length, s", num(func(s *harness.SwapRun) float64 { return s.StormSeconds }, "%.1f"))
	rowNoRatio("pods created / bound", createdBound)
	rowNoRatio("pods lost", num(func(s *harness.SwapRun) float64 { return float64(s.Lost) }, "%.0f"))
	rowNoRatio("pods bound twice", num(func(s *harness.SwapRun) float64 { return float64(s.DoubleBound) }, "%.0f"))
	rowNoRatio("overcommitted nodes", num(func(s *harness.SwapRun) float64 { return float64(len(s.Overcommitted)) }, "%.0f"))
	if ours != nil {
		rowNoRatio("apply→Ready p50 / p99, ms", func(s *harness.SwapRun) string {
			if s != ours {
				return "n/a"
			}
			return fmt.Sprintf("%.0f / %.0f", ours.ApplyToReadyMillis.P50, ours.ApplyToReadyMillis.P99)
		})
	}
	fmt.Fprintf(b, "| change→first placed p50 / p99, ms | %s | %s |\n",
		cells(func(s *harness.SwapRun) string {
			return pair(s, func(s *harness.SwapRun) stats.Summary { return s.ApplyToPlacedMillis })
		}),
		swapRatio(up, ours, func(s *harness.SwapRun) float64 { return s.ApplyToPlacedMillis.P99 }))
	rowNoRatio("changes not seen to take effect", num(func(s *harness.SwapRun) float64 { return float64(s.Unobserved) }, "%.0f"))
	if slices.ContainsFunc(r.Swaps, func(s *harness.SwapRun) bool { return len(changeGaps(s)) > 0 }) {
		fmt.Fprintf(b, "| gap after a change p50 / max, ms | %s | %s |\n",
			cells(func(s *harness.SwapRun) string {
				g := stats.Summarize(changeGaps(s))
				return fmt.Sprintf("%.0f / %.0f", g.P50, g.Max)
			}),
			swapRatio(up, ours, func(s *harness.SwapRun) float64 { return stats.Summarize(changeGaps(s)).Max }))
	}
	row("longest gap with no bind, ms", func(s *harness.SwapRun) float64 { return s.LongestGapMillis }, "%.0f")
	rowNoRatio("pods created during that gap", num(func(s *harness.SwapRun) float64 { return float64(s.CreatedInGap) }, "%.0f"))
	row("CPU s", func(s *harness.SwapRun) float64 { return s.CPUSeconds }, "%.1f")
	row("peak RSS MiB", func(s *harness.SwapRun) float64 { return float64(s.PeakRSSBytes) / mib }, "%.0f")
	for _, s := range cols {
		name := ""
		if s != nil {
			name = s.Scheduler
			if s.LeaderElection {
				name += " (lease hand-over)"
			}
		}
		if s != nil && s.Error != "" {
			fmt.Fprintf(b, "\n- swap/%s: error: %s", name, s.Error)
		}
		if s != nil && s.Created != s.Bound {
			fmt.Fprintf(b, "\n- swap/%s: %d created, %d bound", name, s.Created, s.Bound)
		}
	}
	b.WriteString("\n")
}

// changeGaps are the per-change gaps of a swap run, in milliseconds.
func changeGaps(s *harness.SwapRun) []float64 {
	var out []float64
	for _, c := range s.Changes {
		out = append(out, c.GapMillis)
	}
	return out
}

func swapRatio(up, ours *harness.SwapRun, f func(*harness.SwapRun) float64) string {
	if up == nil || ours == nil || f(up) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", stats.Ratio(f(ours), f(up)))
}

func createdBound(s *harness.SwapRun) string {
	if s == nil {
		return "–"
	}
	return fmt.Sprintf("%d / %d", s.Created, s.Bound)
}

func pair(s *harness.SwapRun, f func(*harness.SwapRun) stats.Summary) string {
	if s == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f / %.0f", f(s).P50, f(s).P99)
}
