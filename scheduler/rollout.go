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

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// A progressive rollout serves two generations of one profile under one
// schedulerName: the serving one (in the profile map) and a candidate
// (in the rollout map). In a shadow step the candidate decides nothing:
// it judges, off the scheduling loop, the pods the serving generation
// placed or found unschedulable (ShadowJudge). In a canary step it
// schedules the pods whose stable hash falls under its percent: the pod's
// UID, or its PodGroup's, so a gang never straddles generations. The
// queue stays one per schedulerName, sorted by the serving generation's
// QueueSort (a rollout of a QueueSort change is refused by its caller);
// the queueing hints of both generations requeue its pods. Promote makes
// the candidate the serving generation, Rollback retires it; either way
// the cache, the queue and every queued pod are kept, and a cycle or
// binding that runs on a retired generation ends on it, as after a swap.

// RolloutStep is what the candidate does: Percent 0 is a shadow step.
type RolloutStep struct {
	// Percent of the profile's pods the candidate schedules (0 to 99).
	Percent int32
}

// Rollouts is how controllers drive progressive rollouts.
type Rollouts interface {
	// StartRollout builds a framework for p and serves it as the
	// candidate of its schedulerName beside the serving generation, as
	// step says, replacing a candidate there is. A build failure returns
	// the error and changes nothing; a schedulerName nothing serves is an
	// error.
	StartRollout(ctx context.Context, p Profile, step RolloutStep) (Applied, error)
	// SetRolloutStep moves the candidate of schedulerName to step, and
	// starts a new window. It reports whether a candidate serves.
	SetRolloutStep(ctx context.Context, schedulerName string, step RolloutStep) bool
	// Candidate is the generation of the candidate of schedulerName, 0
	// when none serves.
	Candidate(schedulerName string) int64
	// Promote makes the candidate the serving generation; Rollback
	// retires it. Each reports whether there was a candidate.
	Promote(ctx context.Context, schedulerName string) bool
	Rollback(ctx context.Context, schedulerName string) bool
	// Window is what both generations did since the step (or the last
	// window) started; reset starts a new window.
	Window(schedulerName string, reset bool) (RolloutWindow, bool)
}

var _ Rollouts = &Scheduler{}

// ShadowJudge judges a pod with a candidate generation, as a review does:
// Filter and Score on a snapshot of its own, never Reserve, Permit or
// Bind. servingNode is where the serving generation placed the pod, empty
// when it found none; the pod is judged as if it were not there.
type ShadowJudge interface {
	JudgeShadow(ctx context.Context, gen *Generation, pod *v1.Pod, servingNode string) (ShadowVerdict, error)
}

// ShadowVerdict is a candidate's judgement of one pod.
type ShadowVerdict struct {
	// Node the candidate would pick; empty when none fits.
	Node string
	// FeasibleOnServingNode: the serving generation's node passes the
	// candidate's filters.
	FeasibleOnServingNode bool
	// RefusedBy is the plugin (or extender) of the candidate that refused
	// the serving generation's node.
	RefusedBy string
}

// SetShadowJudge sets what judges the pods of a shadow step. Without one,
// shadow steps judge nothing.
func (s *Scheduler) SetShadowJudge(j ShadowJudge) { s.shadowJudge.Store(&j) }

// GenerationCounts are a generation's outcomes over a window.
type GenerationCounts struct {
	// Attempts are bound, unschedulable or failed with an error. Errors
	// also count the panics of its plugins in parallel workers, within
	// an attempt counted otherwise.
	Attempts, Bound, Unschedulable, Errors int64
	// LatencyP99 from a pod's first attempt to its bind, over the
	// LatencySamples last pods bound in the window.
	LatencyP99     time.Duration
	LatencySamples int
}

// ShadowCounts count what the candidate judged in a shadow window.
type ShadowCounts struct {
	Judged, SameNode, FeasibleWhereServingPlaced, ServingPlaced, WouldPlace, WouldNotPlace int64
	// Skipped: pods offered while the shadow's queue was full.
	Skipped int64
	// Disagreements are the first pods judged otherwise.
	Disagreements []ShadowDisagreement
}

// ShadowDisagreement is a pod the candidate judged otherwise.
type ShadowDisagreement struct {
	Pod, ServingNode, NewNode, Plugin string
}

// RolloutWindow is a window of a rollout step.
type RolloutWindow struct {
	Serving, Candidate GenerationCounts
	Shadow             ShadowCounts
}

// maxDisagreements is how many disagreeing pods a shadow window names.
const maxDisagreements = 5

// shadowQueueLength bounds the pods waiting for the shadow's judgement;
// when it is full, pods are skipped and the counts are a sample.
const shadowQueueLength = 256

// rollout is the candidate of one schedulerName. A published rollout is
// never modified; a step change publishes a new one.
type rollout struct {
	candidate *liveProfile
	step      RolloutStep
	// shadow judges the serving generation's pods in a shadow step; nil
	// in a canary step.
	shadow *shadow
}

type rolloutMap map[string]*rollout

// generationStats counts a generation's outcomes since its window began,
// while a rollout runs (role set): outside a rollout the scheduling cycle
// pays a nil check and one lock, and keeps no latencies.
type generationStats struct {
	mu        sync.Mutex
	counts    GenerationCounts
	latencies []time.Duration
	next      int
	// role is serving or candidate while the generation's profile is
	// rolled out, empty otherwise; profile is its schedulerName.
	role, profile string
}

// maxLatencySamples bounds the latencies kept per window (the last ones).
const maxLatencySamples = 4096

// outcome of one attempt.
type outcome int

const (
	outcomeBound outcome = iota
	outcomeUnschedulable
	outcomeError
)

func (g *generationStats) record(o outcome, latency time.Duration) {
	if g == nil {
		return
	}
	g.mu.Lock()
	role, profile := g.role, g.profile
	if role == "" {
		g.mu.Unlock()
		return
	}
	g.counts.Attempts++
	switch o {
	case outcomeBound:
		g.counts.Bound++
		if len(g.latencies) < maxLatencySamples {
			g.latencies = append(g.latencies, latency)
		} else {
			g.latencies[g.next] = latency
			g.next = (g.next + 1) % maxLatencySamples
		}
	case outcomeUnschedulable:
		g.counts.Unschedulable++
	case outcomeError:
		g.counts.Errors++
	}
	g.mu.Unlock()
	observeGeneration(profile, role, o, latency)
}

// panicked counts a plugin's panic in a parallel worker of an attempt
// counted by its outcome.
func (g *generationStats) panicked() {
	g.mu.Lock()
	role, profile := g.role, g.profile
	if role != "" {
		g.counts.Errors++
	}
	g.mu.Unlock()
	if role != "" {
		rolloutAttempts.WithLabelValues(profile, role, "panic").Inc()
	}
}

// setRole starts counting the generation as role of profile's rollout in
// a new window, or stops counting it (role empty) and drops its counts.
func (g *generationStats) setRole(profile, role string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.profile, g.role = profile, role
	g.counts, g.latencies, g.next = GenerationCounts{}, nil, 0
}

// window returns the counts since the window began, and starts a new one
// when reset.
func (g *generationStats) window(reset bool) GenerationCounts {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.counts
	c.LatencySamples = len(g.latencies)
	if n := len(g.latencies); n > 0 {
		sorted := slices.Clone(g.latencies)
		slices.Sort(sorted)
		c.LatencyP99 = sorted[min(n-1, (n*99+99)/100-1)]
	}
	if reset {
		g.counts, g.latencies, g.next = GenerationCounts{}, nil, 0
	}
	return c
}

// shadow judges, on one goroutine, the pods the serving generation placed
// or found unschedulable, with the candidate.
type shadow struct {
	pods chan shadowPod
	stop chan struct{}
	done chan struct{}

	mu     sync.Mutex
	counts ShadowCounts
}

type shadowPod struct {
	pod  *v1.Pod
	node string
}

// offer hands a pod to the shadow without waiting: when its queue is
// full, the pod is skipped.
func (sh *shadow) offer(pod *v1.Pod, node string) {
	select {
	case sh.pods <- shadowPod{pod: pod, node: node}:
	default:
		sh.mu.Lock()
		sh.counts.Skipped++
		sh.mu.Unlock()
	}
}

func (sh *shadow) window(reset bool) ShadowCounts {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	c := sh.counts
	c.Disagreements = slices.Clone(c.Disagreements)
	if reset {
		sh.counts = ShadowCounts{}
	}
	return c
}

func (sh *shadow) note(p shadowPod, v ShadowVerdict) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	c := &sh.counts
	c.Judged++
	agree := true
	if p.node != "" {
		c.ServingPlaced++
		if v.Node == p.node {
			c.SameNode++
		}
		if v.FeasibleOnServingNode {
			c.FeasibleWhereServingPlaced++
		} else {
			agree = false
		}
		if v.Node == "" {
			c.WouldNotPlace++
		}
	} else if v.Node != "" {
		c.WouldPlace++
		agree = false
	}
	if !agree && len(c.Disagreements) < maxDisagreements {
		c.Disagreements = append(c.Disagreements, ShadowDisagreement{
			Pod: p.pod.Namespace + "/" + p.pod.Name, ServingNode: p.node, NewNode: v.Node, Plugin: v.RefusedBy,
		})
	}
}

// run judges the pods offered until stopped. Each judgement holds a
// reference on the candidate, as a review does.
func (s *Scheduler) runShadow(ctx context.Context, sh *shadow, candidate *liveProfile) {
	defer close(sh.done)
	logger := klog.FromContext(ctx)
	for {
		select {
		case <-sh.stop:
			return
		case <-ctx.Done():
			return
		case p := <-sh.pods:
			j := s.shadowJudge.Load()
			if j == nil || !candidate.acquire() {
				continue
			}
			v, err := s.judgeShadow(ctx, *j, candidate, p)
			candidate.release(logger)
			if err != nil {
				logger.V(3).Info("Shadow judgement failed", "pod", klog.KObj(p.pod), "err", err)
				continue
			}
			sh.note(p, v)
		}
	}
}

func (sh *shadow) close() {
	close(sh.stop)
	<-sh.done
}

// bucket is where key falls in 0..99.
func bucket(key string) int32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return int32(h.Sum32() % 100)
}

// rolloutKey is what a pod's generation is chosen by: its PodGroup's UID
// (or namespace/name when the group is not known yet), else its own UID.
func (s *Scheduler) rolloutKey(pod *v1.Pod) string {
	if pod.Spec.SchedulingGroup != nil && pod.Spec.SchedulingGroup.PodGroupName != nil {
		name := *pod.Spec.SchedulingGroup.PodGroupName
		if pg, err := s.cache.PodGroups().Get(pod.Namespace, name); err == nil && pg.UID != "" {
			return string(pg.UID)
		}
		return pod.Namespace + "/" + name
	}
	return string(pod.UID)
}

// groupRolloutKey is rolloutKey for a popped pod group.
func groupRolloutKey(pgi *framework.QueuedPodGroupInfo) string {
	if pgi.PodGroup != nil && pgi.PodGroup.UID != "" {
		return string(pgi.PodGroup.UID)
	}
	return pgi.Namespace + "/" + pgi.Name
}

// acquireFor returns, with a reference taken, the generation that
// schedules a pod (or a pod group) of schedulerName whose rollout key is
// key: the candidate when a canary step's percent covers it, else the
// serving one; nil when none serves.
func (s *Scheduler) acquireFor(schedulerName string, key func() string) *liveProfile {
	if r := (*s.rollouts.Load())[schedulerName]; r != nil && r.step.Percent > 0 && bucket(key()) < r.step.Percent {
		if r.candidate.acquire() {
			return r.candidate
		}
	}
	return s.acquireProfile(schedulerName)
}

// offerShadow hands a pod the serving generation placed on node (or
// found unschedulable: node empty) to the shadow of its schedulerName, if
// a shadow step runs.
func (s *Scheduler) offerShadow(lp *liveProfile, pod *v1.Pod, node string) {
	name := lp.applied.SchedulerName
	r := (*s.rollouts.Load())[name]
	if r == nil || r.shadow == nil || (*s.profiles.Load())[name] != lp {
		return
	}
	r.shadow.offer(pod, node)
}

// statsOf returns the counts of the generation fw belongs to, if it
// serves or is a candidate.
func (s *Scheduler) statsOf(fw framework.Framework) *generationStats {
	name := fw.ProfileName()
	if p := (*s.profiles.Load())[name]; p != nil && p.fw == fw {
		return p.stats
	}
	if r := (*s.rollouts.Load())[name]; r != nil && r.candidate.fw == fw {
		return r.candidate.stats
	}
	return nil
}

// StartRollout builds p and serves it as its schedulerName's candidate.
// See Rollouts.
func (s *Scheduler) StartRollout(ctx context.Context, p Profile, step RolloutStep) (applied Applied, err error) {
	start := time.Now()
	defer func() { observeSwap(p.Config.SchedulerName, start, err) }()
	if step.Percent < 0 || step.Percent > 99 {
		return Applied{}, fmt.Errorf("a rollout step's percent must be 0 to 99, not %d", step.Percent)
	}
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	logger := klog.FromContext(ctx)
	if err := s.ctx.Err(); err != nil {
		return Applied{}, errors.New("scheduler is stopped")
	}
	name := p.Config.SchedulerName
	serving := (*s.profiles.Load())[name]
	if serving == nil {
		return Applied{}, fmt.Errorf("no generation serves %q: a rollout needs one", name)
	}
	lp, err := s.build(ctx, p, s.loopFor(name).snapshot)
	if err != nil {
		return Applied{}, err
	}
	if err := s.watch(ctx, lp.events); err != nil {
		lp.retire(logger)
		return Applied{}, err
	}
	if s.started.Load() {
		s.waitForInformers(ctx, name)
	}
	old := (*s.rollouts.Load())[name]
	s.publishRollout(ctx, name, serving, &rollout{candidate: lp, step: step})
	if old != nil {
		s.endRollout(old)
		old.candidate.retire(logger)
	}
	logger.V(2).Info("Rollout started", "profile", name, "generation", p.Generation, "servingGeneration", serving.profile.Generation, "percent", step.Percent)
	return lp.applied, nil
}

// publishRollout publishes r as name's rollout (nil: none), with a shadow
// started for a shadow step, the roles of both generations' metrics set,
// both windows started, and the queue's hints those of both generations.
// The caller holds applyMu.
func (s *Scheduler) publishRollout(ctx context.Context, name string, serving *liveProfile, r *rollout) {
	old := *s.rollouts.Load()
	next := make(rolloutMap, len(old)+1)
	for k, v := range old {
		if k != name {
			next[k] = v
		}
	}
	if r != nil {
		if r.step.Percent == 0 && r.shadow == nil {
			r.shadow = &shadow{pods: make(chan shadowPod, shadowQueueLength), stop: make(chan struct{}), done: make(chan struct{})}
			s.running.Add(1)
			go func() {
				defer s.running.Done()
				s.runShadow(klog.NewContext(s.ctx, klog.FromContext(s.ctx).WithValues("profile", name, "shadowOf", r.candidate.profile.Generation)), r.shadow, r.candidate)
			}()
		}
		next[name] = r
		// Both windows start anew with the step.
		r.candidate.stats.setRole(name, "candidate")
		serving.stats.setRole(name, "serving")
		if err := s.queue.SetProfile(ctx, name, serving.fw, r.candidate.fw); err != nil {
			klog.FromContext(ctx).Error(err, "Queue refused the rollout's hints", "profile", name)
		}
	}
	s.rollouts.Store(&next)
	rolloutCandidatePercent.WithLabelValues(name).Set(float64(stepGauge(r)))
}

// stepGauge is the rollout_step gauge's value: -1 none, 0 shadow, else the
// canary's percent.
func stepGauge(r *rollout) int32 {
	if r == nil {
		return -1
	}
	return r.step.Percent
}

// endRollout stops what a rollout runs beside its candidate (its shadow)
// and takes its generation out of the per-generation metrics.
func (s *Scheduler) endRollout(r *rollout) {
	if r.shadow != nil {
		r.shadow.close()
	}
	r.candidate.stats.setRole("", "")
}

// SetRolloutStep moves name's candidate to step. See Rollouts.
func (s *Scheduler) SetRolloutStep(ctx context.Context, name string, step RolloutStep) bool {
	if step.Percent < 0 || step.Percent > 99 {
		return false
	}
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	r := (*s.rollouts.Load())[name]
	serving := (*s.profiles.Load())[name]
	if r == nil || serving == nil {
		return false
	}
	next := &rollout{candidate: r.candidate, step: step}
	if step.Percent == 0 && r.shadow != nil {
		next.shadow = r.shadow
		r.shadow.window(true)
	} else if r.shadow != nil {
		r.shadow.close()
	}
	s.publishRollout(ctx, name, serving, next)
	klog.FromContext(ctx).V(2).Info("Rollout step", "profile", name, "generation", r.candidate.profile.Generation, "percent", step.Percent)
	return true
}

// Candidate returns the generation of name's candidate, 0 if none.
func (s *Scheduler) Candidate(name string) int64 {
	if r := (*s.rollouts.Load())[name]; r != nil {
		return r.candidate.profile.Generation
	}
	return 0
}

// Promote makes name's candidate its serving generation. See Rollouts.
func (s *Scheduler) Promote(ctx context.Context, name string) bool {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	logger := klog.FromContext(ctx)
	r := (*s.rollouts.Load())[name]
	if r == nil {
		return false
	}
	old := *s.profiles.Load()
	prev := old[name]
	next := make(profileMap, len(old))
	for k, v := range old {
		next[k] = v
	}
	next[name] = r.candidate
	s.profiles.Store(&next)
	s.publishRollout(ctx, name, nil, nil)
	s.endRollout(r)
	if err := s.queue.SetProfile(ctx, name, r.candidate.fw); err != nil {
		logger.Error(err, "Queue refused profile", "profile", name)
	}
	if prev != nil {
		prev.stats.setRole("", "")
		prev.retire(logger)
	}
	logger.V(2).Info("Rollout promoted", "profile", name, "generation", r.candidate.profile.Generation)
	return true
}

// Rollback retires name's candidate. See Rollouts.
func (s *Scheduler) Rollback(ctx context.Context, name string) bool {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	return s.rollbackLocked(ctx, name, true)
}

// rollbackLocked retires name's candidate, and gives the queue back the
// serving generation's hints alone when requeue is set (Apply and Remove
// set the queue themselves next); the caller holds applyMu.
func (s *Scheduler) rollbackLocked(ctx context.Context, name string, requeue bool) bool {
	logger := klog.FromContext(ctx)
	r := (*s.rollouts.Load())[name]
	if r == nil {
		return false
	}
	s.publishRollout(ctx, name, nil, nil)
	s.endRollout(r)
	if serving := (*s.profiles.Load())[name]; serving != nil {
		serving.stats.setRole("", "")
		if requeue {
			if err := s.queue.SetProfile(ctx, name, serving.fw); err != nil {
				logger.Error(err, "Queue refused profile", "profile", name)
			}
		}
	}
	r.candidate.retire(logger)
	logger.V(2).Info("Rollout rolled back", "profile", name, "generation", r.candidate.profile.Generation)
	return true
}

// Window returns name's rollout window. See Rollouts.
func (s *Scheduler) Window(name string, reset bool) (RolloutWindow, bool) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	r := (*s.rollouts.Load())[name]
	serving := (*s.profiles.Load())[name]
	if r == nil || serving == nil {
		return RolloutWindow{}, false
	}
	var w RolloutWindow
	w.Serving = serving.stats.window(reset)
	w.Candidate = r.candidate.stats.window(reset)
	if r.shadow != nil {
		w.Shadow = r.shadow.window(reset)
	}
	return w, true
}

// candidateKey marks the context of a candidate's scheduling cycle: a
// panic in one of its plugins is an error of the candidate, not the end
// of the process.
type candidateKey struct{}

// recoverCandidatePanic, in a panic handler of the parallel Filter and
// Score workers, ends the worker of a candidate's cycle whose plugin
// panicked (the panic is already recovered there) instead of letting the
// handler crash the process, and counts an error of that generation. The
// pieces the worker had left are not evaluated: their nodes are neither
// feasible nor rejected.
func recoverCandidatePanic(ctx context.Context, r interface{}) {
	if ctx == nil {
		return
	}
	g, ok := ctx.Value(candidateKey{}).(*generationStats)
	if !ok {
		return
	}
	g.panicked()
	klog.FromContext(ctx).Error(fmt.Errorf("%v", r), "A plugin of a rollout's candidate panicked; the candidate's cycle goes on without it")
	runtime.Goexit()
}

var registerPanicHandler sync.Once

func init() {
	registerPanicHandler.Do(func() {
		utilruntime.PanicHandlers = append([]func(context.Context, interface{}){recoverCandidatePanic}, utilruntime.PanicHandlers...)
	})
}
