package harness

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// BenchLabel marks every node the harness creates, so it can delete them.
const BenchLabel = "bench.profilescheduler.io/bench"

// Runner runs cases on a control plane.
type Runner struct {
	// CP is the control plane the next run uses (the bench command gives
	// every run a fresh one).
	CP *ControlPlane
	// Workers create objects concurrently.
	Workers int
	// Stall is how long a wait for binds goes on without progress.
	Stall time.Duration
	// Log receives progress lines.
	Log *log.Logger
	// Profile, when set, records a CPU profile of the scheduler process
	// with Linux perf during each measured step into Dir.
	Profile bool
	// HeapProfile, when set, saves the scheduler's heap profile
	// (/debug/pprof/heap) at the end of each measured step into Dir; the
	// schedulers must have been started with their pprof endpoints.
	HeapProfile bool
	Dir         string

	seq int
	// beside, when set, is started with the measured step (at the resume,
	// in a throughput run) and stopped after its last bind.
	beside func(ctx context.Context, ns string) (stop func())
}

// Mode is what a run of a case measures. Each case runs once in each mode
// per scheduler, on a fresh control plane.
type Mode string

const (
	// ModeThroughput creates the measured pods while the scheduler process
	// is stopped (SIGSTOP) and measures from its resume (SIGCONT): pods
	// bound per second are the scheduler's own, as on a machine that
	// creates pods far faster than any scheduler binds them (the setting
	// of scheduler_perf's throughput), and CPU covers everything the
	// scheduler does for those pods. Latency counts from the resume.
	ModeThroughput Mode = "throughput"
	// ModeLatency creates the measured pods at the step's rate while the
	// scheduler runs, so both schedulers see the same arrivals, and
	// compares creation-to-bind latency under that equal load.
	ModeLatency Mode = "latency"
)

// Modes lists every mode, in the order runs are made.
var Modes = []Mode{ModeThroughput, ModeLatency}

// Run is one case on one scheduler.
type Run struct {
	Case      string `json:"case"`
	Scheduler string `json:"scheduler"`
	Namespace string `json:"namespace"`
	// Mode is what the run measured.
	Mode Mode `json:"mode"`
	// Repeat numbers the runs of one case, scheduler and mode, from 1.
	Repeat int `json:"repeat"`
	// Nodes and pods created, measured pods bound.
	Nodes        int `json:"nodes"`
	MeasuredPods int `json:"measuredPods"`
	Bound        int `json:"bound"`
	// CreateSeconds is how long creating the measured pods took.
	CreateSeconds float64 `json:"createSeconds"`
	// Rate is the creation rate asked for in a latency run, pods/s.
	Rate float64 `json:"rate,omitempty"`
	// MeasureSeconds is from the first measured create (the resume, in a
	// throughput run) to the last bind.
	MeasureSeconds float64          `json:"measureSeconds"`
	Throughput     stats.Throughput `json:"throughput"`
	// LatencyMillis is creation to bind as seen by the watch.
	LatencyMillis stats.Summary `json:"latencyMillis"`
	// CPUSeconds is the scheduler's CPU time during the measured step;
	// Total includes start-up and the steps before.
	CPUSeconds      float64 `json:"cpuSeconds"`
	TotalCPUSeconds float64 `json:"totalCPUSeconds"`
	PeakRSSBytes    int64   `json:"peakRSSBytes"`
	// APIServerCPUSeconds and EtcdCPUSeconds are kube-apiserver's and
	// etcd's CPU time over the measured step (from the resume in a
	// throughput run; a latency run's include creating the pods): what
	// serving this scheduler cost the control plane.
	APIServerCPUSeconds float64 `json:"apiserverCPUSeconds,omitempty"`
	EtcdCPUSeconds      float64 `json:"etcdCPUSeconds,omitempty"`
	// PeakSockets is the most sockets the scheduler process had open at
	// once during the measured step (sampled every 100 ms): its API server
	// connections, watches share them, plus its listeners. A client with
	// more requests in flight than the API server allows streams on its
	// connections (100 each) dials a new connection for each request over
	// that, which shows here and in the peak RSS.
	PeakSockets int `json:"peakSockets,omitempty"`
	// StallSeconds, in a latency run, counts the seconds in which the
	// harness's own pod watch saw creations bunched (BurstSize or more
	// within BurstWindow) although it creates them at a steady rate: the
	// API server, etcd or the machine stalled, whatever the scheduler did,
	// and the run's latency tail reflects it.
	StallSeconds int `json:"stallSeconds,omitempty"`
	// Preempted counts pods of earlier steps deleted during the measured step.
	Preempted int `json:"preempted,omitempty"`
	// DoubleBound counts pods seen on two nodes; Overcommitted lists nodes
	// whose bound pods ask for more than they have.
	DoubleBound   int      `json:"doubleBound"`
	Overcommitted []string `json:"overcommitted,omitempty"`
	// Placement of the measured pods (cases with agreement only).
	Placement map[string]string `json:"placement,omitempty"`
	// Gang is what the run measured of its PodGroups (cases with groups).
	Gang  *GangRun `json:"gang,omitempty"`
	Error string   `json:"error,omitempty"`
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		r.Log.Printf(format, args...)
	}
}

// env is what a run creates and must clean up.
type env struct {
	ns    string
	rec   *Recorder
	nodes map[string]map[string]string // node name -> labels
	// podGroups is set once the run created PodGroups.
	podGroups bool
	// measureStart is when the measured step began (the resume, in a
	// throughput run).
	measureStart time.Time
}

// prepare deletes the previous run's nodes, makes a namespace, creates the
// case's priority classes and starts the pod watch.
func (r *Runner) prepare(ctx context.Context, c *workloads.Case, sched string) (*env, error) {
	r.seq++
	e := &env{ns: fmt.Sprintf("bench-%d-%s-%s", r.seq, c.Name, sched), nodes: map[string]map[string]string{}}
	if err := r.deleteNodes(ctx); err != nil {
		return nil, err
	}
	if _, err := r.CP.Core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	for _, pc := range c.PriorityClasses {
		_, err := r.CP.Core.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
			ObjectMeta: metav1.ObjectMeta{Name: pc.Name}, Value: pc.Value}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
	}
	rec, err := NewRecorder(ctx, r.CP.Core, e.ns)
	if err != nil {
		return nil, err
	}
	e.rec = rec
	return e, nil
}

// cleanup stops the watch and deletes the run's pods and namespace. Nodes
// stay until the next run starts (so a failed run can be looked at).
func (r *Runner) cleanup(e *env) {
	if e == nil {
		return
	}
	if e.rec != nil {
		e.rec.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pods := r.CP.Core.CoreV1().Pods(e.ns)
	if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{}); err != nil {
		r.logf("deleting pods of %s: %v", e.ns, err)
	}
	if e.podGroups {
		if err := r.CP.Core.SchedulingV1beta1().PodGroups(e.ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			r.logf("deleting PodGroups of %s: %v", e.ns, err)
		}
	}
	// No namespace controller runs: the namespace stays Terminating, empty.
	_ = r.CP.Core.CoreV1().Namespaces().Delete(ctx, e.ns, metav1.DeleteOptions{})
}

func (r *Runner) deleteNodes(ctx context.Context) error {
	nodes := r.CP.Core.CoreV1().Nodes()
	sel := metav1.ListOptions{LabelSelector: BenchLabel}
	if err := nodes.DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := nodes.List(ctx, sel)
		return err == nil && len(l.Items) == 0, nil
	})
}

// parallel runs fn(i) for i in [0,n) on the runner's workers and returns
// the first error.
func (r *Runner) parallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range max(1, min(r.Workers, n)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

func (r *Runner) createNodes(ctx context.Context, c *workloads.Case, e *env, s *workloads.CreateNodes, vals map[string]int) error {
	n, err := s.Count.Value(vals)
	if err != nil {
		return err
	}
	nodes := make([]*corev1.Node, n)
	for i := range nodes {
		if nodes[i], err = r.node(c, s.Template, s.Prefix, i, vals); err != nil {
			return err
		}
		e.nodes[nodes[i].Name] = nodes[i].Labels
	}
	return r.parallel(ctx, n, func(ctx context.Context, i int) error {
		_, err := r.CP.Core.CoreV1().Nodes().Create(ctx, nodes[i], metav1.CreateOptions{})
		return err
	})
}

func (r *Runner) node(c *workloads.Case, tpl, prefix string, i int, vals map[string]int) (*corev1.Node, error) {
	node, err := c.Node(tpl, workloads.TemplateData{Index: i, Name: workloads.Name(prefix, i), Params: vals})
	if err != nil {
		return nil, err
	}
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	node.Labels[BenchLabel] = "true"
	node.Labels[StepLabel] = prefix
	return node, nil
}

// renderPods renders a step's pods for namespace ns and schedulerName.
func renderPods(c *workloads.Case, tpl, prefix string, from, n int, ns, scheduler string, vals map[string]int) ([]*corev1.Pod, error) {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		idx := from + i
		p, err := c.Pod(tpl, workloads.TemplateData{Index: idx, Name: workloads.Name(prefix, idx), Namespace: ns, SchedulerName: scheduler, Params: vals})
		if err != nil {
			return nil, err
		}
		p.Namespace = ns
		if p.Spec.NodeName == "" {
			p.Spec.SchedulerName = scheduler
		}
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[StepLabel] = prefix
		pods[i] = p
	}
	return pods, nil
}

func (r *Runner) createPods(ctx context.Context, pods []*corev1.Pod) error {
	return r.createPodsAt(ctx, pods, 0)
}

// createPodsAt creates the pods in order, pod i not before i/rate seconds
// from now; rate 0 creates them as fast as the workers can.
func (r *Runner) createPodsAt(ctx context.Context, pods []*corev1.Pod, rate float64) error {
	start := time.Now()
	return r.parallel(ctx, len(pods), func(ctx context.Context, i int) error {
		if rate > 0 {
			at := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			if d := time.Until(at); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-ctx.Done():
					t.Stop()
					return ctx.Err()
				case <-t.C:
				}
			}
		}
		_, err := r.CP.Core.CoreV1().Pods(pods[i].Namespace).Create(ctx, pods[i], metav1.CreateOptions{})
		return err
	})
}

// probe creates one pod and waits until it is bound, then deletes it: the
// scheduler is up and has synced its informers when this returns.
func (r *Runner) probe(ctx context.Context, e *env, scheduler string) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: e.ns, Labels: map[string]string{StepLabel: "probe"}},
		Spec: corev1.PodSpec{
			SchedulerName:                 scheduler,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers:                    []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	if _, err := r.CP.Core.CoreV1().Pods(e.ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := e.rec.WaitBound(ctx, "probe", 1, 2*time.Minute, 2*time.Minute); err != nil {
		return fmt.Errorf("scheduler did not bind the probe pod: %w", err)
	}
	return r.CP.Core.CoreV1().Pods(e.ns).Delete(ctx, "probe", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
}

// churn recreates a node (and the step's pod and service, if it has them,
// in namespace ns) every interval until ctx ends, then deletes the last.
func (r *Runner) churn(ctx context.Context, c *workloads.Case, s *workloads.Churn, vals map[string]int, ns, schedulerName string) error {
	ms, err := s.IntervalMillis.Value(vals)
	if err != nil {
		return err
	}
	nodes := r.CP.Core.CoreV1().Nodes()
	tick := time.NewTicker(time.Duration(ms) * time.Millisecond)
	defer tick.Stop()
	prev := ""
	defer func() {
		if prev != "" {
			_ = nodes.Delete(context.Background(), prev, metav1.DeleteOptions{})
		}
	}()
	others, err := r.churnOthers(c, s, vals, ns, schedulerName)
	if err != nil {
		return err
	}
	// Cleaning up what the churn left is best effort: the run's namespace
	// goes with the run anyway.
	defer func() { _ = others(context.Background(), -1) }()
	for i := 0; ; i++ {
		n, err := r.node(c, s.Template, s.Prefix, i, vals)
		if err != nil {
			return err
		}
		if _, err := nodes.Create(ctx, n, metav1.CreateOptions{}); err != nil {
			return checkContext(ctx, "churn")
		}
		if prev != "" {
			if err := nodes.Delete(ctx, prev, metav1.DeleteOptions{}); err != nil {
				return checkContext(ctx, "churn")
			}
		}
		prev = n.Name
		if err := others(ctx, i); err != nil {
			return checkContext(ctx, "churn")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// churnOthers returns what recreates the churn step's pod and service:
// called with i, it creates the i-th and deletes the previous; with -1, it
// deletes the last.
func (r *Runner) churnOthers(c *workloads.Case, s *workloads.Churn, vals map[string]int, ns, schedulerName string) (func(context.Context, int) error, error) {
	pods, services := r.CP.Core.CoreV1().Pods(ns), r.CP.Core.CoreV1().Services(ns)
	grace := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
	prevPod, prevSvc := "", ""
	return func(ctx context.Context, i int) error {
		d := workloads.TemplateData{Index: i, Name: workloads.Name(s.Prefix, i), Namespace: ns, SchedulerName: schedulerName, Params: vals}
		if s.PodTemplate != "" {
			if i >= 0 {
				p, err := renderPods(c, s.PodTemplate, s.Prefix, i, 1, ns, schedulerName, vals)
				if err != nil {
					return err
				}
				if _, err := pods.Create(ctx, p[0], metav1.CreateOptions{}); err != nil {
					return err
				}
			}
			if prevPod != "" {
				if err := pods.Delete(ctx, prevPod, grace); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			prevPod = d.Name
		}
		if s.ServiceTemplate != "" {
			if i >= 0 {
				svc, err := c.Service(s.ServiceTemplate, d)
				if err != nil {
					return err
				}
				svc.Namespace = ns
				if _, err := services.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
					return err
				}
			}
			if prevSvc != "" {
				if err := services.Delete(ctx, prevSvc, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			prevSvc = d.Name
		}
		return nil
	}, nil
}

// String names the run in logs: case/mode/scheduler.
func (run *Run) String() string {
	return fmt.Sprintf("%s/%s/%s", run.Case, run.Mode, run.Scheduler)
}

// RunCase runs a (non-swap) case on sched: nodes, then the scheduler, then
// the pod steps, measuring the one marked measure in the given mode. repeat
// numbers this run among the case's runs of that scheduler and mode.
func (r *Runner) RunCase(ctx context.Context, c *workloads.Case, vals map[string]int, sched Scheduler, schedulerName string, mode Mode, repeat int) (run *Run, err error) {
	run = &Run{Case: c.Name, Scheduler: sched.Name(), Mode: mode, Repeat: repeat}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	prof, err := workloads.SchedulerProfile(c.Profile, schedulerName)
	if err != nil {
		return run, err
	}
	timeoutSec, err := c.TimeoutSeconds.Value(vals)
	if err != nil {
		return run, err
	}
	timeout := time.Duration(timeoutSec) * time.Second
	e, err := r.prepare(ctx, c, string(mode)+"-"+sched.Name())
	defer r.cleanup(e)
	if err != nil {
		return run, err
	}
	run.Namespace = e.ns

	started := false
	defer func() {
		if started {
			u := sched.Stop(context.Background())
			run.TotalCPUSeconds, run.PeakRSSBytes = u.CPUSeconds, u.PeakRSSBytes
		}
	}()
	churnCtx, stopChurn := context.WithCancel(ctx)
	var churnWG sync.WaitGroup
	defer func() { stopChurn(); churnWG.Wait() }()

	for i, step := range c.Steps {
		if step.CreateNodes != nil {
			if err := r.createNodes(ctx, c, e, step.CreateNodes, vals); err != nil {
				return run, fmt.Errorf("step %d: %w", i, err)
			}
			continue
		}
		if !started {
			run.Nodes = len(e.nodes)
			r.logf("%s: %d nodes; starting the scheduler", run, run.Nodes)
			started = true
			if err := sched.Start(ctx, prof); err != nil {
				return run, err
			}
			if err := r.probe(ctx, e, schedulerName); err != nil {
				return run, err
			}
		}
		switch {
		case step.Churn != nil:
			churnWG.Go(func() {
				if err := r.churn(churnCtx, c, step.Churn, vals, e.ns, schedulerName); err != nil {
					r.logf("churn: %v", err)
				}
			})
		case step.CreatePods != nil:
			s := step.CreatePods
			n, err := s.Pods(vals)
			if err != nil {
				return run, err
			}
			pods, err := renderPods(c, s.Template, s.Prefix, 0, n, e.ns, schedulerName, vals)
			if err != nil {
				return run, err
			}
			groups, err := s.Layout(vals)
			if err != nil {
				return run, fmt.Errorf("step %d: %w", i, err)
			}
			if err := assignGroups(pods, groups); err != nil {
				return run, fmt.Errorf("step %d: %w", i, err)
			}
			if err := r.createPodGroups(ctx, e, s.Prefix, groups); err != nil {
				return run, fmt.Errorf("step %d: %w", i, err)
			}
			if !s.Measure {
				if len(groups) > 0 {
					r.logf("%s: %d pods %s in %d groups", run, n, s.Prefix, len(groups))
				} else {
					r.logf("%s: %d pods %s", run, n, s.Prefix)
				}
				if err := r.createPods(ctx, pods); err != nil {
					return run, fmt.Errorf("step %d: %w", i, err)
				}
				if !s.SkipWait && !s.ExpectPending {
					if _, err := e.rec.WaitBound(ctx, s.Prefix, n, timeout, r.Stall); err != nil {
						return run, fmt.Errorf("step %d: %w", i, err)
					}
				}
				continue
			}
			rate, err := s.Rate.Value(vals)
			if err != nil {
				return run, err
			}
			if mode == ModeLatency {
				run.Rate = float64(rate)
			}
			err = r.measure(ctx, c, e, run, sched, s.Prefix, pods, timeout)
			if len(groups) > 0 && ctx.Err() == nil {
				var gerr error
				run.Gang, gerr = r.gang(ctx, c, e, s, vals)
				err = errors.Join(err, gerr)
			}
			if err != nil {
				return run, err
			}
		}
	}
	return run, nil
}

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
	if r.Profile {
		stop, err := startPerf(r.Dir, fmt.Sprintf("%s-%s-%d-%s", c.Name, run.Mode, run.Repeat, sched.Name()), sched.PID())
		if err != nil {
			r.logf("perf: %v", err)
		} else {
			defer func() {
				if err := stop(); err != nil {
					r.logf("perf: %v", err)
				}
			}()
		}
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
		pid := sched.PID()
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			return fmt.Errorf("stopping the scheduler: %w", err)
		}
		stopped := true
		resume := func() {
			if stopped {
				stopped = false
				_ = syscall.Kill(pid, syscall.SIGCONT)
			}
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
	var stopBeside func()
	if r.beside != nil {
		stopBeside = r.beside(ctx, e.ns)
	}
	stopSockets := watchSockets(sched.PID(), 100*time.Millisecond)
	_, waitErr := e.rec.WaitBound(ctx, step, len(pods), timeout, r.Stall)
	run.CPUSeconds = sched.Usage().CPUSeconds - cpu0
	if api0 > 0 && etcd0 > 0 {
		api, etcd := procs.CPUSeconds()
		run.APIServerCPUSeconds, run.EtcdCPUSeconds = api-api0, etcd-etcd0
	}
	run.PeakSockets = stopSockets()
	if r.HeapProfile {
		if err := saveHeapProfile(ctx, r.Dir, fmt.Sprintf("%s-%s-%d-%s", c.Name, run.Mode, run.Repeat, sched.Name()), sched.PprofURL()); err != nil {
			r.logf("heap profile: %v", err)
		}
	}
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
			name := fmt.Sprintf("%s-%s-%d-%s.latencies.csv", c.Name, run.Mode, run.Repeat, sched.Name())
			if err := writeLatencies(filepath.Join(r.Dir, name), t0, st); err != nil {
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
		for _, ctr := range p.Spec.Containers {
			u.cpu += ctr.Resources.Requests.Cpu().MilliValue()
			u.mem += ctr.Resources.Requests.Memory().Value()
		}
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
