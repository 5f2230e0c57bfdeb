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
	"sync/atomic"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"
)

// SwapRun is the profile-swap benchmark on one scheduler.
type SwapRun struct {
	Scheduler string `json:"scheduler"`
	// LeaderElection: upstream ran with leader election, each restart a
	// lease hand-over to a standby started beforehand.
	LeaderElection bool   `json:"leaderElection,omitempty"`
	Namespace      string `json:"namespace"`
	Nodes          int    `json:"nodes"`
	// Rate is pods created per second during the storm.
	Rate float64 `json:"rate"`
	// Swaps is how many profile changes were made: SchedulerProfile
	// updates for ours, restarts with a new file for upstream.
	Swaps int `json:"swaps"`
	// StormSeconds is from the first change to the end of the last dwell.
	StormSeconds float64 `json:"stormSeconds"`
	Created      int     `json:"created"`
	Bound        int     `json:"bound"`
	// Lost pods were created and never bound (after a drain of the queue).
	Lost int `json:"lost"`
	// DoubleBound pods were seen on two nodes.
	DoubleBound   int      `json:"doubleBound"`
	Overcommitted []string `json:"overcommitted,omitempty"`
	// ApplyToReadyMillis: SchedulerProfile write to its generation seen
	// active (ours only).
	ApplyToReadyMillis stats.Summary `json:"applyToReadyMillis"`
	// ApplyToPlacedMillis: from the change (write for ours, stop of the old
	// process for upstream) to the first pod bound where only the new
	// profile places pods.
	ApplyToPlacedMillis stats.Summary `json:"applyToPlacedMillis"`
	// Unobserved counts changes whose effect was not seen in time.
	Unobserved int `json:"unobserved"`
	// LongestGapMillis is the longest time without a single bind during
	// the storm, and GapAtSeconds where it began (since load start).
	LongestGapMillis float64 `json:"longestGapMillis"`
	GapAtSeconds     float64 `json:"gapAtSeconds"`
	// CreatedInGap counts pods that appeared on the watch during the
	// longest gap: about rate x gap when the scheduler stalled, near 0 when
	// the API server did (no event reached anyone).
	CreatedInGap int     `json:"createdInGap"`
	CPUSeconds   float64 `json:"cpuSeconds"`
	PeakRSSBytes int64   `json:"peakRSSBytes"`
	// Series is the cumulative count of bound load pods over time, and
	// SwapAtSeconds when each change was made, both since load start.
	Series        []Point   `json:"series"`
	SwapAtSeconds []float64 `json:"swapAtSeconds"`
	// Changes has every change: when (since load start), and how long to
	// Ready (ours) and to the first pod placed by the new profile; -1 when
	// not seen.
	Changes []Change `json:"changes"`
	Error   string   `json:"error,omitempty"`
}

// Change is one profile change of the storm. GapMillis is the longest
// time without a bind from the last bind before the change to the next
// change (or the end of the storm).
type Change struct {
	AtSeconds    float64 `json:"atSeconds"`
	ReadyMillis  float64 `json:"readyMillis"`
	PlacedMillis float64 `json:"placedMillis"`
	GapMillis    float64 `json:"gapMillis"`
}

// Point is one sample of a time series.
type Point struct {
	T float64 `json:"t"`
	N int     `json:"n"`
}

// swapper is how a scheduler changes profile under load.
type swapper func(ctx context.Context, prof schedv1.KubeSchedulerProfile) (applied time.Time, ready time.Time, err error)

// RunSwap runs the swap case on sched (a *ProfileScheduler or a
// *KubeScheduler).
func (r *Runner) RunSwap(ctx context.Context, c *workloads.Case, vals map[string]int, sched Scheduler, schedulerName string) (run *SwapRun, err error) {
	run = &SwapRun{Scheduler: sched.Name()}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	sw := c.Swap
	var profs [2]schedv1.KubeSchedulerProfile
	for i, p := range sw.Profiles {
		if profs[i], err = workloads.SchedulerProfile(p.Profile, schedulerName); err != nil {
			return run, err
		}
	}
	num := func(n workloads.Count) int {
		v, e := n.Value(vals)
		err = errors.Join(err, e)
		return v
	}
	rate, changes := num(sw.Rate), num(sw.Updates)
	dwell, warmup := time.Duration(num(sw.DwellMillis))*time.Millisecond, time.Duration(num(sw.WarmupMillis))*time.Millisecond
	timeout := time.Duration(num(c.TimeoutSeconds)) * time.Second
	var change swapper
	switch s := sched.(type) {
	case *ProfileScheduler:
		change = func(ctx context.Context, prof schedv1.KubeSchedulerProfile) (time.Time, time.Time, error) {
			gen, at, err := s.Apply(ctx, prof)
			if err != nil {
				return at, time.Time{}, err
			}
			ready, err := s.Watcher().WaitActive(ctx, gen, timeout)
			return at, ready, err
		}
	case *KubeScheduler:
		changes = num(sw.Restarts)
		run.LeaderElection = s.LeaderElect
		change = func(ctx context.Context, prof schedv1.KubeSchedulerProfile) (time.Time, time.Time, error) {
			at, err := s.Restart(ctx, prof)
			return at, time.Time{}, err
		}
	default:
		return run, fmt.Errorf("scheduler %s cannot swap profiles", sched.Name())
	}
	if err != nil {
		return run, err
	}
	run.Rate = float64(rate)

	e, err := r.prepare(ctx, c, sched.Name()+"-swap")
	defer r.cleanup(e)
	if err != nil {
		return run, err
	}
	run.Namespace = e.ns
	for i, step := range c.Steps {
		if step.CreateNodes != nil {
			if err := r.createNodes(ctx, c, e, step.CreateNodes, vals); err != nil {
				return run, fmt.Errorf("step %d: %w", i, err)
			}
		}
	}
	run.Nodes = len(e.nodes)
	r.logf("swap/%s: %d nodes; starting the scheduler", sched.Name(), run.Nodes)
	if err := sched.Start(ctx, profs[0]); err != nil {
		sched.Stop(context.Background())
		return run, err
	}
	defer func() {
		u := sched.Stop(context.Background())
		run.CPUSeconds, run.PeakRSSBytes = u.CPUSeconds, u.PeakRSSBytes
	}()
	if err := r.probe(ctx, e, schedulerName); err != nil {
		return run, err
	}
	for i, step := range c.Steps {
		if s := step.CreatePods; s != nil {
			n, err := s.Count.Value(vals)
			if err != nil {
				return run, err
			}
			pods, err := renderPods(c, s.Template, s.Prefix, 0, n, e.ns, schedulerName, vals)
			if err != nil {
				return run, err
			}
			if err := r.createPods(ctx, pods); err != nil {
				return run, fmt.Errorf("step %d: %w", i, err)
			}
			if _, err := e.rec.WaitBound(ctx, s.Prefix, n, timeout, r.Stall); err != nil {
				return run, fmt.Errorf("step %d: %w", i, err)
			}
		}
	}

	// Steady load.
	loadCtx, stopLoad := context.WithCancel(ctx)
	var created atomic.Int64
	var loadErr error
	var loadWG sync.WaitGroup
	loadStart := time.Now()
	loadWG.Go(func() { loadErr = r.load(loadCtx, c, e, sw, rate, schedulerName, vals, &created) })
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			stopLoad()
			loadWG.Wait()
		}
	}
	defer stop()

	kindOf := func(node string) string { return e.nodes[node][sw.NodeLabel] }
	r.logf("swap/%s: %d pods/s, %d changes", sched.Name(), rate, changes)
	select {
	case <-ctx.Done():
		return run, ctx.Err()
	case <-time.After(warmup):
	}
	if _, ok := sched.(*ProfileScheduler); ok && r.Trace.CPU {
		// Upstream's process changes with every restart: only ours is
		// profiled through the storm.
		defer r.cpuProfile("swap-"+sched.Name(), sched.PID())()
	}
	var toReady, toPlaced []time.Duration
	var changedAt []time.Time
	stormStart := time.Now()
	cur := 0
	for i := range changes {
		next := 1 - cur
		want := sw.Profiles[next].NodeLabelValue
		applied, ready, err := change(ctx, profs[next])
		if err != nil {
			return run, fmt.Errorf("change %d: %w", i+1, err)
		}
		run.Swaps++
		changedAt = append(changedAt, applied)
		run.SwapAtSeconds = append(run.SwapAtSeconds, applied.Sub(loadStart).Seconds())
		ch := Change{AtSeconds: applied.Sub(loadStart).Seconds(), ReadyMillis: -1, PlacedMillis: -1}
		if !ready.IsZero() {
			toReady = append(toReady, ready.Sub(applied))
			ch.ReadyMillis = millis(ready.Sub(applied))
		}
		var placed time.Time
		seen := e.rec.WaitFor(ctx, timeout, func(binds []Bind) bool {
			for j := len(binds) - 1; j >= 0 && binds[j].At.After(applied); j-- {
				if binds[j].Step == sw.Prefix && kindOf(binds[j].Node) == want {
					placed = binds[j].At
					// keep going back for the earliest
				}
			}
			return !placed.IsZero()
		})
		if seen {
			toPlaced = append(toPlaced, placed.Sub(applied))
			ch.PlacedMillis = millis(placed.Sub(applied))
		} else {
			run.Unobserved++
		}
		run.Changes = append(run.Changes, ch)
		cur = next
		select {
		case <-ctx.Done():
			return run, ctx.Err()
		case <-time.After(dwell):
		}
	}
	stormEnd := time.Now()
	stop()
	run.StormSeconds = stormEnd.Sub(stormStart).Seconds()
	run.Created = int(created.Load())
	r.logf("swap/%s: %d changes done; draining %d pods", sched.Name(), run.Swaps, run.Created)
	_, drainErr := e.rec.WaitBound(ctx, sw.Prefix, run.Created, timeout, r.Stall)
	st := e.rec.Step(sw.Prefix)
	run.Bound, run.DoubleBound = st.Bound, st.Rebinds
	run.Lost = run.Created - st.Bound
	run.ApplyToReadyMillis = stats.Summarize(stats.Durations(toReady))
	run.ApplyToPlacedMillis = stats.Summarize(stats.Durations(toPlaced))
	for i, g := range stats.GapsAfter(changedAt, stormEnd, st.BindTimes) {
		run.Changes[i].GapMillis = millis(g)
	}
	gap, at := stats.LongestGap(stormStart, stormEnd, st.BindTimes)
	run.LongestGapMillis, run.GapAtSeconds = float64(gap)/float64(time.Millisecond), at.Sub(loadStart).Seconds()
	for _, t := range st.SeenTimes {
		if t.After(at) && t.Before(at.Add(gap)) {
			run.CreatedInGap++
		}
	}
	n := 0
	for _, b := range e.rec.Binds() {
		if b.Step == sw.Prefix {
			n++
			run.Series = append(run.Series, Point{T: b.At.Sub(loadStart).Seconds(), N: n})
		}
	}
	over, overErr := r.overcommitted(ctx)
	run.Overcommitted = over
	r.logf("swap/%s: %d created, %d bound, %d lost, %d double-bound, longest gap %.0f ms, ready p99 %.0f ms, placed p99 %.0f ms",
		sched.Name(), run.Created, run.Bound, run.Lost, run.DoubleBound, run.LongestGapMillis,
		run.ApplyToReadyMillis.P99, run.ApplyToPlacedMillis.P99)
	return run, errors.Join(loadErr, drainErr, overErr)
}

// load creates pods at rate per second until ctx ends.
func (r *Runner) load(ctx context.Context, c *workloads.Case, e *env, sw *workloads.Swap, rate int, scheduler string, vals map[string]int, created *atomic.Int64) error {
	return r.pacedCreates(ctx, rate, created, func(i int) ([]*corev1.Pod, error) {
		return renderPods(c, sw.PodTemplate, sw.Prefix, i, 1, e.ns, scheduler, vals)
	})
}

// pacedCreates creates the pods render(i) gives for i = 0, 1, ..., rate
// times a second until ctx ends, and counts them in created. Creates run
// concurrently (at most 64 at once) so a slow request does not slow the
// rate down; it returns the first errors, once the creates under way are
// done.
func (r *Runner) pacedCreates(ctx context.Context, rate int, created *atomic.Int64, render func(i int) ([]*corev1.Pod, error)) error {
	tick := time.NewTicker(time.Second / time.Duration(max(rate, 1)))
	defer tick.Stop()
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	defer wg.Wait()
	var mu sync.Mutex
	var first error
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			mu.Lock()
			defer mu.Unlock()
			return first
		case <-tick.C:
		}
		pods, err := render(i)
		if err != nil {
			return err
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			// Not ctx: a create already started is finished and counted.
			if err := r.createPods(context.Background(), pods); err != nil {
				mu.Lock()
				first = errors.Join(first, err)
				mu.Unlock()
				return
			}
			created.Add(1)
		})
	}
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
