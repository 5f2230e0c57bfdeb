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
	"strings"
	"testing"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

func coexistRun(setup harness.CoexistSetup, repeat int, first, second float64, over int, a *harness.ArbiterCost) *harness.CoexistRun {
	return &harness.CoexistRun{Case: "coexist", Setup: setup, Repeat: repeat, Pods: 300,
		First:   harness.BindFigures{Bound: 120, PodsPerSecond: first},
		Second:  harness.BindFigures{Bound: 120, PodsPerSecond: second},
		Arbiter: a, Overcommit: harness.Overcommit{OvercommittedNodes: over, PodsOver: over}}
}

func TestCoexistArbiterChecks(t *testing.T) {
	cost := &harness.ArbiterCost{Judged: 240, Refused: 20, Unjudged: 10, CPUSeconds: 1, DecisionCPUSeconds: 0.025}
	r := &Report{Coexists: []*harness.CoexistRun{
		coexistRun(harness.SetupTwoUpstream, 1, 100, 100, 3, nil),
		coexistRun(harness.SetupTwoUpstreamWebhook, 1, 90, 90, 4, nil),
		coexistRun(harness.SetupTwoUpstreamArbiter, 1, 95, 80, 0, cost),
		coexistRun(harness.SetupCheck, 1, 100, 50, 1, nil),
		coexistRun(harness.SetupCheckArbiter, 1, 90, 50, 1, cost),
	}}
	got := map[string]targetRow{}
	for _, c := range r.coexistChecks() {
		got[c.what] = c
		if strings.Contains(c.what, "two-upstream-webhook") {
			t.Errorf("the no-op webhook's runs are no target: %q", c.what)
		}
	}
	for what, want := range map[string]struct {
		got string
		ok  bool
	}{
		"coexist two-upstream-arbiter: overcommitted nodes / pods over capacity, every run":         {"0 / 0 (1 runs, 0 failed)", true},
		"coexist ours-arbiter: overcommitted nodes / pods over capacity, every run":                 {"1 / 1 (1 runs, 0 failed)", false},
		"coexist two-upstream-arbiter: kube-scheduler throughput with the arbiter / without":        {"0.95", true},
		"coexist two-upstream-arbiter: second kube-scheduler throughput with the arbiter / without": {"0.80", false},
		"coexist ours-arbiter: profile-scheduler throughput with the arbiter / without":             {"1.00", true},
		// 0.025 CPU s over 250 binds asked about.
		"coexist ours-arbiter: the admission decision's CPU per bind": {"100 µs (median of 1)", true},
	} {
		c, found := got[what]
		if !found {
			t.Errorf("no row %q in %v", what, got)
			continue
		}
		if c.got != want.got || c.ok != want.ok {
			t.Errorf("%s: %q ok %t, want %q ok %t", what, c.got, c.ok, want.got, want.ok)
		}
	}
	b := &strings.Builder{}
	r.writeCoexist(b)
	for _, want := range []string{"### With the bind arbiter and without", "| coexist | ours / ours-arbiter | profile-scheduler | 120 / 120 | 50.0 / 50.0 | 1.00 |",
		"### What the bind arbiter cost", "| coexist | two-upstream-arbiter | 1 | 240 (20) | 10 |",
		// The webhook that admits at once splits the arbiter's price: it
		// is a row of the table, not a target.
		"| coexist | two-upstream / two-upstream-webhook | second kube-scheduler | 120 / 120 | 100.0 / 90.0 | 0.90 |",
		"| coexist | two-upstream-webhook / two-upstream-arbiter | kube-scheduler | 120 / 120 | 90.0 / 95.0 | 1.06 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the coexist section lacks %q:\n%s", want, b.String())
		}
	}
}
