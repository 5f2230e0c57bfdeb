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
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"
	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScenarioPair is the measured step's throughput run without and with one
// drain scenario always running beside it (the next created as soon as
// one is answered, from the resume to the last bind), made back to back
// with the operator profiled (--pprof-bind-address,
// --contention-profiling) in both.
type ScenarioPair struct {
	Without *Run `json:"without"`
	With    *Run `json:"with"`
	// WithoutProfile and WithProfile are what the operator's profiles
	// say of each run's measured step.
	WithoutProfile *OperatorProfile `json:"withoutProfile,omitempty"`
	WithProfile    *OperatorProfile `json:"withProfile,omitempty"`
	// Scenarios are those made beside With, and their create to Complete
	// time under that load.
	Scenarios ReviewCounts  `json:"scenarios"`
	Millis    stats.Summary `json:"millis"`
}

// OperatorProfile is the operator's CPU and lock contention over a
// measured step: from the resume to the end of the CPU profile's last
// window, which closes at most a second after the last bind.
type OperatorProfile struct {
	// CPUSeconds is the process's CPU time over the span, from /proc.
	CPUSeconds float64 `json:"cpuSeconds"`
	// CPU is the CPU profile's samples over the span, by who spent them.
	CPU CPUSplit `json:"cpu"`
	// ScenarioCPUSeconds and ReviewControllerCPUSeconds are CPUSeconds'
	// shares of CPU.Review and CPU.ReviewController among the samples.
	ScenarioCPUSeconds         float64 `json:"scenarioCPUSeconds"`
	ReviewControllerCPUSeconds float64 `json:"reviewControllerCPUSeconds"`
	// LiveCPUMillisPerPod is the rest per measured pod bound: the
	// scheduling cycle and all the operator does besides reviews.
	LiveCPUMillisPerPod float64 `json:"liveCPUMillisPerPod"`
	// Locks is the mutex and block profiles' deltas over the span.
	Locks LockSplit `json:"locks"`
	Error string    `json:"error,omitempty"`
}

// runScenarioPairs makes n scenario pairs, who goes first alternating,
// with sched (profile-scheduler) profiled; it is RunExplain's last part.
func (r *Runner) runScenarioPairs(ctx context.Context, c *workloads.Case, vals map[string]int, ps *ProfileScheduler, schedulerName string, n int, setRun func(string)) ([]ScenarioPair, error) {
	pprofWas, argsWas := ps.Pprof, ps.ExtraArgs
	ps.Pprof, ps.ExtraArgs = true, append(slices.Clone(ps.ExtraArgs), "--contention-profiling")
	defer func() { ps.Pprof, ps.ExtraArgs = pprofWas, argsWas }()
	var (
		out  []ScenarioPair
		errs []error
	)
	for i := range n {
		p := ScenarioPair{WithoutProfile: &OperatorProfile{}, WithProfile: &OperatorProfile{}}
		var err error
		p.Without, p.With, err = r.throughputPair(ctx, c, vals, ps, schedulerName, i, setRun, func(with bool) (string, besideHook) {
			tag, prof := fmt.Sprintf("scenario-without-%d", i+1), p.WithoutProfile
			if with {
				tag, prof = fmt.Sprintf("scenario-with-%d", i+1), p.WithProfile
			}
			prof.Error = "the measured step did not start"
			return tag, func(ctx context.Context, e *env) func() {
				return r.profileBeside(ctx, ps, e, schedulerName, c.Name+"-"+tag, prof, with, &p)
			}
		})
		for _, x := range []struct {
			run  *Run
			prof *OperatorProfile
		}{{p.Without, p.WithoutProfile}, {p.With, p.WithProfile}} {
			if x.run != nil && x.run.Bound > 0 && x.prof.CPU.Profiled > 0 {
				x.prof.LiveCPUMillisPerPod = (x.prof.CPUSeconds - x.prof.ScenarioCPUSeconds - x.prof.ReviewControllerCPUSeconds) * 1000 / float64(x.run.Bound)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			return append(out, p), ctx.Err()
		}
		out = append(out, p)
		if p.With != nil && p.Without != nil && p.WithoutProfile.LiveCPUMillisPerPod > 0 && p.Without.Throughput.Average > 0 {
			r.logf("explain: scenario pair %d: %.1f pods/s without, %.1f with a drain scenario beside (%.2f); p99 %.0f / %.0f ms; live CPU %.2f / %.2f ms per pod (%.2f), scenarios %.1f CPU s; %d scenarios, %d complete, p50 %.0f ms",
				i+1, p.Without.Throughput.Average, p.With.Throughput.Average, p.With.Throughput.Average/p.Without.Throughput.Average,
				p.Without.LatencyMillis.P99, p.With.LatencyMillis.P99,
				p.WithoutProfile.LiveCPUMillisPerPod, p.WithProfile.LiveCPUMillisPerPod, p.WithProfile.LiveCPUMillisPerPod/p.WithoutProfile.LiveCPUMillisPerPod,
				p.WithProfile.ScenarioCPUSeconds, p.Scenarios.Created, p.Scenarios.Complete, p.Millis.P50)
		}
	}
	return out, errors.Join(errs...)
}

// profileBeside is the beside hook of a scenario pair's run. From the
// resume it records the operator's CPU profile (cpuWindows) and, with,
// keeps one drain scenario running (scenarioLoop). Its stop waits for the
// scenario under way, then for the last CPU window, reads the process's
// CPU and the mutex and block profiles at that moment, fills prof (saving
// the profiles as name.{cpu,mutex,block}.pb.gz) and logs the stacks that
// held locks longest.
func (r *Runner) profileBeside(ctx context.Context, ps *ProfileScheduler, e *env, schedulerName, name string, prof *OperatorProfile, with bool, p *ScenarioPair) func() {
	*prof = OperatorProfile{}
	base := ps.PprofURL()
	cpu0 := ps.Usage().CPUSeconds
	mutexDelta := deltaOf(ctx, base, "mutex")
	blockDelta := deltaOf(ctx, base, "block")
	stopCPU := cpuWindows(ctx, base)
	stopScenarios := func() {}
	if with {
		stopScenarios = r.scenarioLoop(ctx, e, schedulerName, p)
	}
	return func() {
		stopScenarios()
		cpuProf, cpuErr := stopCPU()
		prof.CPUSeconds = ps.Usage().CPUSeconds - cpu0
		mutex, mutexErr := mutexDelta()
		block, blockErr := blockDelta()
		if cpuErr == nil {
			prof.CPU, cpuErr = splitCPU(cpuProf)
		}
		if cpuErr == nil && prof.CPU.Profiled > 0 {
			prof.ScenarioCPUSeconds = prof.CPUSeconds * prof.CPU.Review / prof.CPU.Profiled
			prof.ReviewControllerCPUSeconds = prof.CPUSeconds * prof.CPU.ReviewController / prof.CPU.Profiled
		}
		r.saveProfile(name+".cpu.pb.gz", cpuProf)
		r.saveProfile(name+".mutex.pb.gz", mutex)
		r.saveProfile(name+".block.pb.gz", block)
		r.logf("explain/%s: %.2f CPU s (profiled %.2f: reviews %.2f, review controller %.2f, review code unlabelled %.3f)",
			name, prof.CPUSeconds, prof.CPU.Profiled, prof.CPU.Review, prof.CPU.ReviewController, prof.CPU.UnlabelledReview)
		var stacks []LockStack
		if mutexErr == nil {
			prof.Locks, stacks, mutexErr = splitMutex(mutex)
		}
		if blockErr == nil {
			prof.Locks.CycleWaits, prof.Locks.CycleWaitSeconds, blockErr = cycleLockWaits(block)
		}
		if mutexErr == nil && blockErr == nil {
			r.logLocks(name, prof.Locks, stacks)
		}
		var errs []error
		for _, e := range []struct {
			what string
			err  error
		}{{"CPU", cpuErr}, {"mutex", mutexErr}, {"block", blockErr}} {
			if e.err != nil {
				errs = append(errs, fmt.Errorf("%s profile: %w", e.what, e.err))
			}
		}
		if err := errors.Join(errs...); err != nil {
			prof.Error = err.Error()
			r.logf("explain/%s: %v", name, err)
		}
	}
}

// deltaOf reads the cumulative profile named (mutex, block) served under
// base now, and returns what reads it again and gives the difference.
func deltaOf(ctx context.Context, base, name string) func() (*profile.Profile, error) {
	path := "/debug/pprof/" + name
	before, err := fetchProfile(ctx, base, path)
	return func() (*profile.Profile, error) {
		if err != nil {
			return nil, err
		}
		after, err := fetchProfile(ctx, base, path)
		if err != nil {
			return nil, err
		}
		return profileDelta(before, after)
	}
}

// logLocks logs a run's lock contention: the five holder stacks with the
// most delay, and the five review-held ones with the most, so that a
// reader sees what was counted as review-held and what was not.
func (r *Runner) logLocks(name string, l LockSplit, stacks []LockStack) {
	r.logf("explain/%s: lock contention %d waits, %.1f ms; released by review code %d, %.1f ms; the cycle's lock waits %d, %.1f ms",
		name, l.Contentions, l.DelaySeconds*1000, l.ReviewHeldContentions, l.ReviewHeldDelaySeconds*1000, l.CycleWaits, l.CycleWaitSeconds*1000)
	show := func(what string, keep func(LockStack) bool) {
		shown := 0
		for _, st := range stacks {
			if shown == 5 {
				break
			}
			if !keep(st) {
				continue
			}
			shown++
			frames := st.Frames[:min(len(st.Frames), 6)]
			r.logf("explain/%s: %s: %.2f ms, %d waits, review-held %t: %s", name, what, st.DelaySeconds*1000, st.Contentions, st.ReviewHeld, strings.Join(frames, " < "))
		}
	}
	show("top holder", func(LockStack) bool { return true })
	show("top review holder", func(st LockStack) bool { return st.ReviewHeld })
}

// scenarioLoop keeps one drain scenario (drainScenario) running in e's
// namespace: each created once the one before it is answered, until the
// returned stop, which waits for the one under way (up to 30 s) and
// writes the scenarios' counts and times into p.
func (r *Runner) scenarioLoop(ctx context.Context, e *env, schedulerName string, p *ScenarioPair) (stop func()) {
	rw, err := watchReviews(ctx, r.CP.Client, e.ns)
	if err != nil {
		r.logf("explain: scenario watch: %v", err)
		return func() {}
	}
	scenario := drainScenario(e)
	loopCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; loopCtx.Err() == nil; i++ {
			sr := &v1alpha1.SchedulingReview{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("drain-%d", i), Namespace: e.ns},
				Spec:       v1alpha1.SchedulingReviewSpec{Profile: schedulerName, Scenario: scenario},
			}
			rw.created(sr.Name, time.Now())
			if err := r.CP.Client.Create(ctx, sr); err != nil {
				rw.forget(sr.Name)
				r.logf("explain: creating scenario %s: %v", sr.Name, err)
				return
			}
			// ctx, not loopCtx: stop waits for this one's answer.
			if !rw.wait(ctx, sr.Name, 30*time.Second) {
				r.logf("explain: scenario %s not answered within 30 s", sr.Name)
				return
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
		rw.stop()
		p.Scenarios, p.Millis = rw.result()
		if err := rw.Err(); err != nil {
			r.logf("explain: %v", err)
		}
	}
}
