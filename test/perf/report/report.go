package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/stats"
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

func cpuPerPod(r *harness.Run) float64 { return r.CPUSeconds / float64(max(r.Bound, 1)) }

// controlPlanePerPod is kube-apiserver's and etcd's CPU per pod bound.
func controlPlanePerPod(r *harness.Run) float64 {
	return (r.APIServerCPUSeconds + r.EtcdCPUSeconds) / float64(max(r.Bound, 1))
}

// writeControlPlane shows what each scheduler's throughput run cost
// kube-apiserver and etcd per pod bound, where the runs recorded it.
func (r *Report) writeControlPlane(b *strings.Builder, cases []string) {
	recorded := func(run *harness.Run) bool { return run != nil && run.APIServerCPUSeconds > 0 }
	cell := func(run *harness.Run) string {
		if !recorded(run) {
			return "–"
		}
		n := float64(max(run.Bound, 1))
		return fmt.Sprintf("%.2f / %.2f", 1000*run.APIServerCPUSeconds/n, 1000*run.EtcdCPUSeconds/n)
	}
	var rows []string
	for _, c := range cases {
		up, ours := r.find(c, harness.Upstream, harness.ModeThroughput), r.find(c, harness.Ours, harness.ModeThroughput)
		if !recorded(up) && !recorded(ours) {
			continue
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", c, cell(up), cell(ours), ratio(up, ours, controlPlanePerPod)))
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Control plane cost\n\n")
	b.WriteString("kube-apiserver's and etcd's CPU time from the resume to the last bind of the throughput runs above, per pod bound: " +
		"what serving each scheduler cost the control plane (on 2 cores it competes with the scheduler).\n\n")
	b.WriteString("| case | upstream kube-apiserver / etcd CPU ms per pod | ours kube-apiserver / etcd CPU ms per pod | both ours/up |\n|---|---:|---:|---:|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n\n")
}

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
	r.writeTargets(b, cases)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTargets checks the figures against the project's targets: ratios
// ours/upstream per case, placement agreement, and the swap storm.
func (r *Report) writeTargets(b *strings.Builder, cases []string) {
	type check struct {
		what, target, got string
		ok                bool
	}
	var checks []check
	ok := func(a, b *harness.Run) bool { return a != nil && b != nil && a.Error == "" && b.Error == "" }
	throughput := func(r *harness.Run) float64 { return r.Throughput.Average }
	p99 := func(r *harness.Run) float64 { return r.LatencyMillis.P99 }
	for _, c := range cases {
		up, ours := r.pick(c, harness.Upstream), r.pick(c, harness.Ours)
		if ok(up.thr, ours.thr) {
			v := stats.Ratio(throughput(ours.thr), throughput(up.thr))
			checks = append(checks, check{c + ": throughput ours/upstream", ">= 1.0", r.withRange(v, c, harness.ModeThroughput, throughput), v >= 1})
		}
		if ok(up.lat, ours.lat) {
			v := stats.Ratio(p99(ours.lat), p99(up.lat))
			checks = append(checks, check{c + ": p99 latency ours/upstream", "<= 1.0", r.withRange(v, c, harness.ModeLatency, p99), v <= 1})
		}
		if ok(up.thr, ours.thr) {
			v := stats.Ratio(cpuPerPod(ours.thr), cpuPerPod(up.thr))
			checks = append(checks, check{c + ": CPU per pod ours/upstream", "<= 1.1", r.withRange(v, c, harness.ModeThroughput, cpuPerPod), v <= 1.1})
		}
	}
	for _, c := range cases {
		if a, ok := r.Agreement[c]; ok {
			checks = append(checks, check{c + ": placement agreement", "100%", fmt.Sprintf("%.1f%%", 100*a.Share()), a.Compared > 0 && a.Same == a.Compared && a.Missing == 0})
		}
	}
	if s := r.swap(harness.Ours); s != nil && s.Error == "" {
		checks = append(checks,
			check{"swap: apply→Ready p99", "< 200 ms", fmt.Sprintf("%.0f ms", s.ApplyToReadyMillis.P99), s.ApplyToReadyMillis.N > 0 && s.ApplyToReadyMillis.P99 < 200},
			check{"swap: longest gap with no bind", "< 1 s", fmt.Sprintf("%.0f ms", s.LongestGapMillis), s.LongestGapMillis < 1000},
			check{"swap: pods lost / bound twice", "0 / 0", fmt.Sprintf("%d / %d", s.Lost, s.DoubleBound), s.Lost == 0 && s.DoubleBound == 0 && len(s.Overcommitted) == 0})
		if u := r.swap(harness.Upstream); u != nil {
			checks = append(checks, check{"swap: upstream restart gap (for comparison)", "reported", fmt.Sprintf("%.0f ms", u.LongestGapMillis), true})
		}
		if u := r.swapLeaderElection(); u != nil {
			checks = append(checks, check{"swap: upstream lease hand-over gap (for comparison)", "reported", fmt.Sprintf("%.0f ms", u.LongestGapMillis), true})
		}
	}
	for _, x := range r.gangChecks(cases) {
		checks = append(checks, check(x))
	}
	for _, x := range r.targetRows() {
		checks = append(checks, check(x))
	}
	if len(checks) == 0 {
		return
	}
	b.WriteString("\n## Targets\n\n| check | target | measured | met |\n|---|---|---:|---|\n")
	for _, c := range checks {
		met := "yes"
		if !c.ok {
			met = "**no**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", c.what, c.target, c.got, met)
	}
}

// withRange formats the ratio v of the median runs and, with repeated
// runs, the range of the ratios of runs made back to back (run i of ours
// over run i of upstream): how far one pair of runs can stray.
func (r *Report) withRange(v float64, c string, m harness.Mode, f func(*harness.Run) float64) string {
	out := fmt.Sprintf("%.2f", v)
	if r.Repeat < 2 {
		return out
	}
	byRepeat := map[int]map[string]*harness.Run{}
	for _, run := range r.Runs {
		if run.Case == c && run.Mode == m && run.Error == "" {
			if byRepeat[run.Repeat] == nil {
				byRepeat[run.Repeat] = map[string]*harness.Run{}
			}
			byRepeat[run.Repeat][run.Scheduler] = run
		}
	}
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, pair := range byRepeat {
		up, ours := pair[harness.Upstream], pair[harness.Ours]
		if up == nil || ours == nil || f(up) == 0 {
			continue
		}
		x := stats.Ratio(f(ours), f(up))
		lo, hi, n = min(lo, x), max(hi, x), n+1
	}
	if n < 2 {
		return out
	}
	return fmt.Sprintf("%s (runs %.2f–%.2f)", out, lo, hi)
}

// shortSteps notes the runs of case c whose measured step (resume or first
// create to last bind) lasted less than MinStepSeconds: too few 1 s windows
// for their percentiles to mean much.
func (r *Report) shortSteps(c string) string {
	if r.MinStepSeconds <= 0 {
		return ""
	}
	n, total, shortest := 0, 0, math.Inf(1)
	for _, run := range r.Runs {
		if run.Case != c || run.Bound == 0 {
			continue
		}
		total++
		if run.MeasureSeconds < r.MinStepSeconds {
			n++
			shortest = min(shortest, run.MeasureSeconds)
		}
	}
	if n == 0 {
		return ""
	}
	add := fmt.Sprintf("-set %s.measuredPods=N", c)
	if _, ok := r.Params[c]["measuredPods"]; !ok && r.Params[c] != nil {
		// The gang case counts groups, not pods.
		add = fmt.Sprintf("-set %s.<count>=N", c)
	}
	return fmt.Sprintf("%s: %d of %d measured steps lasted under %.0f s (shortest %.1f s): add pods (%s) for steadier figures",
		c, n, total, r.MinStepSeconds, shortest, add)
}

// stormSockets is the peak of open sockets above which a run is taken to
// have had a connection storm. A scheduler keeps a few connections to the
// API server (every watch shares them) and a few listeners: 2 to 42
// sockets in the measured steps of runs without one here. Past 100
// requests in flight on one connection (kube-apiserver's default streams
// limit) the client dials a connection for each further request; such
// runs had 100 to 470.
const stormSockets = 64

// connectionStorms notes, for case c, the range of each scheduler's peak
// open sockets when a run of either went over stormSockets: the peak RSS
// of such a run is mostly the storm's (TLS handshakes, buffers and
// goroutines of hundreds of connections and the requests queued behind
// them), so a same-run RSS ratio compares a storm with a quiet run.
func (r *Report) connectionStorms(c string) string {
	type span struct{ lo, hi, n int }
	spans := map[string]*span{}
	storm := false
	for _, run := range r.Runs {
		if run.Case != c || run.PeakSockets == 0 {
			continue
		}
		sp := spans[run.Scheduler]
		if sp == nil {
			sp = &span{lo: run.PeakSockets, hi: run.PeakSockets}
			spans[run.Scheduler] = sp
		}
		sp.lo, sp.hi, sp.n = min(sp.lo, run.PeakSockets), max(sp.hi, run.PeakSockets), sp.n+1
		storm = storm || run.PeakSockets > stormSockets
	}
	if !storm {
		return ""
	}
	var parts []string
	for _, s := range []string{harness.Upstream, harness.Ours} {
		if sp := spans[s]; sp != nil {
			if sp.lo == sp.hi {
				parts = append(parts, fmt.Sprintf("%s %d", s, sp.hi))
			} else {
				parts = append(parts, fmt.Sprintf("%s %d–%d", s, sp.lo, sp.hi))
			}
		}
	}
	return fmt.Sprintf("%s: peak open sockets in the measured steps %s; over %d is a connection storm (more requests in flight than the API server's streams per connection, a new connection for each one over), whose run's peak RSS is mostly the storm's",
		c, strings.Join(parts, ", "), stormSockets)
}

func runNote(r *harness.Run, repeated bool) string {
	var parts []string
	if r.Error != "" {
		parts = append(parts, "error: "+r.Error)
	}
	if r.Bound != r.MeasuredPods {
		parts = append(parts, fmt.Sprintf("%d of %d measured pods bound", r.Bound, r.MeasuredPods))
	}
	if r.DoubleBound > 0 {
		parts = append(parts, fmt.Sprintf("%d pods bound twice", r.DoubleBound))
	}
	if len(r.Overcommitted) > 0 {
		parts = append(parts, fmt.Sprintf("%d nodes overcommitted", len(r.Overcommitted)))
	}
	if r.Preempted > 0 {
		parts = append(parts, fmt.Sprintf("%d pods preempted", r.Preempted))
	}
	if r.StallSeconds > 0 {
		parts = append(parts, fmt.Sprintf("the harness's own watch saw pod creations bunched (%d or more within %s) in %d s of the run: the control plane stalled, and the latency tail reflects it whichever scheduler ran",
			harness.BurstSize, harness.BurstWindow, r.StallSeconds))
	}
	if len(parts) == 0 {
		return ""
	}
	name := fmt.Sprintf("%s/%s/%s", r.Case, r.Mode, r.Scheduler)
	if repeated {
		name += fmt.Sprintf(" run %d", r.Repeat)
	}
	return fmt.Sprintf("%s: %s", name, strings.Join(parts, "; "))
}

func thr(r *harness.Run) string {
	if r == nil {
		return "–"
	}
	t := r.Throughput
	return fmt.Sprintf("%.1f (%.0f/%.0f/%.0f)", t.Average, t.P50, t.P90, t.P99)
}

func lat(r *harness.Run) string {
	if r == nil {
		return "–"
	}
	l := r.LatencyMillis
	return fmt.Sprintf("%.0f/%.0f/%.0f", l.P50, l.P90, l.P99)
}

func cost(p runs) string {
	cpu := "–"
	if p.thr != nil {
		cpu = fmt.Sprintf("%.2f", 1000*cpuPerPod(p.thr))
	}
	if p.thr == nil && p.lat == nil {
		return "–"
	}
	return fmt.Sprintf("%s / %.0f", cpu, p.peakRSS()/mib)
}

func rssRatio(up, ours runs) string {
	if up.peakRSS() == 0 || ours.peakRSS() == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", stats.Ratio(ours.peakRSS(), up.peakRSS()))
}

func ratio(up, ours *harness.Run, f func(*harness.Run) float64) string {
	if up == nil || ours == nil || f(up) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", stats.Ratio(f(ours), f(up)))
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
