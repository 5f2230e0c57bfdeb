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
	"strings"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// gangCases are the cases (in report order) with runs that measured
// PodGroups.
func (r *Report) gangCases(cases []string) []string {
	var out []string
	for _, c := range cases {
		for _, run := range r.Runs {
			if run.Case == c && run.Gang != nil {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// writeGang writes the pod-group table: per case, kind of run and
// scheduler (the median run, as in the main table), pods in groups bound
// per second, the time from a group's last member's creation to the whole
// group bound, and the groups partially bound or left pending, read from
// the API at the end of the measured step.
func (r *Report) writeGang(b *strings.Builder, cases []string) {
	gang := r.gangCases(cases)
	if len(gang) == 0 {
		return
	}
	b.WriteString("## Gang scheduling\n\n")
	b.WriteString("Cases with PodGroups (scheduling.k8s.io/v1beta1, GenericWorkload on both schedulers and on kube-apiserver); the median runs of the table above. " +
		"Pods/s: measured pods (all members of groups) bound per second. " +
		"Group bound: from a group's last member's creation (the resume, in a throughput run) to its last member's bind, both seen by the watch, p50/p90/p99 over the measured groups. " +
		"Partially bound: PodGroups with some members bound but not all (or fewer than minCount), counted from the API at the end of the measured step; must be 0. " +
		"Left pending: groups that cannot be placed (expected to stay wholly pending) with no member bound at that point.\n\n")
	b.WriteString("| case | run | scheduler | groups bound | pods/s | group bound ms p50/p90/p99 | partially bound | left pending |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|\n")
	var notes []string
	for _, c := range gang {
		for _, m := range []harness.Mode{harness.ModeThroughput, harness.ModeLatency} {
			for _, s := range []string{harness.Upstream, harness.Ours} {
				run := r.find(c, s, m)
				if run == nil || run.Gang == nil {
					continue
				}
				g := run.Gang
				fmt.Fprintf(b, "| %s | %s | %s | %d / %d | %.1f | %.0f/%.0f/%.0f | %d | %d / %d |\n", c, m, s,
					g.GroupsBound, g.Groups, run.Throughput.Average,
					g.GroupBoundMillis.P50, g.GroupBoundMillis.P90, g.GroupBoundMillis.P99,
					g.PartiallyBound, g.StayedPending, g.ExpectedPending)
			}
		}
		for _, run := range r.Runs {
			if run.Case == c && run.Gang != nil && len(run.Gang.PartiallyBoundGroups) > 0 {
				notes = append(notes, fmt.Sprintf("%s/%s/%s run %d: partially bound: %s", c, run.Mode, run.Scheduler, run.Repeat,
					strings.Join(run.Gang.PartiallyBoundGroups, ", ")))
			}
		}
	}
	b.WriteString("\n")
	writeNotes(b, notes)
}

// gangTotals sums scheduler s's runs of case c: groups partially bound,
// expected-pending groups and those left pending, and the runs counted.
func (r *Report) gangTotals(c, s string) (partial, expected, pending, runs int) {
	for _, run := range r.Runs {
		if run.Case != c || run.Scheduler != s || run.Gang == nil {
			continue
		}
		runs++
		partial += run.Gang.PartiallyBound
		expected += run.Gang.ExpectedPending
		pending += run.Gang.StayedPending
	}
	return partial, expected, pending, runs
}

// gangChecks are the targets rows of the cases with PodGroups, over every
// run of both schedulers (not only the median ones): no group partially
// bound, every group that cannot fit left wholly pending.
func (r *Report) gangChecks(cases []string) []targetRow {
	var out []targetRow
	for _, c := range r.gangCases(cases) {
		var partial, pending []string
		partialOK, pendingOK := true, true
		for _, s := range []string{harness.Upstream, harness.Ours} {
			p, exp, pend, n := r.gangTotals(c, s)
			if n == 0 {
				continue
			}
			partial = append(partial, fmt.Sprintf("%s %d", s, p))
			pending = append(pending, fmt.Sprintf("%s %d of %d", s, pend, exp))
			partialOK = partialOK && p == 0
			pendingOK = pendingOK && pend == exp
		}
		out = append(out,
			targetRow{c + ": groups partially bound (all runs)", "0", strings.Join(partial, ", "), partialOK},
			targetRow{c + ": groups that cannot fit left pending (all runs)", "all", strings.Join(pending, ", "), pendingOK})
	}
	return out
}
