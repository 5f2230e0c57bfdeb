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
	"log"
	"sync"
	"sync/atomic"
	"time"

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
	// Trace is what each measured step records beside its figures, into
	// Dir.
	Trace Trace
	// Dir is the results directory: traces and latency CSVs go there.
	Dir string

	// Neighbour, when set, runs beside every run of RunCase.
	Neighbour *Neighbour

	seq int
	// beside, when set, is started with the measured step (at the resume,
	// in a throughput run) and stopped after its last bind.
	beside besideHook
	// beforeMeasure, when set, runs once the unmeasured steps are done,
	// just before the measured step (the scheduler running).
	beforeMeasure func(ctx context.Context, e *env) error
}

// besideHook starts something beside a measured step, and returns what
// stops it.
type besideHook = func(ctx context.Context, e *env) (stop func())

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
	// neighbour is what the run's Neighbour saw (runs with one).
	neighbour *NeighbourRun
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
