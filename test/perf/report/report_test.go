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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

func sampleReport() *Report {
	run := func(sched string, mode harness.Mode, avg, p99, cpu float64, rss int64) *harness.Run {
		return &harness.Run{
			Case: "basic", Scheduler: sched, Mode: mode, MeasuredPods: 100, Bound: 100, CreateSeconds: 2,
			Throughput:    stats.Throughput{Average: avg, P50: avg, P90: avg, P99: avg},
			LatencyMillis: stats.Summary{N: 100, P50: p99 / 2, P90: p99 * 0.9, P99: p99},
			CPUSeconds:    cpu, PeakRSSBytes: rss,
		}
	}
	swap := func(sched string, gap float64) *harness.SwapRun {
		return &harness.SwapRun{
			Scheduler: sched, Swaps: 4, Rate: 20, Created: 50, Bound: 50, LongestGapMillis: gap,
			ApplyToPlacedMillis: stats.Summary{P50: gap / 2, P99: gap},
			Series:              []harness.Point{{T: 0.5, N: 1}, {T: 1, N: 2}, {T: 2, N: 3}},
			SwapAtSeconds:       []float64{0.7, 1.5},
		}
	}
	return &Report{
		Started:  time.Unix(0, 0),
		Settings: harness.Settings{QPS: 5000, Burst: 5000, Parallelism: 16},
		// Throughput and CPU come from the throughput runs, latency from the
		// latency runs (whose other figures must not be used), RSS is the
		// peak of both.
		Runs: []*harness.Run{
			run(harness.Upstream, harness.ModeThroughput, 100, 9999, 2, 100<<20),
			run(harness.Ours, harness.ModeThroughput, 120, 1, 3, 150<<20),
			run(harness.Upstream, harness.ModeLatency, 50, 200, 1, 80<<20),
			run(harness.Ours, harness.ModeLatency, 1, 100, 9, 160<<20),
		},
		Swaps: []*harness.SwapRun{swap(harness.Upstream, 2000), swap(harness.Ours, 100)},
		Agreement: map[string]stats.Agreement{
			"basic": {Compared: 100, Same: 100},
		},
	}
}

// markdown is r's Markdown report.
func markdown(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestMarkdownRatios(t *testing.T) {
	md := markdown(t, sampleReport())
	var row string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| basic | 100 |") {
			row = l
			break
		}
	}
	if row == "" {
		t.Fatalf("no row for basic in:\n%s", md)
	}
	// Ratios ours/upstream close the row: throughput, p99 latency, CPU per
	// pod, RSS; before them the arrival rate of the latency runs and CPU ms
	// per pod of the throughput runs.
	if !strings.HasSuffix(row, "| 50 / 50 | 100/180/200 | 50/90/100 | 20.00 / 100 | 30.00 / 160 | 1.20 | 0.50 | 1.50 | 1.60 |") {
		t.Errorf("row wrong: %s", row)
	}
	for _, want := range []string{"| basic | 100 | 100 | 100.0% | 0 |",
		"| basic: throughput ours/upstream | >= 1.0 | 1.20 | yes |",
		"| basic: CPU per pod ours/upstream | <= 1.1 | 1.50 | **no** |", "| longest gap with no bind, ms | 2000 | 100 | 0.05 |", "| pods created / bound | 50 / 50 | 50 / 50 | |"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
}

func TestJSONAndChart(t *testing.T) {
	r := sampleReport()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Runs) != 4 || back.Runs[1].Throughput.Average != 120 || back.Runs[3].Mode != harness.ModeLatency {
		t.Errorf("JSON round trip lost runs: %+v", back.Runs)
	}
	path := filepath.Join(t.TempDir(), "swap.svg")
	if err := SwapChart(r.Swaps, path); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("profile-scheduler (update)")) {
		t.Errorf("chart is not an SVG with the legend")
	}
}

func TestMedianRun(t *testing.T) {
	r := &Report{Repeat: 3}
	for i, avg := range []float64{50, 90, 70} {
		r.Runs = append(r.Runs, &harness.Run{Case: "basic", Scheduler: harness.Ours, Mode: harness.ModeThroughput, Repeat: i + 1,
			Throughput: stats.Throughput{Average: avg}})
	}
	for i, p99 := range []float64{300, 100, 200} {
		r.Runs = append(r.Runs, &harness.Run{Case: "basic", Scheduler: harness.Ours, Mode: harness.ModeLatency, Repeat: i + 1,
			LatencyMillis: stats.Summary{P99: p99}})
	}
	if got := r.find("basic", harness.Ours, harness.ModeThroughput); got.Repeat != 3 {
		t.Errorf("median throughput run = %d, want run 3 (70 pods/s)", got.Repeat)
	}
	if got := r.find("basic", harness.Ours, harness.ModeLatency); got.Repeat != 3 {
		t.Errorf("median latency run = %d, want run 3 (p99 200 ms)", got.Repeat)
	}
	r.Runs[2].Error = "timed out"
	if got := r.find("basic", harness.Ours, harness.ModeThroughput); got.Repeat != 1 {
		t.Errorf("median run with a failure = %d, want run 1 (50 pods/s; the failed one counts as slowest)", got.Repeat)
	}
	r.Runs[3].Error = "timed out"
	if got := r.find("basic", harness.Ours, harness.ModeLatency); got.Repeat != 3 {
		t.Errorf("median latency run with a failure = %d, want run 3 (p99 200 ms; the failed one counts as slowest)", got.Repeat)
	}
	if r.find("basic", harness.Upstream, harness.ModeThroughput) != nil {
		t.Errorf("found a run that does not exist")
	}
}

// With repeated runs the targets show the ratio of the median runs and the
// range of the ratios of each back-to-back pair.
func TestTargetsShowTheRangeOverRuns(t *testing.T) {
	r := &Report{Repeat: 3}
	for i, pair := range [][2]float64{{100, 90}, {100, 120}, {100, 105}} {
		for j, sched := range []string{harness.Upstream, harness.Ours} {
			r.Runs = append(r.Runs, &harness.Run{Case: "basic", Scheduler: sched, Mode: harness.ModeThroughput, Repeat: i + 1,
				MeasuredPods: 10, Bound: 10, CPUSeconds: 1, Throughput: stats.Throughput{Average: pair[j]}})
		}
	}
	want := "| basic: throughput ours/upstream | >= 1.0 | 1.05 (runs 0.90–1.20) | yes |"
	if md := markdown(t, r); !strings.Contains(md, want) {
		t.Errorf("missing %q in:\n%s", want, md)
	}
}

// Measured steps shorter than MinStepSeconds are noted under the table, with
// how many and the shortest; none is noted when all are long enough.
func TestShortStepsNoted(t *testing.T) {
	r := sampleReport()
	for i, run := range r.Runs {
		run.MeasureSeconds = []float64{3.2, 12, 15, 11}[i]
	}
	md := func() string { return markdown(t, r) }
	if out := md(); strings.Contains(out, "lasted under") {
		t.Errorf("no minimum set, yet a note:\n%s", out)
	}
	r.MinStepSeconds = 10
	if out, want := md(), "- basic: 1 of 4 measured steps lasted under 10 s (shortest 3.2 s)"; !strings.Contains(out, want) {
		t.Errorf("report lacks %q:\n%s", want, out)
	}
	r.Runs[0].MeasureSeconds = 10
	if out := md(); strings.Contains(out, "lasted under") {
		t.Errorf("every step lasted 10 s or more, yet a note:\n%s", out)
	}
}

// A run whose scheduler had more sockets open than a quiet one ever does
// gets a note with each scheduler's range; quiet runs get none.
func TestConnectionStormNoted(t *testing.T) {
	r := sampleReport()
	for i, run := range r.Runs {
		run.PeakSockets = []int{20, 18, 14, 30}[i]
	}
	md := func() string { return markdown(t, r) }
	if out := md(); strings.Contains(out, "connection storm") {
		t.Errorf("no run over %d sockets, yet a note:\n%s", stormSockets, out)
	}
	r.Runs[0].PeakSockets = 467
	want := "- basic: peak open sockets in the measured steps upstream 14–467, ours 18–30; over 64 is a connection storm"
	if out := md(); !strings.Contains(out, want) {
		t.Errorf("report lacks %q:\n%s", want, out)
	}
}

// The chart shows every scheduler over the same number of changes, and
// binds per bin around each change averaged over those changes.
func TestSwapChartWindows(t *testing.T) {
	// Binds at 0.05 s steps from 0 to 10 s, none in [3, 3.5) and [6, 7).
	run := &harness.SwapRun{Scheduler: harness.Upstream, SwapAtSeconds: []float64{3, 6, 9}}
	n := 0
	for i := range 200 {
		x := float64(i)*0.05 + 0.01
		if (x >= 3 && x < 3.5) || (x >= 6 && x < 7) {
			continue
		}
		n++
		run.Series = append(run.Series, harness.Point{T: x, N: n})
	}
	ours := &harness.SwapRun{Scheduler: harness.Ours, SwapAtSeconds: []float64{1, 2, 3, 4, 5}, Series: run.Series}
	le := &harness.SwapRun{Scheduler: harness.Upstream, LeaderElection: true, SwapAtSeconds: []float64{3, 6, 9, 12}, Series: run.Series}
	empty := &harness.SwapRun{Scheduler: harness.Ours, LeaderElection: false}
	ss := swapSeries([]*harness.SwapRun{empty, ours, le, run})
	if len(ss) != 3 || ss[0].run != run || ss[1].run != le || ss[2].run != ours {
		t.Fatalf("series = %+v, want restart, lease hand-over, update", ss)
	}
	if got := sharedChanges(ss); got != 3 {
		t.Errorf("sharedChanges = %d, want 3 (the fewest any run made)", got)
	}
	starts, mean := bindsAround(run, 2, 1, 1, 0.5)
	if len(starts) != 4 || starts[0] != -1 || starts[3] != 0.5 {
		t.Fatalf("bins start at %v, want -1, -0.5, 0, 0.5", starts)
	}
	// Change at 3: 10, 10, 0, 10 binds; change at 6: 10, 10, 0, 0.
	want := []float64{10, 10, 0, 5}
	for i := range want {
		if mean[i] != want[i] {
			t.Errorf("mean binds per bin = %v, want %v", mean, want)
			break
		}
	}
	// A window stops at the next change: the bin past it is left out.
	short := &harness.SwapRun{SwapAtSeconds: []float64{3, 3.6}, StormSeconds: 1, Series: run.Series}
	starts, mean = bindsAround(short, 1, 1, 1, 0.5)
	if len(starts) != 3 || starts[2] != 0 || mean[0] != 10 || mean[2] != 0 {
		t.Errorf("window cut at the next change: starts %v, mean %v, want [-1 -0.5 0], [10 10 0]", starts, mean)
	}
	// And the last change's window stops at the end of the storm.
	short.SwapAtSeconds = []float64{3}
	short.StormSeconds = 0.5
	if starts, _ = bindsAround(short, 1, 1, 1, 0.5); len(starts) != 3 {
		t.Errorf("window cut at the storm's end: starts %v, want [-1 -0.5 0]", starts)
	}
	// The report puts the lease hand-over beside the bare restart.
	rep := &Report{Swaps: []*harness.SwapRun{
		{Scheduler: harness.Upstream, Swaps: 3, LongestGapMillis: 600, Changes: []harness.Change{{GapMillis: 500}, {GapMillis: 600}}},
		{Scheduler: harness.Upstream, LeaderElection: true, Swaps: 3, LongestGapMillis: 3500, Changes: []harness.Change{{GapMillis: 3000}, {GapMillis: 3500}}},
		{Scheduler: harness.Ours, Swaps: 9, LongestGapMillis: 60, Changes: []harness.Change{{GapMillis: 40}, {GapMillis: 60}}},
	}}
	md := markdown(t, rep)
	for _, want := range []string{
		"| measure | upstream (restart) | upstream (restart, lease hand-over) | ours (update) | ours/upstream |",
		"| longest gap with no bind, ms | 600 | 3500 | 60 | 0.10 |",
		"| gap after a change p50 / max, ms | 500 / 600 | 3000 / 3500 | 40 / 60 | 0.10 |",
		"| swap: upstream lease hand-over gap (for comparison) | reported | 3500 ms | yes |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	path := filepath.Join(t.TempDir(), "swap.png")
	if err := SwapChart([]*harness.SwapRun{run, le, ours}, path); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("swap.png is not a PNG (%v)", err)
	}
}

func TestControlPlaneCostPerPod(t *testing.T) {
	rep := sampleReport()
	if md := markdown(t, rep); strings.Contains(md, "## Control plane cost") {
		t.Errorf("a report of runs without control plane CPU has the section:\n%s", md)
	}
	for _, run := range rep.Runs {
		if run.Mode == harness.ModeThroughput {
			// 100 pods bound: upstream 0.2 s + 0.05 s, ours 0.3 s + 0.05 s.
			run.APIServerCPUSeconds, run.EtcdCPUSeconds = 0.2, 0.05
			if run.Scheduler == harness.Ours {
				run.APIServerCPUSeconds = 0.3
			}
		}
	}
	md := markdown(t, rep)
	for _, want := range []string{"## Control plane cost", "| basic | 2.00 / 0.50 | 3.00 / 0.50 | 1.40 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
}

func TestControlPlaneStallNoted(t *testing.T) {
	rep := sampleReport()
	for _, run := range rep.Runs {
		if run.Mode == harness.ModeLatency && run.Scheduler == harness.Upstream {
			run.StallSeconds = 2
		}
	}
	md := markdown(t, rep)
	want := "- basic/latency/upstream: the harness's own watch saw pod creations bunched (4 or more within 3ms) in 2 s of the run"
	if !strings.Contains(md, want) {
		t.Errorf("missing %q in:\n%s", want, md)
	}
	if strings.Contains(md, "basic/latency/ours: the harness") {
		t.Errorf("a stall noted for a run without one:\n%s", md)
	}
}

func TestRolloutChart(t *testing.T) {
	applied := time.Unix(1000, 0)
	var pods []harness.PodState
	for i := range 100 {
		bound := applied.Add(time.Duration(i) * 100 * time.Millisecond)
		pods = append(pods, harness.PodState{UID: fmt.Sprintf("uid-%d", i), Created: bound.Add(-50 * time.Millisecond), Bound: bound})
	}
	run := &harness.PromoteRun{Generation: 2, Rate: 10, Steps: "shadow 4s, canary 50% 4s",
		Timeline: harness.GenerationTimeline(pods, applied, applied.Add(4*time.Second), applied.Add(8*time.Second), applied.Add(10*time.Second), 50),
		Changes:  []harness.RolloutChange{{What: "change applied (step 1)"}, {What: "step 2: canary 50%", AtSeconds: 4}, {What: "promoted", AtSeconds: 8}}}
	path := filepath.Join(t.TempDir(), "rollout.svg")
	if err := RolloutChart(run, path); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "generation 2 (candidate, then promoted)", "4 s: step 2: canary 50%"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the chart has no %q", want)
		}
	}
	if err := RolloutChart(&harness.PromoteRun{}, path); err == nil {
		t.Error("a run without a timeline is drawn")
	}
}
