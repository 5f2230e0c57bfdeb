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
)

// writeStorm writes the coexist cases' bind storms.
func (r *Report) writeStorm(b *strings.Builder) {
	if len(r.Storms) == 0 {
		return
	}
	b.WriteString("## A bind storm with the bind arbiter\n\n")
	b.WriteString("The harness binds as two schedulers whose caches are blind (half the pods each, every pod once, onto a node picked at random; " +
		"enough nodes that about half the pods fit), an operator serving the bind arbiter alone, its certificate rotated midway as its rotator " +
		"rotates it (a new CA and serving certificate written into its directory, then the CA merged into the caBundle). " +
		"A refusal is wrong when the pod fits its node in the final state (binds only add pods). " +
		"Unjudged: admitted binds beyond the arbiter's decisions, which passed while the webhook failed open.\n\n")
	b.WriteString("| case | run | nodes | binds | rate asked / reached | bind ms p50 / p99 | admitted / refused / failed | wrong refusals | overcommitted nodes / pods over | rotated at s (binds after) | unjudged |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var notes []string
	for _, s := range r.Storms {
		if s == nil {
			continue
		}
		if s.Error != "" {
			notes = append(notes, fmt.Sprintf("%s storm %d: %s", s.Case, s.Repeat, s.Error))
		}
		for _, ex := range s.WrongExamples {
			notes = append(notes, fmt.Sprintf("%s storm %d: wrong refusal: %s", s.Case, s.Repeat, ex))
		}
		rot := "–"
		if s.Rotated {
			rot = fmt.Sprintf("%.1f (%d)", s.RotatedAtSeconds, s.BindsAfterRotation)
			if !s.ServesRotated {
				rot += ", not served"
			}
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %.0f / %.0f | %.1f / %.1f | %d / %d / %d | %d | %d / %d | %s | %d |\n", s.Case, s.Repeat, s.Nodes, s.Binds,
			s.Rate, s.RateReached, s.BindMillis.P50, s.BindMillis.P99, s.Admitted, s.Refused, s.Failed, s.WrongRefusals,
			s.OvercommittedNodes, s.PodsOver, rot, s.FailedOpenBinds)
	}
	b.WriteString("\n")
	writeNotes(b, notes)
}

// stormChecks: no wrong refusal and no overcommitted node in any storm;
// the rate reached is reported.
func (r *Report) stormChecks() []targetRow {
	var checks []targetRow
	for _, s := range r.Storms {
		if s == nil {
			continue
		}
		name := fmt.Sprintf("%s storm %d", s.Case, s.Repeat)
		checks = append(checks,
			targetRow{name + ": refusals a correct count would admit", "0", fmt.Sprintf("%d of %d refused", s.WrongRefusals, s.Refused), s.Error == "" && s.Refused > 0 && s.WrongRefusals == 0},
			targetRow{name + ": overcommitted nodes / pods over capacity", "0 / 0", fmt.Sprintf("%d / %d", s.OvercommittedNodes, s.PodsOver), s.Error == "" && s.OvercommittedNodes == 0 && s.PodsOver == 0},
			targetRow{name + ": binds per second reached", fmt.Sprintf("~%.0f (reported)", s.Rate), fmt.Sprintf("%.0f", s.RateReached), true},
		)
		if s.Rotated {
			checks = append(checks, targetRow{name + ": certificate rotated midway: served after it / binds admitted unjudged", "yes / 0",
				fmt.Sprintf("%t / %d", s.ServesRotated, s.FailedOpenBinds), s.ServesRotated && s.FailedOpenBinds == 0})
		}
		if v := s.Arbiter.DecisionCPUMicrosPerBind(); v > 0 {
			checks = append(checks, targetRow{name + ": the admission decision's CPU per bind (operator's whole CPU per bind)", "reported",
				fmt.Sprintf("%.0f µs (%.0f µs)", v, s.Arbiter.ProcessCPUMicrosPerBind()), true})
		}
	}
	return checks
}
