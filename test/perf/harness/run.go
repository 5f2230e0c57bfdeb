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

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

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
	// Signals tell a result from what the machine or the control plane
	// did to the run.
	Signals
	// Preempted counts pods of earlier steps deleted during the measured step.
	Preempted int `json:"preempted,omitempty"`
	// DoubleBound counts pods seen on two nodes; Overcommitted lists nodes
	// whose bound pods ask for more than they have.
	DoubleBound   int      `json:"doubleBound"`
	Overcommitted []string `json:"overcommitted,omitempty"`
	// Placement of the measured pods (cases with agreement only).
	Placement map[string]string `json:"placement,omitempty"`
	// Gang is what the run measured of its PodGroups (cases with groups).
	Gang *GangRun `json:"gang,omitempty"`
	// Neighbour is what the run saw beside a neighbour kube-scheduler
	// (runs with Runner.Neighbour).
	Neighbour *NeighbourRun `json:"neighbour,omitempty"`
	Error     string        `json:"error,omitempty"`
}

// Signals are what a run's figures are read beside: what serving the run
// cost the control plane, and what would have bent its figures whatever the
// scheduler did. The report notes them under the case (JSON: fields of the
// run).
type Signals struct {
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
			if r.Neighbour != nil {
				stop, err := r.startNeighbour(ctx, c, e)
				defer func() { stop(); run.Neighbour = e.neighbour }()
				if err != nil {
					return run, err
				}
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
			if r.beforeMeasure != nil {
				if err := r.beforeMeasure(ctx, e); err != nil {
					return run, fmt.Errorf("step %d: before the measured step: %w", i, err)
				}
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
