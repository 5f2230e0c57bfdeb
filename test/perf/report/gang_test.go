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
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

func gangRun(sched string, mode harness.Mode, repeat int, avg, p99 float64, partial int, partialNames []string, pending int) *harness.Run {
	return &harness.Run{
		Case: "gang", Scheduler: sched, Mode: mode, Repeat: repeat, MeasuredPods: 80, Bound: 80, CreateSeconds: 1,
		Throughput:    stats.Throughput{Average: avg, P50: avg, P90: avg, P99: avg},
		LatencyMillis: stats.Summary{N: 80, P50: p99 / 2, P90: p99, P99: p99},
		Gang: &harness.GangRun{
			Groups: 4, GroupsBound: 4, GroupBoundMillis: stats.Summary{N: 4, P50: p99 / 4, P90: p99 / 2, P99: p99},
			PodGroups: 7, PartiallyBound: partial, PartiallyBoundGroups: partialNames,
			ExpectedPending: 3, StayedPending: pending,
		},
	}
}

// The gang table shows each scheduler's median run per kind of run with
// its group figures; the targets count partially bound and pending groups
// over every run, so a bad run that is not the median still fails them.
func TestGangSection(t *testing.T) {
	rep := &Report{
		Started:  time.Unix(0, 0),
		Repeat:   3,
		Settings: harness.Settings{QPS: 5000, Burst: 5000, Parallelism: 16},
		Runs: []*harness.Run{
			gangRun(harness.Upstream, harness.ModeThroughput, 1, 100, 400, 0, nil, 3),
			gangRun(harness.Upstream, harness.ModeThroughput, 2, 90, 500, 0, nil, 3),
			gangRun(harness.Upstream, harness.ModeThroughput, 3, 110, 300, 0, nil, 3),
			gangRun(harness.Ours, harness.ModeThroughput, 1, 120, 200, 0, nil, 3),
			gangRun(harness.Ours, harness.ModeThroughput, 2, 130, 100, 1, []string{"gang-g3 5/8 (minCount 8)"}, 2),
			gangRun(harness.Ours, harness.ModeThroughput, 3, 125, 150, 0, nil, 3),
			gangRun(harness.Upstream, harness.ModeLatency, 1, 50, 80, 0, nil, 3),
			gangRun(harness.Ours, harness.ModeLatency, 1, 50, 60, 0, nil, 3),
		},
	}
	md := markdown(t, rep)
	for _, want := range []string{
		"## Gang scheduling",
		"| gang | throughput | upstream | 4 / 4 | 100.0 | 100/200/400 | 0 | 3 / 3 |",
		"| gang | throughput | ours | 4 / 4 | 125.0 | 38/75/150 | 0 | 3 / 3 |",
		"| gang | latency | upstream | 4 / 4 | 50.0 | 20/40/80 | 0 | 3 / 3 |",
		"| gang | latency | ours | 4 / 4 | 50.0 | 15/30/60 | 0 | 3 / 3 |",
		"- gang/throughput/ours run 2: partially bound: gang-g3 5/8 (minCount 8)",
		"| gang: groups partially bound (all runs) | 0 | upstream 0, ours 1 | **no** |",
		"| gang: groups that cannot fit left pending (all runs) | all | upstream 12 of 12, ours 11 of 12 | **no** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	// The gang table comes after the main table, before the targets.
	if i, j := strings.Index(md, "## Throughput, latency and cost"), strings.Index(md, "## Gang scheduling"); i < 0 || j < i {
		t.Errorf("gang section out of place:\n%s", md)
	}

	// Every run clean: both targets met.
	for _, run := range rep.Runs {
		run.Gang.PartiallyBound, run.Gang.PartiallyBoundGroups, run.Gang.StayedPending = 0, nil, 3
	}
	md = markdown(t, rep)
	for _, want := range []string{
		"| gang: groups partially bound (all runs) | 0 | upstream 0, ours 0 | yes |",
		"| gang: groups that cannot fit left pending (all runs) | all | upstream 12 of 12, ours 12 of 12 | yes |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	if strings.Contains(md, "partially bound: ") {
		t.Errorf("a note on partially bound groups with none:\n%s", md)
	}

	// The JSON carries the group figures of every run.
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if g := back.Runs[4].Gang; g == nil || g.Groups != 4 || g.GroupBoundMillis.P99 != 100 || g.ExpectedPending != 3 {
		t.Errorf("gang figures lost in JSON: %+v", g)
	}
}

// Without runs that measured groups there is no gang section or target.
func TestNoGangSection(t *testing.T) {
	if md := markdown(t, sampleReport()); strings.Contains(md, "Gang scheduling") || strings.Contains(md, "partially bound") {
		t.Errorf("gang section without gang runs:\n%s", md)
	}
}
