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
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CoexistSetup is one way of running two schedulers on the same nodes. The
// first scheduler is always upstream kube-scheduler serving
// default-scheduler; the setups differ in the second one, which serves the
// bench's schedulerName. Setups name namespaces and files: DNS labels.
type CoexistSetup string

const (
	// SetupTwoUpstream: a second kube-scheduler.
	SetupTwoUpstream CoexistSetup = "two-upstream"
	// SetupTwoUpstreamWebhook: a second kube-scheduler, and a webhook on
	// pods/binding that admits every bind at once, served by the harness:
	// what any webhook on binds costs, the floor under the arbiter's
	// price.
	SetupTwoUpstreamWebhook CoexistSetup = "two-upstream-webhook"
	// SetupTwoUpstreamArbiter: a second kube-scheduler, and
	// profile-scheduler serving only the bind arbiter, which judges both
	// schedulers' binds.
	SetupTwoUpstreamArbiter CoexistSetup = "two-upstream-arbiter"
	// SetupNoCheck: profile-scheduler with --bind-check=false.
	SetupNoCheck CoexistSetup = "ours-no-check"
	// SetupCheck: profile-scheduler as it ships (the check before binding on).
	SetupCheck CoexistSetup = "ours"
	// SetupCheckArbiter: profile-scheduler as it ships, serving the bind
	// arbiter too, which judges both schedulers' binds.
	SetupCheckArbiter CoexistSetup = "ours-arbiter"
	// SetupRoute: profile-scheduler with a ProfileRoute that takes the
	// namespace's default-scheduler pods to its profile: kube-scheduler
	// gets none.
	SetupRoute CoexistSetup = "ours-routed"
)

// CoexistSetups lists the setups in the order they run and are reported.
var CoexistSetups = []CoexistSetup{SetupTwoUpstream, SetupTwoUpstreamWebhook, SetupTwoUpstreamArbiter, SetupNoCheck, SetupCheck, SetupCheckArbiter, SetupRoute}

// CoexistSetupNames lists the setups, comma-separated.
func CoexistSetupNames() string {
	names := make([]string, len(CoexistSetups))
	for i, s := range CoexistSetups {
		names[i] = string(s)
	}
	return strings.Join(names, ",")
}

// ParseCoexistSetups reads a comma-separated list of setups (all of them
// when empty), in the order they run.
func ParseCoexistSetups(list string) ([]CoexistSetup, error) {
	if strings.TrimSpace(list) == "" {
		return CoexistSetups, nil
	}
	want := map[CoexistSetup]bool{}
	for _, name := range strings.Split(list, ",") {
		s := CoexistSetup(strings.TrimSpace(name))
		if !slices.Contains(CoexistSetups, s) {
			return nil, fmt.Errorf("coexist setup %q: not one of %s", s, CoexistSetupNames())
		}
		want[s] = true
	}
	var out []CoexistSetup
	for _, s := range CoexistSetups {
		if want[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

// Arbitrated reports whether the setup runs the bind arbiter.
func (s CoexistSetup) Arbitrated() bool {
	return s == SetupTwoUpstreamArbiter || s == SetupCheckArbiter
}

// DefaultScheduler is the schedulerName the first scheduler of a coexist
// run serves, and its pods ask for.
const DefaultScheduler = corev1.DefaultSchedulerName

// coexistRoute names the route of SetupRoute.
const coexistRoute = "bench-coexist"

// CoexistRun is one run of a coexist case in one setup.
type CoexistRun struct {
	Case      string       `json:"case"`
	Setup     CoexistSetup `json:"setup"`
	Repeat    int          `json:"repeat"`
	Namespace string       `json:"namespace"`
	Nodes     int          `json:"nodes"`
	// Pods created, half asking for each scheduler.
	Pods  int `json:"pods"`
	Bound int `json:"bound"`
	// BoundBy counts bound pods by the schedulerName they ended with (a
	// routed pod's is the profile's).
	BoundBy map[string]int `json:"boundBy"`
	Seconds float64        `json:"seconds"`
	// First and Second are each scheduler's binds from the first create:
	// kube-scheduler's (default-scheduler, step a) and the second
	// scheduler's (step b).
	First  BindFigures `json:"first"`
	Second BindFigures `json:"second"`
	// Arbiter is what judging the binds cost the operator that serves
	// the arbiter (arbitrated setups only).
	Arbiter *ArbiterCost `json:"arbiter,omitempty"`
	// WebhookReviews counts the binds the no-op webhook admitted
	// (SetupTwoUpstreamWebhook).
	WebhookReviews int64 `json:"webhookReviews,omitempty"`
	// CPU is what each process spent from the first create to the end of
	// the run, in seconds.
	CPU CoexistCPU `json:"cpuSeconds"`
	Overcommit
	Error string `json:"error,omitempty"`
}

// CoexistCPU is the CPU seconds of a coexist run's processes: the
// machine's share of each in the run (0 for one not read). Beside two
// kube-schedulers, the operator serving the arbiter is counted in
// Arbiter's CPUSeconds.
type CoexistCPU struct {
	APIServer float64 `json:"apiserver"`
	Etcd      float64 `json:"etcd"`
	First     float64 `json:"first"`
	Second    float64 `json:"second"`
}

// BindFigures are one scheduler's binds in a coexist run, timed from the
// first create of the run's pods (created interleaved, as fast as the
// API server takes them).
type BindFigures struct {
	Bound int `json:"bound"`
	// Seconds is from the first create to the scheduler's last bind.
	Seconds float64 `json:"seconds"`
	// PodsPerSecond is Bound over Seconds.
	PodsPerSecond float64 `json:"podsPerSecond"`
	// LatencyMillis is creation to bind, both seen by the pod watch.
	LatencyMillis stats.Summary `json:"latencyMillis"`
	// BindSeconds are the binds' times from the first create: when half,
	// 90% and 99% of them were done, and the last (Seconds). A tail of
	// pods whose bind was refused and retried after the scheduler's back
	// off shows as a last bind well after the 99th.
	BindSeconds stats.Summary `json:"bindSeconds"`
}

// bindFigures are step's binds since t0.
func bindFigures(st StepStats, t0 time.Time) BindFigures {
	f := BindFigures{Bound: len(st.BindTimes), LatencyMillis: stats.Summarize(stats.Durations(st.Latencies))}
	offs := make([]float64, 0, len(st.BindTimes))
	for _, b := range st.BindTimes {
		offs = append(offs, b.Sub(t0).Seconds())
	}
	f.BindSeconds = stats.Summarize(offs)
	// To the last bind, none before t0 counted.
	f.Seconds = max(f.BindSeconds.Max, 0)
	if f.Seconds > 0 {
		f.PodsPerSecond = float64(f.Bound) / f.Seconds
	}
	return f
}

// Overcommit is what the binds of a run did to the nodes, replayed in the
// order the harness's pod watch delivered them (the API server's order).
type Overcommit struct {
	// OvercommittedNodes is how many nodes ended with more requested than
	// allocatable.
	OvercommittedNodes int `json:"overcommittedNodes"`
	// PodsOver counts binds that landed on a node without room for them:
	// pods a kubelet would reject.
	PodsOver int `json:"podsOverCapacity"`
	// FirstOverflowBy counts overcommitted nodes by the schedulerName of
	// the pod whose bind first took the node over.
	FirstOverflowBy map[string]int `json:"firstOverflowBy,omitempty"`
}

// podRequest is what one pod asks of a node.
type podRequest struct {
	cpu, mem int64
	// scheduler is the pod's schedulerName.
	scheduler string
}

// requestOf is what pod asks of a node: its containers' requests, as the
// harness counts a node's use.
func requestOf(pod *corev1.Pod) podRequest {
	req := podRequest{scheduler: pod.Spec.SchedulerName}
	for _, ctr := range pod.Spec.Containers {
		req.cpu += ctr.Resources.Requests.Cpu().MilliValue()
		req.mem += ctr.Resources.Requests.Memory().Value()
	}
	return req
}

// replayBinds replays binds in order on nodes (each its allocatable as a
// podRequest: cpu, memory; pod slots in pods) and tallies the overcommit.
// Binds of pods missing from reqs (deleted, probes) or onto nodes missing
// from alloc are skipped.
func replayBinds(binds []Bind, reqs map[string]podRequest, alloc map[string]podRequest, slots map[string]int64) Overcommit {
	type use struct {
		cpu, mem, pods int64
		over           bool
	}
	used := map[string]*use{}
	out := Overcommit{FirstOverflowBy: map[string]int{}}
	for _, b := range binds {
		req, ok := reqs[b.Pod]
		a, known := alloc[b.Node]
		if !ok || !known {
			continue
		}
		u := used[b.Node]
		if u == nil {
			u = &use{}
			used[b.Node] = u
		}
		u.cpu, u.mem, u.pods = u.cpu+req.cpu, u.mem+req.mem, u.pods+1
		if u.cpu > a.cpu || u.mem > a.mem || u.pods > slots[b.Node] {
			out.PodsOver++
			if !u.over {
				u.over = true
				out.OvercommittedNodes++
				out.FirstOverflowBy[req.scheduler]++
			}
		}
	}
	return out
}

// RunCoexist runs case c in one setup: its nodes, then first (serving
// DefaultScheduler) and second (serving schedulerName) started side by
// side, then the case's pods for both, interleaved. second is ours for
// every setup but SetupTwoUpstream.
func (r *Runner) RunCoexist(ctx context.Context, c *workloads.Case, vals map[string]int, setup CoexistSetup, repeat int, first, second Scheduler, arbiter *BindArbiter, schedulerName string) (run *CoexistRun, err error) {
	run = &CoexistRun{Case: c.Name, Setup: setup, Repeat: repeat}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	x := c.Coexist
	n, err := x.PodsEach.Value(vals)
	if err != nil {
		return run, err
	}
	settleSec, err := x.SettleSeconds.Value(vals)
	if err != nil {
		return run, err
	}
	timeoutSec, err := c.TimeoutSeconds.Value(vals)
	if err != nil {
		return run, err
	}
	e, err := r.prepare(ctx, c, string(setup))
	defer r.cleanup(e)
	if err != nil {
		return run, err
	}
	run.Namespace = e.ns
	for i, step := range c.Steps {
		if err := r.createNodes(ctx, c, e, step.CreateNodes, vals); err != nil {
			return run, fmt.Errorf("step %d: %w", i, err)
		}
	}
	run.Nodes = len(e.nodes)

	for _, s := range []struct {
		sched Scheduler
		name  string
	}{{first, DefaultScheduler}, {second, schedulerName}} {
		prof, err := workloads.SchedulerProfile(c.Profile, s.name)
		if err != nil {
			return run, err
		}
		if err := s.sched.Start(ctx, prof); err != nil {
			return run, fmt.Errorf("starting %s for %s: %w", s.sched.Name(), s.name, err)
		}
		defer s.sched.Stop(context.Background())
	}
	var arbiterServer Scheduler
	if arbiter != nil {
		stop, err := r.startArbiter(ctx, c, e, arbiter)
		defer stop()
		if err != nil {
			return run, err
		}
		arbiterServer = arbiter.Process
		if arbiterServer == nil {
			arbiterServer = second
		}
	}
	var noop *noopWebhook
	if setup == SetupTwoUpstreamWebhook {
		w, stop, err := r.startNoopWebhook(ctx, e)
		defer stop()
		if err != nil {
			return run, err
		}
		noop = w
	}
	if setup == SetupRoute {
		if err := r.route(ctx, e.ns, schedulerName); err != nil {
			return run, err
		}
		defer func() {
			_ = r.CP.Client.Delete(context.Background(), &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: coexistRoute}})
		}()
	}
	for _, name := range []string{DefaultScheduler, schedulerName} {
		if err := r.probeAs(ctx, e, name, "probe-"+name); err != nil {
			return run, err
		}
	}

	a, err := renderPods(c, x.PodTemplate, "a", 0, n, e.ns, DefaultScheduler, vals)
	if err != nil {
		return run, err
	}
	b, err := renderPods(c, x.PodTemplate, "b", 0, n, e.ns, schedulerName, vals)
	if err != nil {
		return run, err
	}
	pods := make([]*corev1.Pod, 0, 2*n)
	for i := range n {
		pods = append(pods, a[i], b[i])
	}
	r.logf("%s/%s: %d nodes, %d pods for each scheduler, interleaved", c.Name, setup, run.Nodes, n)
	procs, procErr := r.CP.Processes()
	if procErr != nil {
		r.logf("%s/%s: no control plane CPU: %v", c.Name, setup, procErr)
	}
	t0 := time.Now()
	api0, etcd0 := procs.CPUSeconds()
	first0, second0 := first.Usage().CPUSeconds, second.Usage().CPUSeconds
	var stopCost func() *ArbiterCost
	if arbiterServer != nil {
		stopCost = r.measureArbiter(ctx, arbiterServer, c.Name+"-"+string(setup)+"-"+fmt.Sprint(repeat))
	}
	if err := r.createPods(ctx, pods); err != nil {
		return run, err
	}
	timeout := time.Duration(timeoutSec) * time.Second
	for _, step := range []string{"a", "b"} {
		if err := e.rec.WaitSeen(ctx, step, n, timeout); err != nil {
			return run, err
		}
	}
	if err := r.settle(ctx, e, 2*n, time.Duration(settleSec)*time.Second, timeout); err != nil {
		return run, err
	}
	run.Seconds = time.Since(t0).Seconds()
	run.Pods = len(pods)
	if noop != nil {
		run.WebhookReviews = noop.reviews.Load()
	}
	if procErr == nil {
		api, etcd := procs.CPUSeconds()
		run.CPU.APIServer, run.CPU.Etcd = api-api0, etcd-etcd0
	}
	run.CPU.First, run.CPU.Second = first.Usage().CPUSeconds-first0, second.Usage().CPUSeconds-second0
	if stopCost != nil {
		run.Arbiter = stopCost()
	}
	run.First, run.Second = bindFigures(e.rec.StepSince("a", t0), t0), bindFigures(e.rec.StepSince("b", t0), t0)
	return run, r.tallyCoexist(ctx, e, run)
}

// route creates the ProfileRoute of SetupRoute, which takes ns's
// default-scheduler pods to the profile serving schedulerName, and waits
// until it is in force.
func (r *Runner) route(ctx context.Context, ns, schedulerName string) error {
	route := &v1alpha1.ProfileRoute{
		ObjectMeta: metav1.ObjectMeta{Name: coexistRoute},
		Spec: v1alpha1.ProfileRouteSpec{
			Profile:           schedulerName,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
		},
	}
	if err := r.CP.Client.Create(ctx, route); err != nil {
		return fmt.Errorf("creating the route: %w", err)
	}
	return r.waitRoutesInForce(ctx, 1)
}

// settle waits until total pods are bound, or no bind came for settle,
// or timeout passed.
func (r *Runner) settle(ctx context.Context, e *env, total int, settle, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last, changed := -1, time.Now()
	for {
		n := e.rec.Bound("a") + e.rec.Bound("b")
		if n != last {
			last, changed = n, time.Now()
		}
		if n >= total || time.Since(changed) >= settle || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// tallyCoexist counts the run's binds and replays them on the nodes.
func (r *Runner) tallyCoexist(ctx context.Context, e *env, run *CoexistRun) error {
	list, err := r.CP.Core.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	reqs := map[string]podRequest{}
	run.BoundBy = map[string]int{}
	for _, p := range list.Items {
		step := p.Labels[StepLabel]
		if step != "a" && step != "b" {
			continue
		}
		req := requestOf(&p)
		reqs[p.Name] = req
		if p.Spec.NodeName != "" {
			run.Bound++
			run.BoundBy[p.Spec.SchedulerName]++
		}
	}
	nodes, err := r.CP.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: BenchLabel})
	if err != nil {
		return err
	}
	alloc, slots := map[string]podRequest{}, map[string]int64{}
	for _, n := range nodes.Items {
		a := n.Status.Allocatable
		alloc[n.Name] = podRequest{cpu: a.Cpu().MilliValue(), mem: a.Memory().Value()}
		slots[n.Name] = a.Pods().Value()
	}
	run.Overcommit = replayBinds(e.rec.Binds(), reqs, alloc, slots)
	// The replay sees the binds in the watch's order; the nodes' final
	// state must agree with it.
	over, err := r.overcommitted(ctx)
	if err != nil {
		return err
	}
	if len(over) != run.OvercommittedNodes {
		return fmt.Errorf("the watch's binds overcommit %d nodes, the API server's pods %d", run.OvercommittedNodes, len(over))
	}
	r.logf("%s/%s: %d of %d pods bound %v; %d nodes overcommitted, %d pods over capacity, first overflow by %v",
		run.Case, run.Setup, run.Bound, run.Pods, run.BoundBy, run.OvercommittedNodes, run.Overcommit.PodsOver, run.Overcommit.FirstOverflowBy)
	r.logf("%s/%s: CPU s in %.1f s: kube-apiserver %.2f, etcd %.2f, kube-scheduler %.2f, second %.2f; %d binds the no-op webhook admitted",
		run.Case, run.Setup, run.Seconds, run.CPU.APIServer, run.CPU.Etcd, run.CPU.First, run.CPU.Second, run.WebhookReviews)
	for _, f := range []struct {
		who string
		f   BindFigures
	}{{"kube-scheduler", run.First}, {"second", run.Second}} {
		r.logf("%s/%s: %s: %d bound in %.2f s (half by %.2f s, 90%% by %.2f, 99%% by %.2f), %.1f pods/s, latency p50 %.0f ms, p99 %.0f ms",
			run.Case, run.Setup, f.who, f.f.Bound, f.f.Seconds, f.f.BindSeconds.P50, f.f.BindSeconds.P90, f.f.BindSeconds.P99,
			f.f.PodsPerSecond, f.f.LatencyMillis.P50, f.f.LatencyMillis.P99)
	}
	return nil
}
