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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"github.com/profile-scheduler/profile-scheduler/test/perf/report"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

// bench is one invocation: the selected cases, the schedulers, the report
// being written, and the control plane of the run under way.
type bench struct {
	o      options
	dir    string
	logger *log.Logger
	trace  harness.Trace
	// neighbours are the cases run beside a neighbour kube-scheduler
	// (-neighbour), true for those with the bind arbiter on.
	neighbours map[string]bool
	// cpOpts start every run's control plane.
	cpOpts []controlplane.Option
	vals   map[string]map[string]int
	rep    *report.Report
	runner *harness.Runner
	up     *harness.KubeScheduler
	ours   *harness.ProfileScheduler
	byName map[string]harness.Scheduler

	cp    *harness.ControlPlane
	cpOut []*os.File
	// failures are the runs that could not measure something; the bench
	// goes on and returns them at the end.
	failures []error
}

// run returns an error when the harness could not measure something; a
// scheduler leaving pods unbound is a result, reported, not an error.
func run(ctx context.Context, o options) error {
	root, err := controlplane.RepoRoot()
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
	trace, err := harness.ParseTrace(o.trace)
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
	if trace != (harness.Trace{}) {
		logger.Printf("tracing %s", trace)
	}

	settings := harness.Settings{QPS: float32(o.qps), Burst: o.burst, Parallelism: o.parallelism, SchedulerName: o.schedulerName}
	b := &bench{
		o:      o,
		dir:    dir,
		logger: logger,
		trace:  trace,
		vals:   map[string]map[string]int{},
		rep: &report.Report{
			Started:        started,
			Repeat:         max(1, o.repeat),
			Modes:          modes,
			Machine:        report.ThisMachine(),
			Scale:          o.scale,
			MinStepSeconds: report.MinStep.Seconds(),
			Settings:       settings,
			Params:         map[string]map[string]int{},
			Agreement:      map[string]stats.Agreement{},
		},
		runner: &harness.Runner{Workers: o.workers, Stall: o.stall, Log: logger, Trace: trace, Dir: dir},
	}
	for _, c := range cases {
		v, err := c.Values(o.scale, overrides[c.Name])
		if err != nil {
			return err
		}
		b.vals[c.Name], b.rep.Params[c.Name] = v, v
	}
	if o.neighbour != "" {
		if o.neighbourRate <= 0 {
			return fmt.Errorf("-neighbour-rate must be positive, got %g", o.neighbourRate)
		}
		if cases, b.neighbours, err = neighbourCases(cases, o.neighbour, b.vals); err != nil {
			return err
		}
		for _, c := range cases {
			b.rep.Params[c.Name] = b.vals[c.Name]
		}
	}
	for name := range overrides {
		if !slices.ContainsFunc(cases, func(c *workloads.Case) bool { return c.Name == name || strings.HasPrefix(c.Name, name+"-neighbour") }) {
			return fmt.Errorf("-set names case %q, which is not selected", name)
		}
	}

	// kube-apiserver serves PodGroups only when a selected case has them:
	// the other cases run on the API server they always had.
	if slices.ContainsFunc(cases, (*workloads.Case).PodGroups) {
		logger.Printf("serving scheduling.k8s.io/v1beta1 with %s on (PodGroups)", workloads.GenericWorkload)
		b.cpOpts = append(b.cpOpts, controlplane.WithPodGroups())
	}
	if trace.GC {
		// The scheduler processes and envtest's kube-apiserver and etcd
		// inherit this environment; the bench's own runtime reads GODEBUG
		// only at its start and does not trace.
		if err := os.Setenv("GODEBUG", strings.TrimPrefix(os.Getenv("GODEBUG")+",gctrace=1", ",")); err != nil {
			return err
		}
	}
	kubeconfig := harness.KubeconfigPath(dir)
	b.up = &harness.KubeScheduler{Bin: bins[harness.Upstream], Kubeconfig: kubeconfig, Dir: dir, Settings: settings,
		ExtraArgs: strings.Fields(o.upstreamArgs), Pprof: trace.Heap || trace.Mutex}
	oursArgs := strings.Fields(o.oursArgs)
	if trace.Mutex {
		oursArgs = append(oursArgs, "--contention-profiling")
	}
	b.ours = &harness.ProfileScheduler{Bin: bins[harness.Ours], Kubeconfig: kubeconfig, Dir: dir, Settings: settings,
		ExtraArgs: oursArgs, Pprof: trace.Heap || trace.Mutex}
	b.byName = map[string]harness.Scheduler{harness.Upstream: b.up, harness.Ours: b.ours}
	defer b.stopControlPlane()

	for _, c := range cases {
		if err := b.runCase(ctx, c, scheds, modes); err != nil {
			return err
		}
	}
	if err := b.write(); err != nil {
		return err
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err == nil {
		fmt.Println()
		fmt.Print(string(md))
	}
	logger.Printf("report: %s", filepath.Join(dir, "report.md"))
	return errors.Join(b.failures...)
}

// runCase makes every run of c: each repeat and mode on each scheduler,
// order alternating, and the placement agreement of the pairs (coexist,
// routes and isolation cases make their own runs). A run that
// fails is logged and added to b.failures; an error returned ends the bench.
func (b *bench) runCase(ctx context.Context, c *workloads.Case, scheds []string, modes []harness.Mode) error {
	switch {
	case c.Coexist != nil:
		return b.runCoexist(ctx, c)
	case c.Routes != nil:
		return b.runRoutes(ctx, c)
	case c.Isolation != nil:
		return b.runIsolation(ctx, c, scheds, modes)
	}
	reps, caseModes := max(1, b.o.repeat), modes
	if c.Swap != nil || c.Explain != nil || c.Rollout != nil {
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
					b.logger.Printf("%s: %s has no SchedulingReview; the case runs on %s only", c.Name, s, harness.Ours)
					continue
				}
				if err := ctx.Err(); err != nil {
					return errors.Join(append(b.failures, err, b.write())...)
				}
				run, err := b.runOne(ctx, c, s, tag, mode, i+1)
				if err != nil {
					b.logger.Printf("%s/%s: %v", tag, s, err)
					if inc := (*harness.IncompleteError)(nil); !errors.As(err, &inc) {
						b.failures = append(b.failures, fmt.Errorf("%s/%s: %w", tag, s, err))
					}
				}
				if run != nil {
					placements[s] = run.Placement
				}
				if err := b.write(); err != nil {
					return err
				}
			}
			if c.Agreement && placements[harness.Upstream] != nil && placements[harness.Ours] != nil {
				a := stats.Compare(placements[harness.Upstream], placements[harness.Ours])
				total.Compared += a.Compared
				total.Same += a.Same
				total.Missing += a.Missing
				b.rep.Agreement[c.Name] = total
				b.logger.Printf("%s: placement agreement %.1f%% (%d of %d)", tag, 100*a.Share(), a.Same, a.Compared)
			}
		}
	}
	return nil
}

// runOne makes one run of c on scheduler s, on a control plane of its own,
// and adds it to the report. Each kind of case is dispatched here to its
// harness method (RunSwap, RunExplain, RunCase): a new kind of case gets a
// branch of its own and a field of the Report for its runs.
func (b *bench) runOne(ctx context.Context, c *workloads.Case, s, tag string, mode harness.Mode, repeat int) (*harness.Run, error) {
	sched := b.byName[s]
	if err := b.freshControlPlane(tag + "-" + s); err != nil {
		return nil, err
	}
	b.up.SetRun(tag)
	b.ours.SetRun(tag)
	b.up.FeatureGates, b.ours.FeatureGates = c.FeatureGatesFlag(), c.FeatureGatesFlag()
	b.runner.Neighbour = nil
	if arbiter, ok := b.neighbours[c.Name]; ok {
		nb, restore, err := b.neighbour(c, s, tag, arbiter)
		if err != nil {
			return nil, err
		}
		defer func() { restore(); b.runner.Neighbour = nil }()
		b.runner.Neighbour = nb
	}
	vals, name := b.vals[c.Name], b.o.schedulerName
	switch {
	case c.Swap != nil:
		run, err := b.runner.RunSwap(ctx, c, vals, sched, name)
		b.rep.Swaps = append(b.rep.Swaps, run)
		if s == harness.Upstream && err == nil && ctx.Err() == nil {
			// Upstream once more with leader election on: each restart
			// is a lease hand-over to a standby, beside the bare restart.
			if err := b.freshControlPlane(tag + "-leader-election-" + s); err != nil {
				return nil, err
			}
			b.up.SetRun(tag + "-leader-election")
			b.up.LeaderElect = true
			run, err = b.runner.RunSwap(ctx, c, vals, sched, name)
			b.up.LeaderElect = false
			b.rep.Swaps = append(b.rep.Swaps, run)
		}
		return nil, err
	case c.Explain != nil:
		run, err := b.runner.RunExplain(ctx, c, vals, sched, name, max(1, b.o.repeat))
		b.rep.Explains = append(b.rep.Explains, run)
		return nil, err
	case c.Rollout != nil:
		run, err := b.runner.RunRollout(ctx, c, vals, sched, name, max(1, b.o.repeat))
		b.rep.Rollouts = append(b.rep.Rollouts, run)
		return nil, err
	default:
		run, err := b.runner.RunCase(ctx, c, vals, sched, name, mode, repeat)
		b.rep.Runs = append(b.rep.Runs, run)
		return run, err
	}
}

// freshControlPlane stops the previous run's control plane and starts the
// one of run, named as the scheduler's log of that run is. Every run gets a
// control plane of its own, as upstream's scheduler_perf starts an API
// server for each workload: kube-apiserver's memory and CPU grow with what
// earlier runs left (the pod watch cache's history, the events), and a run
// on a used control plane measures slower than one on a fresh one, so a
// shared one would favour whichever scheduler went first.
func (b *bench) freshControlPlane(run string) error {
	b.stopControlPlane()
	opts := b.cpOpts
	if b.trace.GC {
		for _, name := range []string{"kube-apiserver", "etcd"} {
			f, err := os.Create(filepath.Join(b.dir, run+"-"+name+".log"))
			if err != nil {
				return err
			}
			b.cpOut = append(b.cpOut, f)
		}
		opts = append(slices.Clone(b.cpOpts), controlplane.WithOutput(b.cpOut[0], b.cpOut[1]))
	}
	next, err := harness.StartControlPlane(b.dir, b.rep.Settings.QPS, b.rep.Settings.Burst, opts...)
	if err != nil {
		return fmt.Errorf("starting the control plane: %w", err)
	}
	b.cp, b.runner.CP, b.ours.Client = next, next, next.Client
	return nil
}

func (b *bench) stopControlPlane() {
	if err := b.cp.Stop(); err != nil {
		b.logger.Printf("stopping the control plane: %v", err)
	}
	b.cp = nil
	for _, f := range b.cpOut {
		_ = f.Close()
	}
	b.cpOut = nil
}

// write writes the report as it stands: after every run, so a bench cut
// short still leaves one.
func (b *bench) write() error {
	b.rep.Finished = time.Now()
	return writeReport(b.rep, b.dir)
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
	var errs []error
	if len(rep.Swaps) > 0 {
		errs = append(errs, report.SwapChart(rep.Swaps, filepath.Join(dir, "swap.svg")),
			report.SwapChart(rep.Swaps, filepath.Join(dir, "swap.png")))
	}
	for _, r := range rep.Rollouts {
		if r.Promote != nil && len(r.Promote.Timeline) > 0 {
			errs = append(errs, report.RolloutChart(r.Promote, filepath.Join(dir, "rollout.svg")))
			break
		}
	}
	return errors.Join(errs...)
}
