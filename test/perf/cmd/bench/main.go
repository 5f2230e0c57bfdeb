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
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

type options struct {
	scale, cases, schedulers, out, workloadsDir string
	kubeScheduler, profileScheduler, oursArgs   string
	upstreamArgs                                string
	schedulerName                               string
	qps                                         float64
	burst, parallelism, workers                 int
	stall                                       time.Duration
	repeat                                      int
	modes                                       string
	trace                                       string
	set                                         multiFlag
	neighbour                                   string
	neighbourRate                               float64
	stormBinds                                  int
	stormRate                                   float64
	coexistSetups                               string
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
	flag.IntVar(&o.repeat, "repeat", envInt("BENCH_REPEAT", 3), "runs per case, scheduler and mode, order alternating; the report shows the median runs ($BENCH_REPEAT; swap runs once, explain makes that many pairs without and with reviews, and as many without and with a capacity scenario)")
	flag.StringVar(&o.modes, "modes", envOr("BENCH_MODES", "throughput,latency"), "runs of each case: throughput (pods created while the scheduler is stopped, measured from its resume) and latency (pods created at the case's rate) ($BENCH_MODES)")
	flag.StringVar(&o.trace, "trace", envOr("BENCH_TRACE", ""), "what an investigation records beside the figures, comma-separated ($BENCH_TRACE): "+
		"cpu (each measured step's scheduler CPU profile with Linux perf, <run>.perf.txt), "+
		"heap (the scheduler's heap profile after the step's last bind, <run>.heap.pb.gz), "+
		"gc (GODEBUG=gctrace=1 for both schedulers, kube-apiserver and etcd; <run>-kube-apiserver.log, <run>-etcd.log), "+
		"mutex (the scheduler's mutex profile after the step's last bind, ours with --contention-profiling, <run>.mutex.pb.gz)")
	flag.StringVar(&o.neighbour, "neighbour", envOr("BENCH_NEIGHBOUR", ""), "run each plain case (not coexist, routes, swap, explain, rollout, isolation) beside a kube-scheduler binding -neighbour-rate pods/s of its own, once per variant, comma-separated: "+
		"plain (<case>-neighbour), arbiter (<case>-neighbour-arbiter: the bind arbiter on, served by ours, or beside upstream by an operator serving it alone) ($BENCH_NEIGHBOUR)")
	flag.Float64Var(&o.neighbourRate, "neighbour-rate", 1, "pods per second the -neighbour kube-scheduler binds")
	flag.IntVar(&o.stormBinds, "storm-binds", 3000, "binds of the coexist cases' bind storm (one per repeat, after the setups): the harness binds as two schedulers, half the pods fitting, the bind arbiter judging, its certificate rotated midway; 0: no storm")
	flag.Float64Var(&o.stormRate, "storm-rate", 1000, "binds per second of the bind storm")
	flag.StringVar(&o.coexistSetups, "coexist-setups", envOr("BENCH_COEXIST_SETUPS", ""), "the coexist cases' setups to run, comma-separated, all when empty: "+harness.CoexistSetupNames()+" ($BENCH_COEXIST_SETUPS)")
	flag.Var(&o.set, "set", "override a parameter, case.param=value (repeatable; $BENCH_SET holds more, space-separated)")
	flag.Parse()
	if env := os.Getenv("BENCH_SET"); env != "" {
		o.set = append(o.set, strings.Fields(env)...)
	}
	// envtest's clients log through controller-runtime; the harness logs
	// through its own logger, and the processes' output goes to their logs.
	ctrllog.SetLogger(logr.Discard())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
