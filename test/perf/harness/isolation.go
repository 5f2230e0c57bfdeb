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
	"strconv"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IsolationPart is one kind of run of the isolation case.
type IsolationPart string

const (
	// PartExtender: profile A calls a slow extender, profile B none; B's
	// pods measured with A's pods pending and without them.
	PartExtender IsolationPart = "extender"
	// PartProfiles: several profiles' pods at once, each profile on a pool
	// of nodes of its own; all of them measured.
	PartProfiles IsolationPart = "profiles"
)

// IsolationVariant is where A's pods go in the extender part.
type IsolationVariant string

const (
	// VariantShared: A's pods on B's nodes.
	VariantShared IsolationVariant = "shared"
	// VariantDisjoint: A's pods on nodes of their own.
	VariantDisjoint IsolationVariant = "disjoint"
)

// IsolationVariants lists the variants in the order they run and are
// reported.
var IsolationVariants = []IsolationVariant{VariantShared, VariantDisjoint}

// OursOneLoop names ours run with ProfileLoopsOff in the isolation case.
const OursOneLoop = "ours-one-loop"

// ProfileLoopsOff is the operator's flag that serves every profile from
// one scheduling loop, as upstream does.
const ProfileLoopsOff = "--profile-loops=false"

// slowExtenderName names the slow extender (ours: its ExtenderConfig).
const slowExtenderName = "bench-slow"

// IsolationSetup is what one run of the isolation case does.
type IsolationSetup struct {
	Part IsolationPart `json:"part"`
	// Variant and WithSlow (A's pods created) are the extender part's.
	Variant  IsolationVariant `json:"variant,omitempty"`
	WithSlow bool             `json:"withSlow,omitempty"`
	Mode     Mode             `json:"mode"`
}

// String names the setup in logs, namespaces and files, short enough for
// a namespace (a DNS label of at most 63 characters) that also holds the
// case's and the scheduler's names: the extender part's runs go by their
// variant alone.
func (s IsolationSetup) String() string {
	if s.Part != PartExtender {
		return string(s.Part) + "-" + string(s.Mode)
	}
	with := "alone"
	if s.WithSlow {
		with = "with-a"
	}
	return fmt.Sprintf("%s-%s-%s", s.Variant, with, s.Mode)
}

// IsolationRun is one run of the isolation case on one scheduler process.
type IsolationRun struct {
	Case string `json:"case"`
	// Scheduler is Upstream, Ours or OursOneLoop.
	Scheduler string `json:"scheduler"`
	IsolationSetup
	Repeat    int    `json:"repeat"`
	Namespace string `json:"namespace"`
	Nodes     int    `json:"nodes"`
	// Measured is the measured pods' run: B's in the extender part, every
	// profile's in the profiles part; from the resume (throughput run) or
	// B's first create (latency run).
	Measured *Run `json:"measured,omitempty"`
	// Slow is what A's pods saw (the extender part, with them).
	Slow *SlowFigures `json:"slow,omitempty"`
	// Profiles are each profile's binds in the profiles part, timed from
	// the resume.
	Profiles []BindFigures `json:"profiles,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// SlowFigures are profile A's pods in a run with them.
type SlowFigures struct {
	Pods  int `json:"pods"`
	Bound int `json:"bound"`
	// Seconds is from A's first create (the resume, in a throughput run)
	// to A's last bind.
	Seconds float64 `json:"seconds"`
	// ExtenderCalls is how many filter calls the extender got.
	ExtenderCalls int `json:"extenderCalls"`
}

// isolationPool is a pool of nodes, labelled scenarioPool=name.
type isolationPool struct {
	name  string
	nodes int
}

// isolationGroup is one profile's pods: their step (label and name
// prefix), the profile, the pool they select, how many; slow ones are A's
// (the slow pod template, the extender asked about them).
type isolationGroup struct {
	step, profile, pool string
	pods                int
	slow, measured      bool
}

// isolationLayout is what a run creates: the pools, the profiles served
// (the slow one calls the extender), and the pods, group by group in the
// order they are created.
type isolationLayout struct {
	pools    []isolationPool
	profiles []string
	slow     string
	groups   []isolationGroup
}

// layoutIsolation lays a run of setup out with the case's values v,
// profiles named after name. The extender part serves A (name-a, calling
// the extender) and B (name-b) in every run, and has A's nodes (pool a,
// disjoint variant) in every run, so that the runs with A's pods and
// without differ by the pods alone; B's pods and nodes (pool b) are the
// same in both variants.
func layoutIsolation(s IsolationSetup, v workloads.IsolationValues, name string) isolationLayout {
	if s.Part == PartProfiles {
		var l isolationLayout
		for i := range v.Profiles {
			pool := "p" + strconv.Itoa(i+1)
			l.pools = append(l.pools, isolationPool{pool, v.PoolNodes})
			l.profiles = append(l.profiles, name+"-"+strconv.Itoa(i+1))
			l.groups = append(l.groups, isolationGroup{step: pool, profile: l.profiles[i], pool: pool, pods: v.PodsEach, measured: true})
		}
		return l
	}
	l := isolationLayout{pools: []isolationPool{{"b", v.Nodes}}, profiles: []string{name + "-a", name + "-b"}, slow: name + "-a"}
	pool := "b"
	if s.Variant == VariantDisjoint {
		// A's nodes exist alone too: B's cycles filter the same nodes.
		pool = "a"
		l.pools = append(l.pools, isolationPool{"a", v.SlowNodes})
	}
	if s.WithSlow {
		l.groups = append(l.groups, isolationGroup{step: "a", profile: name + "-a", pool: pool, pods: v.SlowPods, slow: true})
	}
	l.groups = append(l.groups, isolationGroup{step: "b", profile: name + "-b", pool: "b", pods: v.Pods, measured: true})
	return l
}

// interleave orders the pods of groups one of each in turn.
func interleave(groups [][]*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for i := 0; ; i++ {
		added := false
		for _, g := range groups {
			if i < len(g) {
				out, added = append(out, g[i]), true
			}
		}
		if !added {
			return out
		}
	}
}

// RunIsolation makes one run of the isolation case c on sched (named who
// in the report): the setup's nodes, then sched serving every profile of
// the layout in one process, then the pods. In the extender part, A's pods
// are created first: while sched is stopped in a throughput run, and
// until the extender is first called in a latency run; then B's pods,
// measured as in any case (created while stopped and measured from the
// resume, or created at the case's rate); then the run waits for A's pods.
// In the profiles part (throughput runs only), every profile's pods are
// created interleaved while sched is stopped, then measured together.
func (r *Runner) RunIsolation(ctx context.Context, c *workloads.Case, vals map[string]int, sched Scheduler, who string, setup IsolationSetup, repeat int, schedulerName string) (run *IsolationRun, err error) {
	run = &IsolationRun{Case: c.Name, Scheduler: who, IsolationSetup: setup, Repeat: repeat}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	x := c.Isolation
	v, err := x.Values(vals)
	if err != nil {
		return run, err
	}
	if setup.Part == PartProfiles && setup.Mode != ModeThroughput {
		return run, fmt.Errorf("the profiles part has throughput runs only, not %q", setup.Mode)
	}
	timeoutSec, err := c.TimeoutSeconds.Value(vals)
	if err != nil {
		return run, err
	}
	timeout, stall := time.Duration(timeoutSec)*time.Second, r.Stall
	if setup.WithSlow {
		// Behind A's pods, one loop binds none of B's for as long as the
		// extender takes for all of them.
		busy := time.Duration(v.SlowPods)*v.Delay + 30*time.Second
		timeout, stall = max(timeout, busy), max(stall, busy)
	}
	l := layoutIsolation(setup, v, schedulerName)
	e, err := r.prepare(ctx, c, setup.String()+"-"+who)
	defer r.cleanup(e)
	if err != nil {
		return run, err
	}
	run.Namespace = e.ns
	if run.Nodes, err = r.createPools(ctx, c, e, x.NodeTemplate, l.pools, vals); err != nil {
		return run, err
	}

	var ext *SlowExtender
	if setup.Part == PartExtender {
		if ext, err = StartSlowExtender(v.Delay); err != nil {
			return run, err
		}
		defer ext.Stop()
	}
	var served []ServedProfile
	for _, name := range l.profiles {
		prof, err := workloads.SchedulerProfile(c.Profile, name)
		if err != nil {
			return run, err
		}
		sp := ServedProfile{Profile: prof}
		if name == l.slow {
			sp.Extenders = []Extender{{Name: slowExtenderName, Config: ext.Config(x.Resource, v.HTTPTimeout)}}
		}
		served = append(served, sp)
	}
	r.logf("isolation/%s/%s: %d nodes; starting the scheduler with %d profiles", setup, who, run.Nodes, len(served))
	defer func() {
		u := sched.Stop(context.Background())
		if run.Measured != nil {
			run.Measured.TotalCPUSeconds, run.Measured.PeakRSSBytes = u.CPUSeconds, u.PeakRSSBytes
		}
	}()
	if err := sched.StartProfiles(ctx, served); err != nil {
		return run, err
	}
	for _, name := range l.profiles {
		if err := r.probeAs(ctx, e, name, "probe-"+name); err != nil {
			return run, err
		}
	}
	pods := map[string][]*corev1.Pod{}
	for _, g := range l.groups {
		tpl := x.PodTemplate
		if g.slow {
			tpl = x.SlowPodTemplate
		}
		ps, err := renderPods(c, tpl, g.step, 0, g.pods, e.ns, g.profile, vals)
		if err != nil {
			return run, err
		}
		for _, p := range ps {
			p.Spec.NodeSelector = map[string]string{scenarioPool: g.pool}
		}
		pods[g.step] = ps
	}
	return run, r.measureIsolation(ctx, e, run, sched, l, pods, ext, v, timeout, stall)
}

// createPools creates the pools' nodes from tpl, named pool-<pool>-<i>;
// it returns how many.
func (r *Runner) createPools(ctx context.Context, c *workloads.Case, e *env, tpl string, pools []isolationPool, vals map[string]int) (int, error) {
	var nodes []*corev1.Node
	for _, p := range pools {
		for i := range p.nodes {
			n, err := r.node(c, tpl, "pool-"+p.name, i, vals)
			if err != nil {
				return 0, err
			}
			n.Labels[scenarioPool] = p.name
			e.nodes[n.Name] = n.Labels
			nodes = append(nodes, n)
		}
	}
	return len(nodes), r.parallel(ctx, len(nodes), func(ctx context.Context, i int) error {
		_, err := r.CP.Core.CoreV1().Nodes().Create(ctx, nodes[i], metav1.CreateOptions{})
		return err
	})
}

// measureIsolation creates the layout's pods in the run's mode and waits
// for their binds, filling run.Measured, run.Profiles and run.Slow.
func (r *Runner) measureIsolation(ctx context.Context, e *env, run *IsolationRun, sched Scheduler, l isolationLayout, pods map[string][]*corev1.Pod,
	ext *SlowExtender, v workloads.IsolationValues, timeout, stall time.Duration) error {
	m := &Run{Case: run.Case, Scheduler: run.Scheduler, Namespace: e.ns, Mode: run.Mode, Repeat: run.Repeat, Nodes: run.Nodes}
	run.Measured = m
	var slow, measured []isolationGroup
	var measuredPods [][]*corev1.Pod
	for _, g := range l.groups {
		if g.slow {
			slow = append(slow, g)
		}
		if g.measured {
			measured = append(measured, g)
			measuredPods = append(measuredPods, pods[g.step])
			m.MeasuredPods += g.pods
		}
	}
	name := fmt.Sprintf("%s-%s-%d-%s", run.Case, run.IsolationSetup, run.Repeat, run.Scheduler)
	if r.Trace.CPU {
		defer r.cpuProfile(name, sched.PID())()
	}
	createSlow := func() error {
		for _, g := range slow {
			if err := r.createPods(ctx, pods[g.step]); err != nil {
				return err
			}
			if err := e.rec.WaitSeen(ctx, g.step, g.pods, timeout); err != nil {
				return err
			}
		}
		return nil
	}
	cpu0 := sched.Usage().CPUSeconds
	var t0, slowStart time.Time
	switch run.Mode {
	case ModeThroughput:
		resume, err := pause(sched.PID())
		if err != nil {
			return err
		}
		defer resume()
		if err := createSlow(); err != nil {
			return err
		}
		start := time.Now()
		if err := r.createPods(ctx, interleave(measuredPods)); err != nil {
			return err
		}
		m.CreateSeconds = time.Since(start).Seconds()
		for _, g := range measured {
			if err := e.rec.WaitSeen(ctx, g.step, g.pods, timeout); err != nil {
				return err
			}
		}
		t0 = time.Now()
		slowStart = t0
		resume()
	case ModeLatency:
		slowStart = time.Now()
		if err := createSlow(); err != nil {
			return err
		}
		if len(slow) > 0 {
			if err := ext.WaitCalled(ctx, timeout); err != nil {
				return err
			}
		}
		m.Rate = float64(v.Rate)
		t0 = time.Now()
		if err := r.createPodsAt(ctx, interleave(measuredPods), m.Rate); err != nil {
			return err
		}
		m.CreateSeconds = time.Since(t0).Seconds()
	default:
		return fmt.Errorf("unknown mode %q", run.Mode)
	}
	e.measureStart = t0
	stopSockets := watchSockets(sched.PID(), 100*time.Millisecond)
	var errs []error
	for _, g := range measured {
		if _, err := e.rec.WaitBound(ctx, g.step, g.pods, timeout, stall); err != nil {
			errs = append(errs, err)
		}
	}
	m.CPUSeconds = sched.Usage().CPUSeconds - cpu0
	m.PeakSockets = stopSockets()
	r.stepProfiles(ctx, name, sched.PprofURL())
	var all StepStats
	for _, g := range measured {
		st := e.rec.StepSince(g.step, t0)
		all.Bound += st.Bound
		all.Rebinds += st.Rebinds
		all.BindTimes = append(all.BindTimes, st.BindTimes...)
		all.Latencies = append(all.Latencies, st.Latencies...)
		if run.Part == PartProfiles {
			run.Profiles = append(run.Profiles, bindFigures(st, t0))
		}
	}
	m.Bound, m.DoubleBound = all.Bound, all.Rebinds
	m.Throughput = stats.WindowThroughput(t0, all.BindTimes, time.Second)
	m.LatencyMillis = stats.Summarize(stats.Durations(all.Latencies))
	last := t0
	for _, b := range all.BindTimes {
		if b.After(last) {
			last = b
		}
	}
	m.MeasureSeconds = last.Sub(t0).Seconds()
	r.logf("isolation/%s/%s: %d/%d measured pods bound in %.1fs, %.1f pods/s, p99 %.0f ms, %.1f CPU s",
		run.IsolationSetup, run.Scheduler, m.Bound, m.MeasuredPods, m.MeasureSeconds, m.Throughput.Average, m.LatencyMillis.P99, m.CPUSeconds)

	for _, g := range slow {
		_, err := e.rec.WaitBound(ctx, g.step, g.pods, timeout, stall)
		errs = append(errs, err)
		st := e.rec.StepSince(g.step, slowStart)
		run.Slow = &SlowFigures{Pods: g.pods, Bound: st.Bound, ExtenderCalls: ext.Calls()}
		if f := bindFigures(st, slowStart); f.Bound > 0 {
			run.Slow.Seconds = f.Seconds
		}
		r.logf("isolation/%s/%s: A's %d of %d pods bound in %.1fs, %d extender calls",
			run.IsolationSetup, run.Scheduler, run.Slow.Bound, run.Slow.Pods, run.Slow.Seconds, run.Slow.ExtenderCalls)
	}
	over, err := r.overcommitted(ctx)
	m.Overcommitted = over
	return errors.Join(append(errs, err)...)
}
