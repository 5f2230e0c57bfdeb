package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/stats"
	"github.com/profile-scheduler/profile-scheduler/internal/testenv"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"github.com/profile-scheduler/profile-scheduler/test/perf/report"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

type options struct {
	scale, cases, schedulers, out, workloadsDir string
	kubeScheduler, profileScheduler, oursArgs   string
	upstreamArgs                                string
	schedulerName                               string
	qps                                         float64
	burst, parallelism, workers                 int
	stall, minStep                              time.Duration
	profile, heapProfile, swapLeaderElection    bool
	gcTrace                                     bool
	repeat                                      int
	modes                                       string
	set, apiserverArgs                          multiFlag
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func envInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return v
	}
	return def
}

func main() {
	var o options
	flag.StringVar(&o.scale, "scale", envOr("BENCH_SCALE", workloads.ScaleDefault), "parameter set: default, small for a quick run, or scale for upstream scheduler_perf's 5000-node sizes (cases without that set are left out) ($BENCH_SCALE)")
	flag.StringVar(&o.cases, "cases", envOr("BENCH_CASES", ""), "comma-separated cases to run, all when empty ($BENCH_CASES)")
	flag.StringVar(&o.schedulers, "schedulers", envOr("BENCH_SCHEDULERS", harness.Upstream+","+harness.Ours), "schedulers to run, in order ($BENCH_SCHEDULERS)")
	flag.StringVar(&o.out, "out", "bench/results", "results directory (a timestamped directory is made inside)")
	flag.StringVar(&o.workloadsDir, "workloads", "", "directory of case files and templates/ (default: the ones built in)")
	flag.StringVar(&o.kubeScheduler, "kube-scheduler", "bin/kube-scheduler", "upstream kube-scheduler binary")
	flag.StringVar(&o.profileScheduler, "profile-scheduler", "bin/profile-scheduler", "profile-scheduler binary")
	flag.StringVar(&o.oursArgs, "ours-args", envOr("BENCH_OURS_ARGS", ""), "extra flags for profile-scheduler, space-separated ($BENCH_OURS_ARGS)")
	flag.StringVar(&o.upstreamArgs, "upstream-args", envOr("BENCH_UPSTREAM_ARGS", ""), "extra flags for kube-scheduler, space-separated ($BENCH_UPSTREAM_ARGS)")
	flag.StringVar(&o.schedulerName, "scheduler-name", "bench", "schedulerName of the profile and the pods")
	flag.Float64Var(&o.qps, "qps", 5000, "client QPS of both schedulers and of the harness")
	flag.IntVar(&o.burst, "burst", 5000, "client burst of both schedulers and of the harness")
	flag.IntVar(&o.parallelism, "parallelism", 16, "parallelism of both schedulers")
	flag.IntVar(&o.workers, "workers", 16, "concurrent creates of the harness")
	flag.DurationVar(&o.stall, "stall", 60*time.Second, "give up waiting for binds after this long without one")
	flag.DurationVar(&o.minStep, "min-step", 10*time.Second, "the report notes measured steps shorter than this (too short for steady 1 s windows)")
	flag.BoolVar(&o.swapLeaderElection, "swap-leader-election", true, "swap: also restart upstream with leader election on (a lease hand-over to a standby), beside the bare restart")
	flag.IntVar(&o.repeat, "repeat", envInt("BENCH_REPEAT", 3), "runs per case, scheduler and mode, order alternating; the report shows the median runs ($BENCH_REPEAT; swap runs once, explain makes that many pairs without and with reviews)")
	flag.StringVar(&o.modes, "modes", envOr("BENCH_MODES", "throughput,latency"), "runs of each case: throughput (pods created while the scheduler is stopped, measured from its resume) and latency (pods created at the case's rate) ($BENCH_MODES)")
	flag.BoolVar(&o.profile, "profile", os.Getenv("BENCH_PROFILE") != "", "record each measured step's scheduler CPU profile with Linux perf into the results ($BENCH_PROFILE)")
	flag.BoolVar(&o.heapProfile, "heap-profile", os.Getenv("BENCH_HEAP_PROFILE") != "", "save each measured step's scheduler heap profile (/debug/pprof/heap, taken after the last bind) into the results; both schedulers serve /debug/pprof for it ($BENCH_HEAP_PROFILE)")
	flag.BoolVar(&o.gcTrace, "gctrace", os.Getenv("BENCH_GCTRACE") != "", "run both schedulers, kube-apiserver and etcd with GODEBUG=gctrace=1: every garbage collection is a line in the scheduler's log and in the run's <run>-kube-apiserver.log and <run>-etcd.log, which also keep those processes' own output ($BENCH_GCTRACE)")
	flag.Var(&o.apiserverArgs, "apiserver-arg", "add flag=value to kube-apiserver's command line (repeatable), e.g. http2-max-streams-per-connection=1000")
	flag.Var(&o.set, "set", "override a parameter, case.param=value (repeatable; $BENCH_SET holds more, space-separated)")
	flag.Parse()
	if env := os.Getenv("BENCH_SET"); env != "" {
		o.set = append(o.set, strings.Fields(env)...)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run returns an error when the harness could not measure something; a
// scheduler leaving pods unbound is a result, reported, not an error.
func run(ctx context.Context, o options) error {
	root, err := testenv.RepoRoot()
	if err != nil {
		return err
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	var fsys fs.FS = workloads.Embedded
	if o.workloadsDir != "" {
		fsys = os.DirFS(o.workloadsDir)
	}
	all, err := workloads.Load(fsys)
	if err != nil {
		return err
	}
	cases, err := selectCases(all, o.cases, o.scale)
	if err != nil {
		return err
	}
	overrides, err := parseSet(o.set)
	if err != nil {
		return err
	}
	apiserverOpts, err := apiserverOptions(o.apiserverArgs)
	if err != nil {
		return err
	}
	var modes []harness.Mode
	for _, m := range strings.Split(o.modes, ",") {
		if !slices.Contains(harness.Modes, harness.Mode(m)) {
			return fmt.Errorf("unknown mode %q (want %s or %s)", m, harness.ModeThroughput, harness.ModeLatency)
		}
		modes = append(modes, harness.Mode(m))
	}
	scheds := strings.Split(o.schedulers, ",")
	for _, s := range scheds {
		if s != harness.Upstream && s != harness.Ours {
			return fmt.Errorf("unknown scheduler %q (want %s or %s)", s, harness.Upstream, harness.Ours)
		}
	}
	bins := map[string]string{harness.Upstream: abs(o.kubeScheduler), harness.Ours: abs(o.profileScheduler)}
	for _, s := range scheds {
		if _, err := os.Stat(bins[s]); err != nil {
			return fmt.Errorf("%s binary: %w (run `make bench`, which builds it)", s, err)
		}
	}

	started := time.Now()
	dir := filepath.Join(abs(o.out), started.UTC().Format("20060102T150405Z"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(dir, "bench.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	logger := log.New(io.MultiWriter(os.Stdout, logFile), "", log.Ltime)
	logger.Printf("results in %s", dir)

	settings := harness.Settings{QPS: float32(o.qps), Burst: o.burst, Parallelism: o.parallelism, SchedulerName: o.schedulerName}
	rep := &report.Report{
		Started:        started,
		Repeat:         max(1, o.repeat),
		Modes:          modes,
		Machine:        report.ThisMachine(),
		Scale:          o.scale,
		MinStepSeconds: o.minStep.Seconds(),
		Settings:       settings,
		Params:         map[string]map[string]int{},
		Agreement:      map[string]stats.Agreement{},
	}
	vals := map[string]map[string]int{}
	for _, c := range cases {
		v, err := c.Values(o.scale, overrides[c.Name])
		if err != nil {
			return err
		}
		vals[c.Name], rep.Params[c.Name] = v, v
	}
	for name := range overrides {
		if !slices.ContainsFunc(cases, func(c *workloads.Case) bool { return c.Name == name }) {
			return fmt.Errorf("-set names case %q, which is not selected", name)
		}
	}

	// kube-apiserver serves PodGroups only when a selected case has them:
	// the other cases run on the API server they always had.
	var cpOpts []testenv.Option
	if slices.ContainsFunc(cases, (*workloads.Case).PodGroups) {
		logger.Printf("serving scheduling.k8s.io/v1beta1 with %s on (PodGroups)", workloads.GenericWorkload)
		cpOpts = append(cpOpts, testenv.WithPodGroups())
	}
	cpOpts = append(cpOpts, apiserverOpts...)
	if o.gcTrace {
		// The scheduler processes and envtest's kube-apiserver and etcd
		// inherit this environment; the bench's own runtime reads GODEBUG
		// only at its start and does not trace.
		if err := os.Setenv("GODEBUG", strings.TrimPrefix(os.Getenv("GODEBUG")+",gctrace=1", ",")); err != nil {
			return err
		}
	}
	runner := &harness.Runner{Workers: o.workers, Stall: o.stall, Log: logger, Profile: o.profile, HeapProfile: o.heapProfile, Dir: dir}
	kubeconfig := harness.KubeconfigPath(dir)
	up := &harness.KubeScheduler{Bin: bins[harness.Upstream], Kubeconfig: kubeconfig, Dir: dir, Settings: settings,
		ExtraArgs: strings.Fields(o.upstreamArgs), Pprof: o.heapProfile}
	ours := &harness.ProfileScheduler{Bin: bins[harness.Ours], Kubeconfig: kubeconfig, Dir: dir, Settings: settings,
		ExtraArgs: strings.Fields(o.oursArgs), Pprof: o.heapProfile}
	byName := map[string]harness.Scheduler{harness.Upstream: up, harness.Ours: ours}

	// Every run gets a control plane of its own, as upstream's
	// scheduler_perf starts an API server for each workload: kube-apiserver's
	// memory and CPU grow with what earlier runs left (the pod watch
	// cache's history, the events), and a run on a used control plane
	// measures slower than one on a fresh one, so a shared one would favour
	// whichever scheduler went first.
	var cp *harness.ControlPlane
	var cpOut []*os.File
	stopControlPlane := func() {
		if err := cp.Stop(); err != nil {
			logger.Printf("stopping the control plane: %v", err)
		}
		cp = nil
		for _, f := range cpOut {
			_ = f.Close()
		}
		cpOut = nil
	}
	defer stopControlPlane()
	// freshControlPlane starts the control plane of one run, named as the
	// scheduler's log of that run is.
	freshControlPlane := func(run string) error {
		stopControlPlane()
		opts := cpOpts
		if o.gcTrace {
			for _, name := range []string{"kube-apiserver", "etcd"} {
				f, err := os.Create(filepath.Join(dir, run+"-"+name+".log"))
				if err != nil {
					return err
				}
				cpOut = append(cpOut, f)
			}
			opts = append(slices.Clone(cpOpts), testenv.WithOutput(cpOut[0], cpOut[1]))
		}
		next, err := harness.StartControlPlane(dir, settings.QPS, settings.Burst, opts...)
		if err != nil {
			return fmt.Errorf("starting the control plane: %w", err)
		}
		cp, runner.CP, ours.Client = next, next, next.Client
		return nil
	}

	var failures []error
	write := func() error {
		rep.Finished = time.Now()
		return writeReport(rep, dir)
	}
	runOne := func(c *workloads.Case, s, tag string, mode harness.Mode, repeat int) (*harness.Run, error) {
		sched := byName[s]
		if err := freshControlPlane(tag + "-" + s); err != nil {
			return nil, err
		}
		up.SetRun(tag)
		ours.SetRun(tag)
		up.FeatureGates, ours.FeatureGates = c.FeatureGatesFlag(), c.FeatureGatesFlag()
		if c.Swap != nil {
			run, err := runner.RunSwap(ctx, c, vals[c.Name], sched, o.schedulerName)
			rep.Swaps = append(rep.Swaps, run)
			if s == harness.Upstream && o.swapLeaderElection && err == nil && ctx.Err() == nil {
				if err := freshControlPlane(tag + "-leader-election-" + s); err != nil {
					return nil, err
				}
				up.SetRun(tag + "-leader-election")
				up.LeaderElect = true
				run, err = runner.RunSwap(ctx, c, vals[c.Name], sched, o.schedulerName)
				up.LeaderElect = false
				rep.Swaps = append(rep.Swaps, run)
			}
			return nil, err
		}
		if c.Explain != nil {
			run, err := runner.RunExplain(ctx, c, vals[c.Name], sched, o.schedulerName, max(1, o.repeat))
			rep.Explains = append(rep.Explains, run)
			return nil, err
		}
		run, err := runner.RunCase(ctx, c, vals[c.Name], sched, o.schedulerName, mode, repeat)
		rep.Runs = append(rep.Runs, run)
		return run, err
	}
	for _, c := range cases {
		reps, caseModes := max(1, o.repeat), modes
		if c.Swap != nil || c.Explain != nil {
			reps, caseModes = 1, []harness.Mode{""}
		}
		var total stats.Agreement
		for i := range reps {
			for m, mode := range caseModes {
				// Alternate who goes first, so drift on the machine does
				// not always favour the same scheduler.
				order := slices.Clone(scheds)
				if (i+m)%2 == 1 {
					slices.Reverse(order)
				}
				tag := c.Name
				if mode != "" {
					tag += "-" + string(mode)
				}
				if reps > 1 {
					tag = fmt.Sprintf("%s-%d", tag, i+1)
				}
				placements := map[string]map[string]string{}
				for _, s := range order {
					if c.Explain != nil && s != harness.Ours {
						logger.Printf("%s: %s has no SchedulingReview; the case runs on %s only", c.Name, s, harness.Ours)
						continue
					}
					if err := ctx.Err(); err != nil {
						return errors.Join(append(failures, err, write())...)
					}
					run, err := runOne(c, s, tag, mode, i+1)
					if err != nil {
						logger.Printf("%s/%s: %v", tag, s, err)
						if inc := (*harness.IncompleteError)(nil); !errors.As(err, &inc) {
							failures = append(failures, fmt.Errorf("%s/%s: %w", tag, s, err))
						}
					}
					if run != nil {
						placements[s] = run.Placement
					}
					if err := write(); err != nil {
						return err
					}
				}
				if c.Agreement && placements[harness.Upstream] != nil && placements[harness.Ours] != nil {
					a := stats.Compare(placements[harness.Upstream], placements[harness.Ours])
					total.Compared += a.Compared
					total.Same += a.Same
					total.Missing += a.Missing
					rep.Agreement[c.Name] = total
					logger.Printf("%s: placement agreement %.1f%% (%d of %d)", tag, 100*a.Share(), a.Same, a.Compared)
				}
			}
		}
	}
	if err := write(); err != nil {
		return err
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err == nil {
		fmt.Println()
		fmt.Print(string(md))
	}
	logger.Printf("report: %s", filepath.Join(dir, "report.md"))
	return errors.Join(failures...)
}

func writeReport(rep *report.Report, dir string) error {
	jf, err := os.Create(filepath.Join(dir, "report.json"))
	if err != nil {
		return err
	}
	if err := errors.Join(rep.WriteJSON(jf), jf.Close()); err != nil {
		return err
	}
	mf, err := os.Create(filepath.Join(dir, "report.md"))
	if err != nil {
		return err
	}
	if err := errors.Join(rep.WriteMarkdown(mf), mf.Close()); err != nil {
		return err
	}
	if len(rep.Swaps) > 0 {
		return errors.Join(report.SwapChart(rep.Swaps, filepath.Join(dir, "swap.svg")),
			report.SwapChart(rep.Swaps, filepath.Join(dir, "swap.png")))
	}
	return nil
}

// selectCases picks the cases named in list, or every case that has the
// parameter set scale when list is empty.
func selectCases(all []*workloads.Case, list, scale string) ([]*workloads.Case, error) {
	if list == "" {
		var out []*workloads.Case
		for _, c := range all {
			if c.HasScale(scale) {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no case has the parameter set %q", scale)
		}
		return out, nil
	}
	var out []*workloads.Case
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(all, func(c *workloads.Case) bool { return c.Name == name })
		if i < 0 {
			var names []string
			for _, c := range all {
				names = append(names, c.Name)
			}
			return nil, fmt.Errorf("unknown case %q (have %s)", name, strings.Join(names, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

// apiserverOptions turns -apiserver-arg values ("flag=value", leading
// dashes allowed) into kube-apiserver options.
func apiserverOptions(args []string) ([]testenv.Option, error) {
	var out []testenv.Option
	for _, a := range args {
		k, v, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-apiserver-arg %q: want flag=value", a)
		}
		out = append(out, testenv.WithAPIServerArg(k, v))
	}
	return out, nil
}

// parseSet reads case.param=value overrides.
func parseSet(set []string) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	for _, s := range set {
		k, v, ok := strings.Cut(s, "=")
		c, p, ok2 := strings.Cut(k, ".")
		n, err := strconv.Atoi(v)
		if !ok || !ok2 || err != nil {
			return nil, fmt.Errorf("-set %q: want case.param=integer", s)
		}
		if out[c] == nil {
			out[c] = map[string]int{}
		}
		out[c][p] = n
	}
	return out, nil
}
