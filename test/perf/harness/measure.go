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

package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// measure creates the measured step's pods in the run's mode and waits for
// their binds, filling the run's figures: throughput, latency, the
// scheduler's and the control plane's CPU, peak sockets, stalls,
// preemptions and overcommitted nodes. Traces (r.Trace) are taken here.
func (r *Runner) measure(ctx context.Context, c *workloads.Case, e *env, run *Run, sched Scheduler, step string, pods []*corev1.Pod, timeout time.Duration) error {
	if run.Rate > 0 {
		r.logf("%s: measuring %d pods created at %.0f/s", run, len(pods), run.Rate)
	} else {
		r.logf("%s: measuring %d pods created while the scheduler is stopped", run, len(pods))
	}
	before := map[string]int{}
	for _, s := range c.Steps {
		if s.CreatePods != nil && s.CreatePods.Prefix != step {
			before[s.CreatePods.Prefix] = e.rec.Step(s.CreatePods.Prefix).Deleted
		}
	}
	run.MeasuredPods = len(pods)
	name := fmt.Sprintf("%s-%s-%d-%s", c.Name, run.Mode, run.Repeat, sched.Name())
	if r.Trace.CPU {
		defer r.cpuProfile(name, sched.PID())()
	}
	cpu0 := sched.Usage().CPUSeconds
	procs, procErr := r.CP.Processes()
	if procErr != nil {
		r.logf("%s: no control plane CPU: %v", run, procErr)
	}
	var api0, etcd0 float64
	t0 := time.Now()
	switch run.Mode {
	case ModeThroughput:
		resume, err := pause(sched.PID())
		if err != nil {
			return err
		}
		defer resume()
		if err := r.createPods(ctx, pods); err != nil {
			return err
		}
		run.CreateSeconds = time.Since(t0).Seconds()
		if err := e.rec.WaitSeen(ctx, step, len(pods), timeout); err != nil {
			return err
		}
		t0 = time.Now()
		e.measureStart = t0
		api0, etcd0 = procs.CPUSeconds()
		resume()
	case ModeLatency:
		e.measureStart = t0
		api0, etcd0 = procs.CPUSeconds()
		if err := r.createPodsAt(ctx, pods, run.Rate); err != nil {
			return err
		}
		run.CreateSeconds = time.Since(t0).Seconds()
	default:
		return fmt.Errorf("unknown mode %q", run.Mode)
	}
	stopLists := func() {}
	if e.neighbour != nil {
		stopLists = r.countNodePodLists(ctx, e)
	}
	var stopBeside func()
	if r.beside != nil {
		stopBeside = r.beside(ctx, e)
	}
	stopSockets := watchSockets(sched.PID(), 100*time.Millisecond)
	_, waitErr := e.rec.WaitBound(ctx, step, len(pods), timeout, r.Stall)
	stopLists()
	run.CPUSeconds = sched.Usage().CPUSeconds - cpu0
	if api0 > 0 && etcd0 > 0 {
		api, etcd := procs.CPUSeconds()
		run.APIServerCPUSeconds, run.EtcdCPUSeconds = api-api0, etcd-etcd0
	}
	run.PeakSockets = stopSockets()
	r.stepProfiles(ctx, name, sched.PprofURL())
	if stopBeside != nil {
		stopBeside()
	}
	st := e.rec.StepSince(step, t0)
	run.Bound = st.Bound
	run.DoubleBound = st.Rebinds
	run.Throughput = stats.WindowThroughput(t0, st.BindTimes, time.Second)
	run.LatencyMillis = stats.Summarize(stats.Durations(st.Latencies))
	if run.Mode == ModeLatency {
		run.StallSeconds = stallSeconds(st.SeenTimes, t0)
		if r.Dir != "" {
			if err := writeLatencies(filepath.Join(r.Dir, name+".latencies.csv"), t0, st); err != nil {
				r.logf("%s: %v", run, err)
			}
		}
	}
	last := t0
	for _, b := range st.BindTimes {
		if b.After(last) {
			last = b
		}
	}
	run.MeasureSeconds = last.Sub(t0).Seconds()
	for prefix, n := range before {
		run.Preempted += e.rec.Step(prefix).Deleted - n
	}
	if c.Agreement {
		run.Placement = st.Placement
	}
	over, err := r.overcommitted(ctx)
	run.Overcommitted = over
	r.logf("%s: %d/%d bound in %.1fs, %.1f pods/s, p99 %.0f ms, %.1f CPU s",
		run, run.Bound, len(pods), run.MeasureSeconds, run.Throughput.Average, run.LatencyMillis.P99, run.CPUSeconds)
	return errors.Join(waitErr, err)
}

// overcommitted lists the benchmark nodes whose bound pods ask for more
// CPU, memory or pod slots than the nodes allocate.
func (r *Runner) overcommitted(ctx context.Context) ([]string, error) {
	nodes, err := r.CP.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: BenchLabel})
	if err != nil {
		return nil, err
	}
	pods, err := r.CP.Core.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
	if err != nil {
		return nil, err
	}
	type use struct{ cpu, mem, pods int64 }
	used := map[string]*use{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		u := used[p.Spec.NodeName]
		if u == nil {
			u = &use{}
			used[p.Spec.NodeName] = u
		}
		u.pods++
		req := requestOf(&p)
		u.cpu, u.mem = u.cpu+req.cpu, u.mem+req.mem
	}
	var over []string
	for _, n := range nodes.Items {
		u := used[n.Name]
		if u == nil {
			continue
		}
		a := n.Status.Allocatable
		if u.cpu > a.Cpu().MilliValue() || u.mem > a.Memory().Value() || u.pods > a.Pods().Value() {
			over = append(over, n.Name)
		}
	}
	return over, nil
}

// writeLatencies writes each bound pod of a latency run as a CSV row: its
// name, when it was bound (UTC, to place it in the schedulers' logs, and
// seconds from the first create) and its creation-to-bind latency, in bind
// order, so a tail can be placed in time.
func writeLatencies(path string, t0 time.Time, st StepStats) error {
	rows := make([]int, len(st.BindTimes))
	for i := range rows {
		rows[i] = i
	}
	sort.Slice(rows, func(a, b int) bool { return st.BindTimes[rows[a]].Before(st.BindTimes[rows[b]]) })
	var b strings.Builder
	b.WriteString("pod,bound_at,bound_s,latency_ms\n")
	for _, i := range rows {
		fmt.Fprintf(&b, "%s,%s,%.3f,%.1f\n", st.BoundPods[i], st.BindTimes[i].UTC().Format("15:04:05.000000"),
			st.BindTimes[i].Sub(t0).Seconds(), float64(st.Latencies[i].Microseconds())/1000)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// BurstSize pod creations seen within BurstWindow make a burst: at the
// latency runs' rates (at most 100 pods/s, one create every 10 ms or more)
// a steady watch never shows one.
const (
	BurstSize   = 4
	BurstWindow = 3 * time.Millisecond
)

// stallSeconds counts the seconds since t0 that hold a burst of creations
// among seen (when the watch first saw each pod).
func stallSeconds(seen []time.Time, t0 time.Time) int {
	times := append([]time.Time(nil), seen...)
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	stalled := map[int64]bool{}
	lo := 0
	for hi := range times {
		for times[hi].Sub(times[lo]) > BurstWindow {
			lo++
		}
		if hi-lo+1 >= BurstSize {
			stalled[int64(times[hi].Sub(t0)/time.Second)] = true
		}
	}
	return len(stalled)
}
