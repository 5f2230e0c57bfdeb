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
	"sync"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// reviewPrefix names the reviews (and their pods) the harness creates.
const reviewPrefix = "review"

// ExplainRun is the explain case on profile-scheduler: SchedulingReview
// answer time per cluster size, and the throughput of the case's measured
// step with and without reviews beside it, then with and without a
// capacity scenario beside it.
type ExplainRun struct {
	Scheduler string `json:"scheduler"`
	// Sizes has the answer time on each node count.
	Sizes []ReviewLatency `json:"sizes"`
	// Rate is reviews created per second beside the "with" runs.
	Rate float64 `json:"rate"`
	// Pairs are throughput runs without and with reviews, made back to
	// back, who goes first alternating.
	Pairs []ExplainPair `json:"pairs"`
	// ScenarioPairs are throughput runs without and with one drain
	// scenario always running beside them, made after the Pairs, as
	// many, with the operator profiled.
	ScenarioPairs []ScenarioPair `json:"scenarioPairs,omitempty"`
	Error         string         `json:"error,omitempty"`
}

// ReviewLatency is reviews made one at a time on a cluster of Nodes nodes.
type ReviewLatency struct {
	Nodes     int          `json:"nodes"`
	Namespace string       `json:"namespace"`
	Reviews   ReviewCounts `json:"reviews"`
	// Millis is create to the Complete condition, seen by a watch.
	Millis stats.Summary `json:"millis"`
	// CPUMillisPerReview is the CPU each process spent per review made,
	// from /proc over the reviews (nothing else runs then).
	CPUMillisPerReview ReviewCPU `json:"cpuMillisPerReview"`
	// Scenarios are the capacity scenarios timed after the reviews, when
	// the case asks for them.
	Scenarios *ScenarioLatency `json:"scenarios,omitempty"`
	Error     string           `json:"error,omitempty"`
}

// ReviewCPU is CPU time per review, in milliseconds; zero where it could
// not be read.
type ReviewCPU struct {
	APIServer float64 `json:"apiserver"`
	Etcd      float64 `json:"etcd"`
	Scheduler float64 `json:"scheduler"`
}

// ReviewCounts says what became of the reviews created.
type ReviewCounts struct {
	Created int `json:"created"`
	// Complete reviews named a node for the pod (it fits everywhere here).
	Complete int `json:"complete"`
	// NoNode are Complete reviews that named no node.
	NoNode int `json:"noNode"`
	// Failed reviews got the Failed condition; FirstFailure is one message.
	Failed       int    `json:"failed"`
	FirstFailure string `json:"firstFailure,omitempty"`
	// Unanswered were neither Complete nor Failed in time.
	Unanswered int `json:"unanswered"`
}

// ExplainPair is the measured step's throughput run without reviews and
// with Rate reviews per second created from the resume to the last bind.
type ExplainPair struct {
	Without *Run `json:"without"`
	With    *Run `json:"with"`
	// Reviews are those created beside With, and their create to Complete
	// time under that load.
	Reviews ReviewCounts  `json:"reviews"`
	Millis  stats.Summary `json:"millis"`
}

// RunExplain runs the explain case on sched, which must be
// profile-scheduler: the answer time per size, then pairs without/with
// reviews, then as many scenario pairs (runScenarioPairs).
func (r *Runner) RunExplain(ctx context.Context, c *workloads.Case, vals map[string]int, sched Scheduler, schedulerName string, pairs int) (run *ExplainRun, err error) {
	run = &ExplainRun{Scheduler: sched.Name()}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	if sched.Name() != Ours {
		return run, fmt.Errorf("explain: %s has no SchedulingReview", sched.Name())
	}
	x := c.Explain
	reviews, err := x.Reviews.Value(vals)
	if err != nil {
		return run, err
	}
	rate, err := x.Rate.Value(vals)
	if err != nil {
		return run, err
	}
	run.Rate = float64(rate)
	setRun := func(tag string) {
		if s, ok := sched.(interface{ SetRun(string) }); ok {
			s.SetRun(c.Name + "-" + tag)
		}
	}
	for _, size := range x.Sizes {
		nodes, err := size.Value(vals)
		if err != nil {
			return run, err
		}
		setRun(fmt.Sprintf("answer-%d", nodes))
		lat, err := r.reviewLatency(ctx, c, vals, sched, schedulerName, nodes, reviews)
		if err != nil {
			lat.Error = err.Error()
		}
		run.Sizes = append(run.Sizes, lat)
		if err != nil {
			return run, fmt.Errorf("answer time on %d nodes: %w", nodes, err)
		}
	}
	var errs []error
	for i := range max(1, pairs) {
		var p ExplainPair
		p.Without, p.With, err = r.throughputPair(ctx, c, vals, sched, schedulerName, i, setRun, func(with bool) (string, besideHook) {
			if !with {
				return fmt.Sprintf("without-%d", i+1), nil
			}
			return fmt.Sprintf("with-%d", i+1), func(ctx context.Context, e *env) func() {
				return r.reviewLoad(ctx, c, vals, e.ns, schedulerName, rate, &p)
			}
		})
		if err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			run.Pairs = append(run.Pairs, p)
			return run, ctx.Err()
		}
		run.Pairs = append(run.Pairs, p)
		if p.With != nil && p.Without != nil && p.Without.Throughput.Average > 0 {
			r.logf("explain: pair %d: %.1f pods/s without reviews, %.1f with %d/s (%.2f); %d reviews, %d complete, p99 %.0f ms",
				i+1, p.Without.Throughput.Average, p.With.Throughput.Average, rate,
				p.With.Throughput.Average/p.Without.Throughput.Average, p.Reviews.Created, p.Reviews.Complete, p.Millis.P99)
		}
	}
	// Ours is a *ProfileScheduler (its flags are set for the scenario pairs).
	ps, ok := sched.(*ProfileScheduler)
	if !ok {
		return run, errors.Join(append(errs, fmt.Errorf("explain: scenario pairs need a %T, not a %T", ps, sched))...)
	}
	run.ScenarioPairs, err = r.runScenarioPairs(ctx, c, vals, ps, schedulerName, max(1, pairs), setRun)
	return run, errors.Join(append(errs, err)...)
}

// throughputPair makes the case's throughput run twice, back to back,
// without then with, or with then without, alternating with the pair's
// index i: run(with) gives each run's tag and its beside hook (nil: none).
// A run that leaves pods unbound is a result (logged); one that could not
// measure is an error. When ctx ends after the first run, the second is
// not made.
func (r *Runner) throughputPair(ctx context.Context, c *workloads.Case, vals map[string]int, sched Scheduler, schedulerName string, i int,
	setRun func(string), run func(with bool) (string, besideHook)) (without, with *Run, err error) {
	var errs []error
	for k := range 2 {
		isWith := (i+k)%2 == 1
		tag, beside := run(isWith)
		r.beside = beside
		setRun(tag)
		thr, err := r.RunCase(ctx, c, vals, sched, schedulerName, ModeThroughput, i+1)
		r.beside = nil
		if isWith {
			with = thr
		} else {
			without = thr
		}
		if err != nil {
			r.logf("explain/%s: %v", tag, err)
			if inc := (*IncompleteError)(nil); !errors.As(err, &inc) {
				errs = append(errs, fmt.Errorf("%s: %w", tag, err))
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return without, with, errors.Join(errs...)
}

// reviewLatency makes the case's first node step with nodes nodes and its
// unmeasured pod steps, starts the scheduler, then times n reviews one at
// a time.
func (r *Runner) reviewLatency(ctx context.Context, c *workloads.Case, vals map[string]int, sched Scheduler, schedulerName string, nodes, n int) (lat ReviewLatency, err error) {
	lat.Nodes = nodes
	prof, err := workloads.SchedulerProfile(c.Profile, schedulerName)
	if err != nil {
		return lat, err
	}
	timeoutSec, err := c.TimeoutSeconds.Value(vals)
	if err != nil {
		return lat, err
	}
	timeout := time.Duration(timeoutSec) * time.Second
	e, err := r.prepare(ctx, c, fmt.Sprintf("answer-%d", nodes))
	defer r.cleanup(e)
	if err != nil {
		return lat, err
	}
	lat.Namespace = e.ns
	var nodeStep *workloads.CreateNodes
	for _, s := range c.Steps {
		if s.CreateNodes != nil {
			nodeStep = s.CreateNodes
			break
		}
	}
	sized := *nodeStep
	sized.Count = workloads.Literal(nodes)
	r.logf("explain: creating %d nodes", nodes)
	if err := r.createNodes(ctx, c, e, &sized, vals); err != nil {
		return lat, err
	}
	if err := sched.Start(ctx, prof); err != nil {
		sched.Stop(context.Background())
		return lat, err
	}
	defer sched.Stop(context.Background())
	if err := r.probe(ctx, e, schedulerName); err != nil {
		return lat, err
	}
	for _, s := range c.Steps {
		if p := s.CreatePods; p != nil && !p.Measure {
			k, err := p.Count.Value(vals)
			if err != nil {
				return lat, err
			}
			pods, err := renderPods(c, p.Template, p.Prefix, 0, k, e.ns, schedulerName, vals)
			if err != nil {
				return lat, err
			}
			if err := r.createPods(ctx, pods); err != nil {
				return lat, err
			}
			if !p.SkipWait {
				if _, err := e.rec.WaitBound(ctx, p.Prefix, k, timeout, r.Stall); err != nil {
					return lat, err
				}
			}
		}
	}
	rw, err := watchReviews(ctx, r.CP.Client, e.ns)
	if err != nil {
		return lat, err
	}
	defer rw.stop()
	r.logf("explain: %d reviews one at a time on %d nodes", n, nodes)
	procs, procErr := r.CP.Processes()
	if procErr != nil {
		r.logf("explain: no control plane CPU per review: %v", procErr)
	}
	api0, etcd0 := procs.CPUSeconds()
	sched0 := sched.Usage().CPUSeconds
	for i := range n {
		sr, err := newReview(c, vals, e.ns, schedulerName, i)
		if err != nil {
			return lat, err
		}
		rw.created(sr.Name, time.Now())
		if err := r.CP.Client.Create(ctx, sr); err != nil {
			return lat, fmt.Errorf("creating review %s: %w", sr.Name, err)
		}
		if !rw.wait(ctx, sr.Name, timeout) {
			break
		}
	}
	lat.Reviews, lat.Millis = rw.result()
	if made := lat.Reviews.Created; made > 0 {
		perReview := func(before, after float64) float64 {
			if before == 0 || after == 0 {
				return 0
			}
			return (after - before) * 1000 / float64(made)
		}
		api, etcd := procs.CPUSeconds()
		lat.CPUMillisPerReview = ReviewCPU{
			APIServer: perReview(api0, api),
			Etcd:      perReview(etcd0, etcd),
			Scheduler: perReview(sched0, sched.Usage().CPUSeconds),
		}
	}
	r.logf("explain: %d nodes: %d reviews, %d complete, %d failed, create→Complete p50 %.0f ms, p99 %.0f ms; CPU per review: kube-apiserver %.1f ms, etcd %.1f ms, %s %.1f ms",
		nodes, lat.Reviews.Created, lat.Reviews.Complete, lat.Reviews.Failed, lat.Millis.P50, lat.Millis.P99,
		lat.CPUMillisPerReview.APIServer, lat.CPUMillisPerReview.Etcd, sched.Name(), lat.CPUMillisPerReview.Scheduler)
	if err := rw.Err(); err != nil {
		return lat, err
	}
	if lat.Reviews.Unanswered > 0 {
		return lat, fmt.Errorf("%d reviews not answered within %s", lat.Reviews.Unanswered, timeout)
	}
	if c.Explain.Scenarios != (workloads.Count{}) {
		k, err := c.Explain.Scenarios.Value(vals)
		if err != nil {
			return lat, err
		}
		if lat.Scenarios, err = r.scenarioLatency(ctx, c, vals, e, schedulerName, k, timeout); err != nil {
			return lat, err
		}
	}
	return lat, ctx.Err()
}

// reviewLoad creates rate reviews per second in ns until the returned
// function is called; that waits for the reviews to be answered (up to
// 30 s) and writes their counts and times into p.
func (r *Runner) reviewLoad(ctx context.Context, c *workloads.Case, vals map[string]int, ns, schedulerName string, rate int, p *ExplainPair) func() {
	rw, err := watchReviews(ctx, r.CP.Client, ns)
	if err != nil {
		r.logf("explain: review watch: %v", err)
		return func() {}
	}
	loadCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Second / time.Duration(max(rate, 1)))
		defer tick.Stop()
		for i := 0; ; i++ {
			sr, err := newReview(c, vals, ns, schedulerName, i)
			if err != nil {
				r.logf("explain: %v", err)
				return
			}
			wg.Go(func() {
				rw.created(sr.Name, time.Now())
				// Not loadCtx: a create already started is finished.
				if err := r.CP.Client.Create(context.Background(), sr); err != nil {
					rw.forget(sr.Name)
					r.logf("explain: creating review %s: %v", sr.Name, err)
				}
			})
			select {
			case <-loadCtx.Done():
				return
			case <-tick.C:
			}
		}
	})
	return func() {
		stop()
		wg.Wait()
		rw.waitAll(ctx, 30*time.Second)
		rw.stop()
		p.Reviews, p.Millis = rw.result()
		if err := rw.Err(); err != nil {
			r.logf("explain: %v", err)
		}
	}
}

func newReview(c *workloads.Case, vals map[string]int, ns, schedulerName string, i int) (*v1alpha1.SchedulingReview, error) {
	pods, err := renderPods(c, c.Explain.PodTemplate, reviewPrefix, i, 1, ns, schedulerName, vals)
	if err != nil {
		return nil, err
	}
	pod := pods[0]
	return &v1alpha1.SchedulingReview{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: ns},
		Spec: v1alpha1.SchedulingReviewSpec{
			PodTemplate: &v1alpha1.ReviewPodTemplate{Labels: pod.Labels, Annotations: pod.Annotations, Spec: v1alpha1.PodSpecTemplate(pod.Spec)},
		},
	}, nil
}
