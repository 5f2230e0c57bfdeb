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
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// Report is everything one benchmark run measured.
type Report struct {
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Machine  Machine   `json:"machine"`
	Scale    string    `json:"scale"`
	// MinStepSeconds is how long a measured step should last; shorter
	// ones are noted under the table (0: no check).
	MinStepSeconds float64 `json:"minStepSeconds,omitempty"`
	// Modes are the runs each case had per scheduler and repeat.
	Modes []harness.Mode `json:"modes"`
	// Repeat is how many runs each case had per scheduler and mode.
	Repeat   int                       `json:"repeat"`
	Settings harness.Settings          `json:"settings"`
	Params   map[string]map[string]int `json:"params"`
	Runs     []*harness.Run            `json:"runs"`
	Swaps    []*harness.SwapRun        `json:"swaps,omitempty"`
	Explains []*harness.ExplainRun     `json:"explains,omitempty"`
	Coexists []*harness.CoexistRun     `json:"coexists,omitempty"`
	// Storms are the coexist cases' bind storms with the arbiter.
	Storms   []*harness.StormRun   `json:"storms,omitempty"`
	Routes   []*harness.RoutesRun  `json:"routes,omitempty"`
	Rollouts []*harness.RolloutRun `json:"rollouts,omitempty"`
	// Isolations are the isolation case's runs; IsolationNotes say what
	// the bench left out of it, and why.
	Isolations     []*harness.IsolationRun `json:"isolations,omitempty"`
	IsolationNotes []string                `json:"isolationNotes,omitempty"`
	// Agreement per case that has one (placements compared pod by pod).
	Agreement map[string]stats.Agreement `json:"agreement,omitempty"`
}

// Machine describes where the benchmark ran.
type Machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpuModel"`
	MemoryGiB int    `json:"memoryGiB"`
	Kernel    string `json:"kernel"`
	Go        string `json:"go"`
}

// ThisMachine reads the CPU model, memory and kernel from /proc.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), Go: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var kb int
			if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil {
				m.MemoryGiB = (kb + 512*1024) / (1024 * 1024)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// WriteJSON writes the report, indented.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// find returns the run of case c on scheduler s in mode m; with several,
// the median: by average throughput in a throughput run, by p99 latency in
// a latency run (the lower middle one for an even count), runs that failed
// counting as the worst.
func (r *Report) find(c, s string, m harness.Mode) *harness.Run {
	var runs []*harness.Run
	for _, run := range r.Runs {
		if run.Case == c && run.Scheduler == s && run.Mode == m {
			runs = append(runs, run)
		}
	}
	if len(runs) == 0 {
		return nil
	}
	// Higher is better.
	key := func(run *harness.Run) float64 {
		switch {
		case run.Error != "":
			return math.Inf(-1)
		case m == harness.ModeLatency:
			return -run.LatencyMillis.P99
		default:
			return run.Throughput.Average
		}
	}
	sort.SliceStable(runs, func(i, j int) bool { return key(runs[i]) < key(runs[j]) })
	return runs[(len(runs)-1)/2]
}

// runs is the pair of runs the tables show for one case and scheduler.
type runs struct{ thr, lat *harness.Run }

func (r *Report) pick(c, s string) runs {
	return runs{thr: r.find(c, s, harness.ModeThroughput), lat: r.find(c, s, harness.ModeLatency)}
}

// peakRSS is the larger peak of the two runs.
func (p runs) peakRSS() float64 {
	var rss int64
	for _, run := range []*harness.Run{p.thr, p.lat} {
		if run != nil {
			rss = max(rss, run.PeakRSSBytes)
		}
	}
	return float64(rss)
}

// writeNotes lists notes under a table, a blank line after them.
func writeNotes(b *strings.Builder, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(b, "- %s\n", n)
	}
	if len(notes) > 0 {
		b.WriteString("\n")
	}
}

const mib = 1 << 20

// WriteMarkdown writes the tables.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# Benchmark %s\n\n", r.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(b, "Machine: %d CPUs (%s), %d GiB, Linux %s, %s. Scale: %s. ",
		r.Machine.CPUs, r.Machine.CPUModel, r.Machine.MemoryGiB, r.Machine.Kernel, r.Machine.Go, r.Scale)
	fmt.Fprintf(b, "Both schedulers: client QPS %g, burst %d, parallelism %d, one process at a time, each run on a new local control plane.\n\n",
		r.Settings.QPS, r.Settings.Burst, r.Settings.Parallelism)
	if r.Repeat > 1 {
		fmt.Fprintf(b, "Each case ran %d times per scheduler and kind of run, order alternating; the tables show each scheduler's median run, by throughput or by p99 latency (all runs are in report.json).\n\n", r.Repeat)
	}

	var cases []string
	for _, run := range r.Runs {
		if len(cases) == 0 || cases[len(cases)-1] != run.Case {
			cases = append(cases, run.Case)
		}
	}
	if len(cases) > 0 {
		b.WriteString("## Throughput, latency and cost\n\n")
		b.WriteString("Each case runs twice per scheduler, each run on a control plane of its own. " +
			"Throughput run: the measured pods are created while the scheduler process is stopped (SIGSTOP), then it is resumed; " +
			"pods bound per second from the resume, average and p50/p90/p99 of 1 s windows, and the scheduler's CPU time from the resume to the last bind, per pod bound. " +
			"Latency run: the measured pods are created at the same rate for both (arrival: the rate reached, upstream / ours); " +
			"creation to bind, both seen by one watch. RSS: the scheduler's peak resident set over both runs.\n\n")
		b.WriteString("| case | pods | upstream pods/s avg (p50/p90/p99) | ours pods/s avg (p50/p90/p99) | arrival pods/s | upstream latency ms p50/p90/p99 | ours latency ms p50/p90/p99 | upstream CPU ms per pod / RSS MiB | ours CPU ms per pod / RSS MiB | throughput ours/up | p99 latency ours/up | CPU per pod ours/up | RSS ours/up |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		var notes []string
		for _, c := range cases {
			if n := r.shortSteps(c); n != "" {
				notes = append(notes, n)
			}
			if n := r.connectionStorms(c); n != "" {
				notes = append(notes, n)
			}
			up, ours := r.pick(c, harness.Upstream), r.pick(c, harness.Ours)
			pods, arrival := 0, []string{}
			for _, p := range []runs{up, ours} {
				for _, run := range []*harness.Run{p.thr, p.lat} {
					if run != nil {
						pods = max(pods, run.MeasuredPods)
					}
				}
				if p.lat != nil && p.lat.CreateSeconds > 0 {
					arrival = append(arrival, fmt.Sprintf("%.0f", float64(p.lat.MeasuredPods)/p.lat.CreateSeconds))
				} else {
					arrival = append(arrival, "–")
				}
			}
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c, pods,
				thr(up.thr), thr(ours.thr), strings.Join(arrival, " / "), lat(up.lat), lat(ours.lat), cost(up), cost(ours),
				ratio(up.thr, ours.thr, func(r *harness.Run) float64 { return r.Throughput.Average }),
				ratio(up.lat, ours.lat, func(r *harness.Run) float64 { return r.LatencyMillis.P99 }),
				ratio(up.thr, ours.thr, cpuPerPod),
				rssRatio(up, ours))
			for _, run := range r.Runs {
				if run.Case == c {
					if n := runNote(run, r.Repeat > 1); n != "" {
						notes = append(notes, n)
					}
				}
			}
		}
		b.WriteString("\n")
		writeNotes(b, notes)
	}

	r.writeControlPlane(b, cases)

	if len(r.Agreement) > 0 {
		b.WriteString("## Placement agreement\n\n")
		b.WriteString("Measured pods of cases built so that every pod has exactly one best node; share placed on the same node by both schedulers.\n\n")
		b.WriteString("| case | compared | same node | agreement | missing |\n|---|---:|---:|---:|---:|\n")
		for _, c := range cases {
			if a, ok := r.Agreement[c]; ok {
				fmt.Fprintf(b, "| %s | %d | %d | %.1f%% | %d |\n", c, a.Compared, a.Same, 100*a.Share(), a.Missing)
			}
		}
		b.WriteString("\n")
	}

	r.writeGang(b, cases)
	if len(r.Swaps) > 0 {
		r.writeSwap(b)
	}
	r.writeExplain(b)
	r.writeRollout(b)
	r.writeRoutes(b)
	r.writeCoexist(b)
	r.writeStorm(b)
	r.writeIsolation(b)
	r.writeNeighbour(b, cases)
	r.writeTargets(b, cases)
	_, err := io.WriteString(w, b.String())
	return err
}
