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
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The two pools of the rollout case's load: nodes labelled scenarioPool
// a or b, and as many pods pinned to each (nodeSelector). The bad change
// excludes pool b.
const (
	poolA, poolB = "a", "b"
	loadA, loadB = "load-a", "load-b"
)

// RolloutRun is the rollout case on one scheduler: upstream's throughput
// runs of the measured step (the reference), or ours's three parts.
type RolloutRun struct {
	Scheduler string `json:"scheduler"`
	// Baselines are upstream's throughput runs of the measured step, as
	// many as ours's shadow pairs.
	Baselines []*Run `json:"baselines,omitempty"`
	// ShadowPairs are ours's throughput runs without and with a shadow
	// step running, back to back, who goes first alternating.
	ShadowPairs []ShadowPair `json:"shadowPairs,omitempty"`
	// Blast is the bad change with a canary step, then at once.
	Blast []*BlastRun `json:"blast,omitempty"`
	// Promote is the good change through its steps to promotion: the
	// first of Promotes.
	Promote *PromoteRun `json:"promote,omitempty"`
	// Promotes are every run of the good change (rollout.goodRepeat of
	// them), each on a fresh namespace; Good counts how they ended.
	Promotes []*PromoteRun `json:"promotes,omitempty"`
	Good     *GoodOutcomes `json:"good,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// ShadowPair is the measured step's throughput run without and with a
// shadow step running from before the pods are created to the end, the
// operator profiled (CPU by pprof label) in both.
type ShadowPair struct {
	Without        *Run             `json:"without"`
	With           *Run             `json:"with"`
	WithoutProfile *OperatorProfile `json:"withoutProfile,omitempty"`
	WithProfile    *OperatorProfile `json:"withProfile,omitempty"`
	// ShadowCPUSeconds is the With run's CPU (from /proc) in the share of
	// its profile's samples labelled work=shadow.
	ShadowCPUSeconds float64 `json:"shadowCPUSeconds"`
	// Shadow is status.rollout.shadow after the With run's last bind:
	// pods judged, and skipped when the shadow's queue was full.
	Shadow *v1alpha1.ShadowResult `json:"shadow,omitempty"`
}

// BlastRun is a change that leaves the pods of pool b unschedulable,
// applied under steady load with one canary step, or at once.
type BlastRun struct {
	// Percent is the canary's share; 0: the change was applied at once.
	Percent int `json:"percent"`
	// StepSeconds is the canary step's duration (0 at once).
	StepSeconds float64 `json:"stepSeconds,omitempty"`
	Namespace   string  `json:"namespace"`
	Nodes       int     `json:"nodes"`
	Rate        float64 `json:"rate"`
	Generation  int64   `json:"generation"`
	// WindowSeconds is from the change to the end of the load.
	WindowSeconds float64 `json:"windowSeconds"`
	Created       int     `json:"created"`
	Bound         int     `json:"bound"`
	// CreatedSinceChange are the pods created from the change to the end
	// of the load, PoolPods those of pool b.
	CreatedSinceChange int `json:"createdSinceChange"`
	PoolPods           int `json:"poolPods"`
	// Blast is what the bad generation did to the pods.
	Blast BlastCounts `json:"blast"`
	// ToRollbackMillis: with a canary, from the change to
	// status.rollout.phase RolledBack seen (-1: not seen); at once, from
	// the change to the generation seen active.
	ToRollbackMillis float64 `json:"toRollbackMillis"`
	// FirstFailureMillis is from the change to the first pod of the bad
	// generation's share (FirstFailure) seen unschedulable (-1: none).
	FirstFailureMillis float64 `json:"firstFailureMillis"`
	// FailureToRollbackMillis: with a canary, from that first failure to
	// status.rollout.phase RolledBack seen (-1: either not seen).
	FailureToRollbackMillis float64 `json:"failureToRollbackMillis"`
	// RecoveredMillis: with a canary, from the rollback seen to the last
	// bind of a pod that went pending (-1: some never bound).
	RecoveredMillis float64 `json:"recoveredMillis"`
	Phase           string  `json:"phase,omitempty"`
	Message         string  `json:"message,omitempty"`
	Error           string  `json:"error,omitempty"`
}

// BlastCounts count the pods a bad generation affected.
type BlastCounts struct {
	// WentPending pods were seen with PodScheduled=False (Unschedulable).
	WentPending int `json:"wentPending"`
	// OutsideCanary are WentPending pods whose rollout key falls outside
	// the canary's share (0 unless a generation other than the serving
	// one or the canary scheduled them).
	OutsideCanary int `json:"outsideCanary"`
	// BoundByBad pods were bound by the bad generation: bound between the
	// change and the end of its reign (the rollback seen), and, with a
	// canary, in its share.
	BoundByBad int `json:"boundByBad"`
	// Affected pods went pending or were bound by the bad generation.
	Affected int `json:"affected"`
	// PendingAtEnd were not bound when the run ended.
	PendingAtEnd int `json:"pendingAtEnd"`
	// DoubleBound pods were seen on two nodes.
	DoubleBound int `json:"doubleBound"`
}

// PromoteRun is a good change rolled out under steady load to promotion.
type PromoteRun struct {
	Namespace  string  `json:"namespace"`
	Nodes      int     `json:"nodes"`
	Rate       float64 `json:"rate"`
	Steps      string  `json:"steps"`
	Generation int64   `json:"generation"`
	// ToPromotedMillis is from the change to status.rollout.phase
	// Promoted seen (-1: not seen).
	ToPromotedMillis float64  `json:"toPromotedMillis"`
	Phase            string   `json:"phase,omitempty"`
	Message          string   `json:"message,omitempty"`
	Created          int      `json:"created"`
	Bound            int      `json:"bound"`
	Lost             int      `json:"lost"`
	DoubleBound      int      `json:"doubleBound"`
	Overcommitted    []string `json:"overcommitted,omitempty"`
	// Changes are the change, each later step's start and the end of the
	// rollout, as the watch saw them, each with the longest time without
	// a bind from the last bind before it to the next (stats.GapsAfter).
	Changes []RolloutChange `json:"changes"`
	// LongestGapMillis is the longest time without a bind from the change
	// to the end of the load.
	LongestGapMillis float64 `json:"longestGapMillis"`
	// Timeline is each generation's binds per second and p99 latency
	// (creation to bind) per window of TimelineWindow, from the change to
	// the end of the load (GenerationTimeline).
	Timeline []GenerationWindow       `json:"timeline,omitempty"`
	Analysis []v1alpha1.RolloutMetric `json:"analysis,omitempty"`
	Shadow   *v1alpha1.ShadowResult   `json:"shadow,omitempty"`
	Error    string                   `json:"error,omitempty"`
}

// RolloutChange is one change of a rollout's serving set.
type RolloutChange struct {
	What      string  `json:"what"`
	AtSeconds float64 `json:"atSeconds"`
	GapMillis float64 `json:"gapMillis"`
}

// RunRollout runs the rollout case on sched: upstream makes pairs
// throughput runs of the measured step; ours makes pairs shadow pairs,
// then the bad change with a canary and at once, then the good change
// rollout.goodRepeat times.
func (r *Runner) RunRollout(ctx context.Context, c *workloads.Case, vals map[string]int, sched Scheduler, schedulerName string, pairs int) (run *RolloutRun, err error) {
	run = &RolloutRun{Scheduler: sched.Name()}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	rv, err := c.Rollout.Values(vals)
	if err != nil {
		return run, err
	}
	setRun := func(tag string) {
		if s, ok := sched.(interface{ SetRun(string) }); ok {
			s.SetRun(c.Name + "-" + tag)
		}
	}
	ps, ok := sched.(*ProfileScheduler)
	if !ok {
		var errs []error
		for i := range max(1, pairs) {
			setRun(fmt.Sprintf("baseline-%d", i+1))
			thr, err := r.RunCase(ctx, c, vals, sched, schedulerName, ModeThroughput, i+1)
			run.Baselines = append(run.Baselines, thr)
			if inc := (*IncompleteError)(nil); err != nil && !errors.As(err, &inc) {
				errs = append(errs, err)
			}
			if ctx.Err() != nil {
				break
			}
		}
		return run, errors.Join(errs...)
	}
	var errs []error
	run.ShadowPairs, err = r.shadowPairs(ctx, c, vals, ps, schedulerName, max(1, pairs), setRun)
	errs = append(errs, err)
	if ctx.Err() != nil {
		return run, errors.Join(append(errs, ctx.Err())...)
	}
	setRun("blast-canary")
	canary, err := r.blast(ctx, c, vals, ps, schedulerName, rv, rv.CanaryPercent, 0)
	run.Blast = append(run.Blast, canary)
	errs = append(errs, err)
	if ctx.Err() != nil {
		return run, errors.Join(append(errs, ctx.Err())...)
	}
	// At once, over as long a window as the canary's when it was rolled
	// back (one not rolled back ran to the harness' bound of the wait).
	window := rv.Step + rv.After
	if canary.WindowSeconds > 0 && canary.ToRollbackMillis >= 0 {
		window = time.Duration(canary.WindowSeconds * float64(time.Second))
	}
	setRun("blast-at-once")
	atOnce, err := r.blast(ctx, c, vals, ps, schedulerName, rv, 0, window)
	run.Blast = append(run.Blast, atOnce)
	errs = append(errs, err)
	if ctx.Err() != nil {
		return run, errors.Join(append(errs, ctx.Err())...)
	}
	for i := range rv.GoodRepeat {
		tag := "promote"
		if rv.GoodRepeat > 1 {
			tag = fmt.Sprintf("promote-%d", i+1)
		}
		setRun(tag)
		p, err := r.promote(ctx, c, vals, ps, schedulerName, rv, tag)
		run.Promotes = append(run.Promotes, p)
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(run.Promotes) > 0 {
		run.Promote = run.Promotes[0]
	}
	g := CountGood(run.Promotes)
	run.Good = &g
	if rv.GoodRepeat > 1 {
		r.logf("rollout: the good change %d times: %d promoted, %d rolled back (false rollbacks), %d other", g.Runs, g.Promoted, g.RolledBack, g.Other)
	}
	return run, errors.Join(errs...)
}

// shadowPairs makes n pairs of the measured step's throughput run, without
// and with a shadow step of the case's shadowChange running (started
// before the measured pods are created, lasting past the run), who goes
// first alternating, the operator profiled.
func (r *Runner) shadowPairs(ctx context.Context, c *workloads.Case, vals map[string]int, ps *ProfileScheduler, schedulerName string, n int, setRun func(string)) ([]ShadowPair, error) {
	change, err := workloads.SchedulerProfile(c.Rollout.ShadowChange, schedulerName)
	if err != nil {
		return nil, err
	}
	timeoutSec, err := c.TimeoutSeconds.Value(vals)
	if err != nil {
		return nil, err
	}
	timeout := time.Duration(timeoutSec) * time.Second
	pprofWas := ps.Pprof
	ps.Pprof = true
	defer func() { ps.Pprof = pprofWas; r.beforeMeasure = nil }()
	var (
		out  []ShadowPair
		errs []error
	)
	for i := range n {
		p := ShadowPair{WithoutProfile: &OperatorProfile{}, WithProfile: &OperatorProfile{}}
		var gen int64
		p.Without, p.With, err = r.throughputPair(ctx, c, vals, ps, schedulerName, i, setRun, func(with bool) (string, besideHook) {
			tag, prof := fmt.Sprintf("shadow-without-%d", i+1), p.WithoutProfile
			r.beforeMeasure = nil
			if with {
				tag, prof = fmt.Sprintf("shadow-with-%d", i+1), p.WithProfile
				r.beforeMeasure = func(ctx context.Context, _ *env) (err error) {
					gen, err = r.startShadow(ctx, ps, change, timeout)
					return err
				}
			}
			prof.Error = "the measured step did not start"
			return tag, func(ctx context.Context, e *env) func() {
				stop := r.profileBeside(ctx, ps, e, schedulerName, c.Name+"-"+tag, prof, false, nil)
				return func() {
					stop()
					if with {
						p.Shadow = r.readShadow(ctx, ps, gen)
					}
				}
			}
		})
		r.beforeMeasure = nil
		if w := p.WithProfile; w.CPU.Profiled > 0 {
			p.ShadowCPUSeconds = w.CPUSeconds * w.CPU.Shadow / w.CPU.Profiled
		}
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, p)
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if p.With != nil && p.Without != nil && p.Without.Throughput.Average > 0 && p.Without.Bound > 0 && p.With.Bound > 0 {
			judged, skipped := int64(0), int64(0)
			if p.Shadow != nil {
				judged, skipped = p.Shadow.Judged, p.Shadow.Skipped
			}
			r.logf("rollout: shadow pair %d: %.1f pods/s without, %.1f with a shadow step (%.2f); CPU %.2f / %.2f ms per pod (%.2f), the shadow's %.2f CPU s; %d pods judged, %d skipped",
				i+1, p.Without.Throughput.Average, p.With.Throughput.Average, p.With.Throughput.Average/p.Without.Throughput.Average,
				1000*p.Without.CPUSeconds/float64(p.Without.Bound), 1000*p.With.CPUSeconds/float64(p.With.Bound),
				(p.With.CPUSeconds/float64(p.With.Bound))/(p.Without.CPUSeconds/float64(p.Without.Bound)), p.ShadowCPUSeconds, judged, skipped)
		}
	}
	return out, errors.Join(errs...)
}

// shadowStepLength outlasts any run: the shadow step of a shadow pair
// never ends while it is measured.
const shadowStepLength = 24 * time.Hour

// startShadow rolls change out with one shadow step and waits until the
// step is seen in status.rollout; it returns the generation.
func (r *Runner) startShadow(ctx context.Context, ps *ProfileScheduler, change schedv1.KubeSchedulerProfile, timeout time.Duration) (int64, error) {
	gen, _, err := ps.ApplyRollout(ctx, change, &v1alpha1.Rollout{
		Steps: []v1alpha1.RolloutStep{{Shadow: &v1alpha1.ShadowStep{Duration: metav1.Duration{Duration: shadowStepLength}}}},
	})
	if err != nil {
		return 0, err
	}
	_, err = ps.Watcher().WaitRollout(ctx, timeout, func(st v1alpha1.RolloutStatus) bool {
		return st.Generation == gen && st.Phase == v1alpha1.RolloutProgressing && st.StepKind == v1alpha1.StepShadow
	})
	return gen, err
}

// pokeAnnotation is set to make the controller reconcile the profile
// (status.rollout.shadow is written at each reconcile).
const pokeAnnotation = "bench.profilescheduler.io/poke"

// readShadow has the controller write status.rollout.shadow of generation
// gen now (an annotation of the harness's changes nothing else) and
// returns it once it has been written (nil after 10 s).
func (r *Runner) readShadow(ctx context.Context, ps *ProfileScheduler, gen int64) *v1alpha1.ShadowResult {
	key := client.ObjectKey{Name: ps.Settings.SchedulerName}
	sp := &v1alpha1.SchedulerProfile{}
	if err := ps.Client.Get(ctx, key, sp); err != nil {
		r.logf("rollout: reading the profile: %v", err)
		return nil
	}
	poke := time.Now().UTC().Format(time.RFC3339Nano)
	patch := client.MergeFrom(sp.DeepCopy())
	if sp.Annotations == nil {
		sp.Annotations = map[string]string{}
	}
	sp.Annotations[pokeAnnotation] = poke
	if err := ps.Client.Patch(ctx, sp, patch); err != nil {
		r.logf("rollout: annotating the profile: %v", err)
		return nil
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		// A reconcile after the poke writes the window so far; the
		// status's summary (its clock) changes with every write.
		if err := ps.Client.Get(ctx, key, sp); err == nil {
			if st := sp.Status.Rollout; st != nil && st.Generation == gen && st.Shadow != nil && statusAfter(sp, poke) {
				return st.Shadow.DeepCopy()
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	r.logf("rollout: status.rollout.shadow of generation %d not written within 10 s of a reconcile", gen)
	return nil
}

// statusAfter reports whether sp's status was written by a reconcile that
// saw the annotation poke: its managed fields' status entry is not
// older than the poke (to the second, as the API server keeps them).
func statusAfter(sp *v1alpha1.SchedulerProfile, poke string) bool {
	at, err := time.Parse(time.RFC3339Nano, poke)
	if err != nil {
		return true
	}
	for _, mf := range sp.ManagedFields {
		if mf.Subresource == "status" && mf.Time != nil && !mf.Time.Time.Before(at.Truncate(time.Second)) {
			return true
		}
	}
	return false
}

// pools is a run of the rollout case's load: poolNodes nodes in each
// pool, the scheduler serving the case's profile, pods of both pools
// created at the case's rate until stopLoad.
type pools struct {
	e       *env
	nodes   int
	created atomic.Int64
	loadErr error
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// startPools prepares a namespace, creates the pools' nodes, starts ps
// with the case's profile and starts the load. The returned done stops
// the load and the scheduler and cleans up; it is to be called even on
// error.
func (r *Runner) startPools(ctx context.Context, c *workloads.Case, vals map[string]int, ps *ProfileScheduler, schedulerName, tag string, rv workloads.RolloutValues) (*pools, func(), error) {
	prof, err := workloads.SchedulerProfile(c.Profile, schedulerName)
	if err != nil {
		return nil, func() {}, err
	}
	e, err := r.prepare(ctx, c, tag)
	pl := &pools{e: e, cancel: func() {}}
	started := false
	done := func() {
		pl.stopLoad()
		if started {
			ps.Stop(context.Background())
		}
		r.cleanup(e)
	}
	if err != nil {
		return pl, done, err
	}
	var nodes []*corev1.Node
	for _, pool := range []string{poolA, poolB} {
		for i := range rv.PoolNodes {
			n, err := r.node(c, c.Rollout.NodeTemplate, "pool-"+pool, i, vals)
			if err != nil {
				return pl, done, err
			}
			n.Labels[scenarioPool] = pool
			e.nodes[n.Name] = n.Labels
			nodes = append(nodes, n)
		}
	}
	if err := r.parallel(ctx, len(nodes), func(ctx context.Context, i int) error {
		_, err := r.CP.Core.CoreV1().Nodes().Create(ctx, nodes[i], metav1.CreateOptions{})
		return err
	}); err != nil {
		return pl, done, err
	}
	pl.nodes = len(nodes)
	started = true
	if err := ps.Start(ctx, prof); err != nil {
		return pl, done, err
	}
	if err := r.probe(ctx, e, schedulerName); err != nil {
		return pl, done, err
	}
	loadCtx, cancel := context.WithCancel(ctx)
	pl.cancel = cancel
	pl.wg.Go(func() { pl.loadErr = r.poolLoad(loadCtx, c, vals, e.ns, schedulerName, rv.Rate, &pl.created) })
	r.logf("rollout/%s: %d nodes in pools a and b, %d pods/s", tag, pl.nodes, rv.Rate)
	return pl, done, nil
}

// stopLoad stops the load and waits for the creates under way.
func (pl *pools) stopLoad() {
	pl.cancel()
	pl.wg.Wait()
}

// poolLoad creates rate pods per second until ctx ends, every other one
// pinned to pool b (loadB), the others to pool a (loadA).
func (r *Runner) poolLoad(ctx context.Context, c *workloads.Case, vals map[string]int, ns, schedulerName string, rate int, created *atomic.Int64) error {
	return r.pacedCreates(ctx, rate, created, func(i int) ([]*corev1.Pod, error) {
		prefix, pool := loadA, poolA
		if i%2 == 1 {
			prefix, pool = loadB, poolB
		}
		pods, err := renderPods(c, c.Rollout.PodTemplate, prefix, i/2, 1, ns, schedulerName, vals)
		if err != nil {
			return nil, err
		}
		pods[0].Spec.NodeSelector = map[string]string{scenarioPool: pool}
		return pods, nil
	})
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// rolloutEnded: the rollout of gen is over, whichever way.
func rolloutEnded(gen int64) func(v1alpha1.RolloutStatus) bool {
	return func(st v1alpha1.RolloutStatus) bool {
		if st.Generation != gen {
			return false
		}
		switch st.Phase {
		case v1alpha1.RolloutPromoted, v1alpha1.RolloutRolledBack, v1alpha1.RolloutAborted, v1alpha1.RolloutSuperseded:
			return true
		}
		return false
	}
}

// rolloutTimeout bounds a wait for a rollout of steps steps to end: each
// step at most extended three times (the analysis' default), and a
// margin.
func rolloutTimeout(step time.Duration, steps int) time.Duration {
	return time.Duration(steps)*4*step + 30*time.Second
}

// blast applies the case's bad change under the pools' load: with a
// canary step of percent, until the rollout ends (waitBlastVerdict: an
// error when it is not rolled back soon after its first failures,
// however long the step) and afterSeconds more; with percent 0 at once,
// for window.
func (r *Runner) blast(ctx context.Context, c *workloads.Case, vals map[string]int, ps *ProfileScheduler, schedulerName string, rv workloads.RolloutValues, percent int, window time.Duration) (run *BlastRun, err error) {
	run = &BlastRun{Percent: percent, Rate: float64(rv.Rate), ToRollbackMillis: -1, FirstFailureMillis: -1, FailureToRollbackMillis: -1, RecoveredMillis: -1}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	bad, err := workloads.SchedulerProfile(c.Rollout.BadChange, schedulerName)
	if err != nil {
		return run, err
	}
	tag := "blast-at-once"
	if percent > 0 {
		tag = fmt.Sprintf("blast-canary-%d", percent)
	}
	pl, done, err := r.startPools(ctx, c, vals, ps, schedulerName, tag, rv)
	defer done()
	if pl.e != nil {
		run.Namespace = pl.e.ns
	}
	run.Nodes = pl.nodes
	if err != nil {
		return run, err
	}
	if err := sleep(ctx, rv.Warmup); err != nil {
		return run, err
	}
	var applied, badUntil time.Time
	if percent > 0 {
		run.StepSeconds = rv.BlastStep.Seconds()
		var gen int64
		gen, applied, err = ps.ApplyRollout(ctx, bad, &v1alpha1.Rollout{
			Steps:    []v1alpha1.RolloutStep{{Canary: &v1alpha1.CanaryStep{Percent: int32(percent), Duration: metav1.Duration{Duration: rv.BlastStep}}}},
			Analysis: &v1alpha1.RolloutAnalysis{MinSamples: ptr.To(int32(rv.MinSamples))},
		})
		if err != nil {
			return run, err
		}
		run.Generation = gen
		seen, werr := r.waitBlastVerdict(ctx, ps, pl.e.rec, gen, applied, percent, rolloutTimeout(rv.BlastStep, 1))
		badUntil = time.Now()
		if werr == nil {
			badUntil = seen.At
			run.Phase, run.Message = seen.Status.Phase, seen.Status.Message
			if seen.Status.Phase == v1alpha1.RolloutRolledBack {
				run.ToRollbackMillis = millis(seen.At.Sub(applied))
			} else {
				werr = fmt.Errorf("the bad change's canary ended %s, not RolledBack: %s", seen.Status.Phase, seen.Status.Message)
			}
		}
		err = errors.Join(err, werr)
		if err == nil {
			err = sleep(ctx, rv.After)
		}
	} else {
		var gen int64
		gen, applied, err = ps.Apply(ctx, bad)
		if err != nil {
			return run, err
		}
		run.Generation = gen
		active, werr := ps.Watcher().WaitActive(ctx, gen, window)
		if werr == nil {
			run.ToRollbackMillis = millis(active.Sub(applied))
		}
		badUntil = time.Now().Add(24 * time.Hour)
		err = errors.Join(werr, sleep(ctx, time.Until(applied.Add(window))))
	}
	pl.stopLoad()
	loadEnd := time.Now()
	run.WindowSeconds = loadEnd.Sub(applied).Seconds()
	run.Created = int(pl.created.Load())
	err = errors.Join(err, pl.loadErr)
	r.logf("rollout/%s: the change made, %d pods created; draining", tag, run.Created)
	// Pool a's pods drain; pool b's, under a bad generation left serving,
	// never will.
	e := pl.e
	nA, nB := (run.Created+1)/2, run.Created/2
	if _, derr := e.rec.WaitBound(ctx, loadA, nA, rv.Drain, rv.Drain); derr != nil {
		r.logf("rollout/%s: %v", tag, derr)
	}
	wait := rv.Drain
	if percent == 0 {
		wait = 2 * time.Second
	}
	if _, derr := e.rec.WaitBound(ctx, loadB, nB, wait, wait); derr != nil {
		r.logf("rollout/%s: %v", tag, derr)
	}
	podsA, podsB := e.rec.Pods(loadA), e.rec.Pods(loadB)
	all := append(podsA, podsB...)
	run.Blast = CountBlast(all, applied, badUntil, percent)
	if first := FirstFailure(all, applied, percent); !first.IsZero() {
		run.FirstFailureMillis = millis(first.Sub(applied))
		if percent > 0 && run.ToRollbackMillis >= 0 {
			run.FailureToRollbackMillis = run.ToRollbackMillis - run.FirstFailureMillis
		}
	}
	for _, p := range all {
		if p.Node != "" {
			run.Bound++
		}
	}
	for _, p := range all {
		if !p.Created.Before(applied) && !p.Created.After(loadEnd) {
			run.CreatedSinceChange++
		}
	}
	for _, p := range podsB {
		if !p.Created.Before(applied) && !p.Created.After(loadEnd) {
			run.PoolPods++
		}
	}
	if percent > 0 && run.ToRollbackMillis >= 0 {
		run.RecoveredMillis = recovered(all, badUntil)
	}
	b := run.Blast
	r.logf("rollout/%s: %d created, %d bound; went pending %d (outside the canary's share %d), bound by the bad generation %d, affected %d, pending at the end %d, bound twice %d; change→rolled back %.0f ms, change→first failure %.0f ms, first failure→rolled back %.0f ms (%s)",
		tag, run.Created, run.Bound, b.WentPending, b.OutsideCanary, b.BoundByBad, b.Affected, b.PendingAtEnd, b.DoubleBound,
		run.ToRollbackMillis, run.FirstFailureMillis, run.FailureToRollbackMillis, run.Phase)
	return run, err
}

// CanaryBucket is where a pod's rollout key falls in 0..99, as the
// scheduler chooses a canary's pods (scheduler.bucket: FNV-1a of the
// pod's UID, or its PodGroup's, modulo 100); the canary schedules the
// pods whose bucket is under its percent.
func CanaryBucket(key string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return int(h.Sum32() % 100)
}

// CountBlast counts what a bad generation did to pods: it ruled from
// applied to until; with percent > 0 only over the pods of its canary
// share (CanaryBucket), with 0 over all.
func CountBlast(pods []PodState, applied, until time.Time, percent int) BlastCounts {
	var b BlastCounts
	for _, p := range pods {
		inShare := percent == 0 || CanaryBucket(p.UID) < percent
		pending := !p.Unschedulable.IsZero()
		byBad := inShare && p.Node != "" && !p.Bound.Before(applied) && !p.Bound.After(until)
		if pending {
			b.WentPending++
			if !inShare {
				b.OutsideCanary++
			}
		}
		if byBad {
			b.BoundByBad++
		}
		if pending || byBad {
			b.Affected++
		}
		if p.Node == "" {
			b.PendingAtEnd++
		}
		if p.Rebinds > 0 {
			b.DoubleBound++
		}
	}
	return b
}

// recovered is from since to the last bind of a pod that went pending, in
// milliseconds (0 when none went pending, -1 when one is still pending).
func recovered(pods []PodState, since time.Time) float64 {
	last := since
	for _, p := range pods {
		if p.Unschedulable.IsZero() {
			continue
		}
		if p.Node == "" {
			return -1
		}
		if p.Bound.After(last) {
			last = p.Bound
		}
	}
	return millis(last.Sub(since))
}

// promote rolls the case's good change out under the pools' load with a
// shadow step and a canary step of promotePercent, to its end, then
// afterSeconds more; tag names the run (its namespace and log lines).
func (r *Runner) promote(ctx context.Context, c *workloads.Case, vals map[string]int, ps *ProfileScheduler, schedulerName string, rv workloads.RolloutValues, tag string) (run *PromoteRun, err error) {
	run = &PromoteRun{Rate: float64(rv.Rate), ToPromotedMillis: -1,
		Steps: fmt.Sprintf("shadow %s, canary %d%% %s", rv.Step, rv.PromotePercent, rv.Step)}
	defer func() {
		if err != nil {
			run.Error = err.Error()
		}
	}()
	good, err := workloads.SchedulerProfile(c.Rollout.GoodChange, schedulerName)
	if err != nil {
		return run, err
	}
	pl, done, err := r.startPools(ctx, c, vals, ps, schedulerName, tag, rv)
	defer done()
	if pl.e != nil {
		run.Namespace = pl.e.ns
	}
	run.Nodes = pl.nodes
	if err != nil {
		return run, err
	}
	if err := sleep(ctx, rv.Warmup); err != nil {
		return run, err
	}
	step := metav1.Duration{Duration: rv.Step}
	gen, applied, err := ps.ApplyRollout(ctx, good, &v1alpha1.Rollout{
		Steps: []v1alpha1.RolloutStep{
			{Shadow: &v1alpha1.ShadowStep{Duration: step}},
			{Canary: &v1alpha1.CanaryStep{Percent: int32(rv.PromotePercent), Duration: step}},
		},
		Analysis: &v1alpha1.RolloutAnalysis{MinSamples: ptr.To(int32(rv.MinSamples))},
	})
	if err != nil {
		return run, err
	}
	run.Generation = gen
	seen, err := ps.Watcher().WaitRollout(ctx, rolloutTimeout(rv.Step, 2), rolloutEnded(gen))
	if err == nil {
		run.Phase, run.Message = seen.Status.Phase, seen.Status.Message
		if seen.Status.Phase == v1alpha1.RolloutPromoted {
			run.ToPromotedMillis = millis(seen.At.Sub(applied))
		}
		run.Analysis, run.Shadow = seen.Status.Analysis, seen.Status.Shadow
		err = sleep(ctx, rv.After)
	}
	pl.stopLoad()
	loadEnd := time.Now()
	run.Created = int(pl.created.Load())
	err = errors.Join(err, pl.loadErr)
	e := pl.e
	r.logf("rollout/%s: %d pods created; draining", tag, run.Created)
	for _, s := range []struct {
		step string
		n    int
	}{{loadA, (run.Created + 1) / 2}, {loadB, run.Created / 2}} {
		if _, derr := e.rec.WaitBound(ctx, s.step, s.n, rv.Drain, rv.Drain); derr != nil {
			r.logf("rollout/%s: %v", tag, derr)
		}
	}
	var binds []time.Time
	for _, s := range []string{loadA, loadB} {
		st := e.rec.Step(s)
		run.Bound += st.Bound
		run.DoubleBound += st.Rebinds
		binds = append(binds, st.BindTimes...)
	}
	run.Lost = run.Created - run.Bound
	times, whats := rolloutChanges(ps.Watcher().Rollouts(), gen, applied)
	for i, g := range stats.GapsAfter(times, loadEnd, binds) {
		run.Changes = append(run.Changes, RolloutChange{What: whats[i], AtSeconds: times[i].Sub(applied).Seconds(), GapMillis: millis(g)})
	}
	gap, _ := stats.LongestGap(applied, loadEnd, binds)
	run.LongestGapMillis = millis(gap)
	if len(times) >= 3 && run.Phase == v1alpha1.RolloutPromoted {
		pods := append(e.rec.Pods(loadA), e.rec.Pods(loadB)...)
		run.Timeline = GenerationTimeline(pods, applied, times[1], times[2], loadEnd, rv.PromotePercent)
	}
	over, overErr := r.overcommitted(ctx)
	run.Overcommitted = over
	r.logf("rollout/%s: %s: %s after %.0f ms; %d created, %d bound, %d lost, %d bound twice; longest gap %.0f ms; changes %+v",
		tag, run.Steps, run.Phase, run.ToPromotedMillis, run.Created, run.Bound, run.Lost, run.DoubleBound, run.LongestGapMillis, run.Changes)
	return run, errors.Join(err, overErr)
}

// rolloutChanges are the times the serving set of gen's rollout changed:
// the change itself (applied), each later step first seen, and its end
// first seen; with what each was.
func rolloutChanges(seen []RolloutSeen, gen int64, applied time.Time) ([]time.Time, []string) {
	times, whats := []time.Time{applied}, []string{"change applied (step 1)"}
	step := int32(1)
	for _, s := range seen {
		st := s.Status
		if st.Generation != gen || s.At.Before(applied) {
			continue
		}
		switch {
		case st.Phase == v1alpha1.RolloutProgressing && st.Step > step:
			step = st.Step
			what := fmt.Sprintf("step %d: %s", st.Step, strings.ToLower(st.StepKind))
			if st.StepKind == v1alpha1.StepCanary {
				what = fmt.Sprintf("step %d: canary %d%%", st.Step, st.Percent)
			}
			times, whats = append(times, s.At), append(whats, what)
		case rolloutEnded(gen)(st):
			return append(times, s.At), append(whats, strings.ToLower(st.Phase))
		}
	}
	return times, whats
}

// TimelineWindow is the width of a window of a promotion's timeline.
const TimelineWindow = 2 * time.Second

// GenerationWindow is what one generation bound in one window of a
// promotion: Candidate is the new generation (in its canary share, then,
// promoted, for every pod), else the generation that served before.
type GenerationWindow struct {
	AtSeconds      float64 `json:"atSeconds"`
	Candidate      bool    `json:"candidate"`
	Pods           int     `json:"pods"`
	BindsPerSecond float64 `json:"bindsPerSecond"`
	P99Millis      float64 `json:"p99Millis"`
}

// GenerationTimeline splits the pods bound from applied to loadEnd by the
// generation that bound them, as the operator decides it: before
// canaryStart the serving one (the shadow step decides nothing), from
// canaryStart to promoted the candidate for the pods of its canary share
// (CanaryBucket of the pod's UID under percent), from promoted the
// candidate for all. A pod's generation is judged at its bind, which
// follows its cycle by one round trip. Each window gives each
// generation's binds per second and the p99 of its pods' creation to
// bind.
func GenerationTimeline(pods []PodState, applied, canaryStart, promoted, loadEnd time.Time, percent int) []GenerationWindow {
	type acc struct{ lat []float64 }
	// Whole windows only: a last part-window would show a drop that is
	// the end of the load.
	n := int(loadEnd.Sub(applied) / TimelineWindow)
	wins := make([][2]acc, n)
	for _, p := range pods {
		if p.Bound.IsZero() || p.Bound.Before(applied) || !p.Bound.Before(applied.Add(time.Duration(n)*TimelineWindow)) {
			continue
		}
		candidate := !p.Bound.Before(promoted) || (!p.Bound.Before(canaryStart) && CanaryBucket(p.UID) < percent)
		w := int(p.Bound.Sub(applied) / TimelineWindow)
		g := 0
		if candidate {
			g = 1
		}
		wins[w][g].lat = append(wins[w][g].lat, millis(p.Bound.Sub(p.Created)))
	}
	var out []GenerationWindow
	for w := range wins {
		for g, a := range wins[w] {
			gw := GenerationWindow{AtSeconds: float64(w) * TimelineWindow.Seconds(), Candidate: g == 1, Pods: len(a.lat),
				BindsPerSecond: float64(len(a.lat)) / TimelineWindow.Seconds()}
			if len(a.lat) > 0 {
				gw.P99Millis = stats.Summarize(a.lat).P99
			}
			out = append(out, gw)
		}
	}
	return out
}
