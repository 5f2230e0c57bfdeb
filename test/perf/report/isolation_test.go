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

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// isolationRun is a run of the extender part: B's pods/s in a throughput
// run, B's p99 in a latency run.
func isolationRun(s string, v harness.IsolationVariant, with bool, mode harness.Mode, repeat int, x float64) *harness.IsolationRun {
	m := &harness.Run{Bound: 200, MeasuredPods: 200, CPUSeconds: 0.2}
	if mode == harness.ModeThroughput {
		m.Throughput = stats.Throughput{Average: x}
	} else {
		m.LatencyMillis = stats.Summary{P99: x}
	}
	run := &harness.IsolationRun{Case: "isolation", Scheduler: s, Repeat: repeat, Measured: m,
		IsolationSetup: harness.IsolationSetup{Part: harness.PartExtender, Variant: v, WithSlow: with, Mode: mode}}
	if with {
		run.Slow = &harness.SlowFigures{Pods: 10, Bound: 10, Seconds: 20.5, ExtenderCalls: 10}
	}
	return run
}

func profilesRun(s string, podsPerSec, cpu float64) *harness.IsolationRun {
	return &harness.IsolationRun{Case: "isolation", Scheduler: s, Repeat: 1,
		IsolationSetup: harness.IsolationSetup{Part: harness.PartProfiles, Mode: harness.ModeThroughput},
		Measured:       &harness.Run{Bound: 400, MeasuredPods: 400, CPUSeconds: cpu, Throughput: stats.Throughput{Average: podsPerSec}},
		Profiles:       []harness.BindFigures{{Bound: 100, PodsPerSecond: 50}, {Bound: 100, PodsPerSecond: 80}}}
}

func TestIsolationReport(t *testing.T) {
	thr, lat := harness.ModeThroughput, harness.ModeLatency
	shared, disjoint := harness.VariantShared, harness.VariantDisjoint
	r := &Report{Repeat: 3, MinStepSeconds: 10, Params: map[string]map[string]int{"isolation": {"delayMillis": 2000, "slowPods": 10, "pods": 200}},
		IsolationNotes: []string{"ours-one-loop: not run, the operator has no --profile-loops"},
		Isolations: []*harness.IsolationRun{
			isolationRun(harness.Upstream, shared, false, thr, 1, 400),
			isolationRun(harness.Upstream, shared, true, thr, 1, 10),
			isolationRun(harness.Upstream, shared, false, lat, 1, 20),
			isolationRun(harness.Upstream, shared, true, lat, 1, 21000),
			isolationRun(harness.Ours, shared, false, thr, 1, 400),
			isolationRun(harness.Ours, shared, true, thr, 1, 380),
			isolationRun(harness.Ours, shared, false, lat, 1, 20),
			isolationRun(harness.Ours, shared, true, lat, 1, 30),
			isolationRun(harness.Ours, disjoint, false, thr, 1, 400),
			isolationRun(harness.Ours, disjoint, true, thr, 1, 200),
			profilesRun(harness.Upstream, 300, 0.4),
			profilesRun(harness.Ours, 330, 0.4),
		}}
	// A run cut short counts as the worst of three: the median is the
	// one of 200 pods/s; it is noted.
	cut := isolationRun(harness.Ours, disjoint, true, thr, 2, 0)
	cut.Error, cut.Measured.Bound = "timed out", 150
	r.Isolations = append(r.Isolations, cut, isolationRun(harness.Ours, disjoint, true, thr, 3, 210))

	got := map[string]targetRow{}
	for _, c := range r.isolationChecks() {
		got[c.what] = c
	}
	for what, want := range map[string]struct {
		got string
		ok  bool
	}{
		"isolation shared: upstream, B's throughput with A's pods / alone": {"0.03", true}, // for comparison
		"isolation shared: ours, B's throughput with A's pods / alone":     {"0.95", true},
		"isolation disjoint: ours, B's throughput with A's pods / alone":   {"0.50", false},
		"isolation profiles: throughput ours/upstream":                     {"1.10", true},
		"isolation profiles: CPU per pod ours/upstream":                    {"1.00", true},
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
	if c := got["isolation shared: ours, B's throughput with A's pods / alone"]; c.target != ">= 0.9" {
		t.Errorf("ours's target is %q, want >= 0.9", c.target)
	}
	if _, found := got["isolation disjoint: upstream, B's throughput with A's pods / alone"]; found {
		t.Error("a row for upstream's disjoint variant, which did not run")
	}

	b := &strings.Builder{}
	r.writeIsolation(b)
	for _, want := range []string{
		"## Profile isolation (isolation)",
		"filter answers after 2000 ms",
		"| shared | upstream | 400.0 | 10.0 | 0.03 | 20 | 21000 | 1050 | 1.00 / 1.00 | 10/10 in 20.5 s (10 calls) |",
		"| shared | ours | 400.0 | 380.0 | 0.95 | 20 | 30 | 1.50 |",
		"| disjoint | ours | 400.0 | 200.0 | 0.50 | – | – | – |",
		"| ours | 400 / 400 | 330.0 (0/0/0) | 50.0–80.0 | 1.00 | 1.10 | 1.00 |",
		"- ours-one-loop: not run, the operator has no --profile-loops",
		"- isolation: 10 of 10 throughput steps lasted under 10 s (shortest 0.0 s)",
		"- isolation disjoint-with-a-throughput/ours run 2: error: timed out; 150 of 200 measured pods bound",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the section lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "| disjoint | upstream") {
		t.Errorf("a row for upstream's disjoint variant, which did not run:\n%s", b.String())
	}

	// Nothing ran: no section.
	b.Reset()
	(&Report{}).writeIsolation(b)
	if b.Len() != 0 {
		t.Errorf("a section without runs:\n%s", b.String())
	}
}
