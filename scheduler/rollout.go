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
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// A progressive rollout serves two generations of one profile under one
// schedulerName: the serving one (in the profile map) and a candidate
// (in the rollout map). In a shadow step the candidate decides nothing:
// it judges, off the scheduling loop, the pods the serving generation
// placed or found unschedulable (ShadowJudge). In a canary step it
// schedules the pods whose stable hash falls under its percent: the pod's
// UID, or its PodGroup's, so a gang never straddles generations. The
// queue stays one per schedulerName, sorted by the serving generation's
// QueueSort (StartRollout refuses a candidate of other QueueSort plugins,
// QueueSortChangedError);
// the queueing hints of both generations requeue its pods. Promote makes
// the candidate the serving generation, Rollback retires it; either way
// the cache, the queue and every queued pod are kept, and a cycle or
// binding that runs on a retired generation ends on it, as after a swap.

// The rollout's state machine: StartRollout (shadow or canary),
// SetRolloutStep, then Promote or Rollback, each under applyMu. The
// published rollout and its canary's keying are in rollout_canary.go,
// the shadow in rollout_shadow.go, the windows' counts in
// rollout_stats.go, the containment of a candidate's panics in
// rollout_panics.go.

// Rollouts is how controllers drive progressive rollouts.
type Rollouts interface {
	// StartRollout builds a framework for p and serves it as the
	// candidate of its schedulerName beside the serving generation, as
	// step says, replacing a candidate there is. A build failure, and a
	// candidate whose QueueSort plugins are not the serving generation's
	// (*QueueSortChangedError), return the error and change nothing; a
	// schedulerName nothing serves is an error.
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

// StartRollout builds p and serves it as its schedulerName's candidate.
// See Rollouts.
func (s *Scheduler) StartRollout(ctx context.Context, p Profile, step RolloutStep) (applied Applied, err error) {
	start := time.Now()
	defer func() { observeSwap(p.Config.SchedulerName, start, err) }()
	if err := step.valid(); err != nil {
		return Applied{}, err
	}
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	logger := klog.FromContext(ctx)
	if err := s.ctx.Err(); err != nil {
		return Applied{}, errors.New("scheduler is stopped")
	}
	name := p.Config.SchedulerName
	serving := s.gens.serving(name)
	if serving == nil {
		return Applied{}, fmt.Errorf("no generation serves %q: a rollout needs one", name)
	}
	lp, err := s.builder.build(ctx, p, s.loops.loopFor(name).snapshot)
	if err != nil {
		return Applied{}, err
	}
	if was, is := queueSortOf(serving.applied.Plugins), queueSortOf(lp.applied.Plugins); was != is {
		lp.retire(logger)
		return Applied{}, &QueueSortChangedError{Serving: was, Candidate: is}
	}
	if err := s.watcher.watch(ctx, lp.events); err != nil {
		lp.retire(logger)
		return Applied{}, err
	}
	if s.started.Load() {
		s.builder.waitForInformers(ctx, name)
	}
	old := s.gens.rollout(name)
	s.publishRollout(ctx, name, serving, &rollout{candidate: lp, step: step, namespaces: s.namespaces, matched: new(atomic.Int64)})
	if old != nil {
		old.stop()
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
	if r != nil {
		if r.step.Percent == 0 && r.shadow == nil {
			r.shadow = newShadow(r.candidate, &s.shadowJudge)
			s.running.Add(1)
			go func() {
				defer s.running.Done()
				r.shadow.run(klog.NewContext(s.ctx, klog.FromContext(s.ctx).WithValues("profile", name, "shadowOf", r.candidate.profile.Generation)))
			}()
		}
		// Both windows start anew with the step.
		r.candidate.stats.setRole(name, "candidate")
		serving.stats.setRole(name, "serving")
		if err := s.queue.SetProfile(ctx, name, serving.fw, r.candidate.fw); err != nil {
			klog.FromContext(ctx).Error(err, "Queue refused the rollout's hints", "profile", name)
		}
	}
	s.gens.setRollout(name, r)
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

// SetRolloutStep moves name's candidate to step. See Rollouts.
func (s *Scheduler) SetRolloutStep(ctx context.Context, name string, step RolloutStep) bool {
	if step.valid() != nil {
		return false
	}
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	r := s.gens.rollout(name)
	serving := s.gens.serving(name)
	if r == nil || serving == nil {
		return false
	}
	next := &rollout{candidate: r.candidate, step: step, namespaces: r.namespaces, matched: r.matched}
	r.matched.Store(0)
	if step.Percent == 0 && r.shadow != nil {
		next.shadow = r.shadow
		r.shadow.window(true)
	} else if r.shadow != nil {
		r.shadow.close()
	}
	s.publishRollout(ctx, name, serving, next)
	klog.FromContext(ctx).V(2).Info("Rollout step", "profile", name, "generation", r.candidate.profile.Generation, "percent", step.Percent, "selector", step.selects())
	return true
}

// Candidate returns the generation of name's candidate, 0 if none.
func (s *Scheduler) Candidate(name string) int64 {
	if r := s.gens.rollout(name); r != nil {
		return r.candidate.profile.Generation
	}
	return 0
}

// Promote makes name's candidate its serving generation. See Rollouts.
func (s *Scheduler) Promote(ctx context.Context, name string) bool {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	logger := klog.FromContext(ctx)
	r := s.gens.rollout(name)
	if r == nil {
		return false
	}
	prev := s.gens.setServing(name, r.candidate)
	s.publishRollout(ctx, name, nil, nil)
	r.stop()
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
	r := s.gens.rollout(name)
	if r == nil {
		return false
	}
	s.publishRollout(ctx, name, nil, nil)
	r.stop()
	if serving := s.gens.serving(name); serving != nil {
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
	r := s.gens.rollout(name)
	serving := s.gens.serving(name)
	if r == nil || serving == nil {
		return RolloutWindow{}, false
	}
	var w RolloutWindow
	w.Serving = serving.stats.window(reset)
	w.Candidate = r.candidate.stats.window(reset)
	w.Matched = r.matched.Load()
	if reset {
		r.matched.Store(0)
	}
	if r.shadow != nil {
		w.Shadow = r.shadow.window(reset)
	}
	return w, true
}

// SetShadowJudge sets what judges the pods of a shadow step. Without one,
// shadow steps judge nothing.
func (s *Scheduler) SetShadowJudge(j ShadowJudge) { s.shadowJudge.Store(&j) }

// QueueSortChangedError is StartRollout's refusal of a candidate whose
// QueueSort plugins are not the serving generation's: a profile's pods
// wait in one queue, sorted one way, so a rollout cannot split them.
type QueueSortChangedError struct {
	// Serving and Candidate name each generation's QueueSort plugins.
	Serving, Candidate string
}

func (e *QueueSortChangedError) Error() string {
	return fmt.Sprintf("a rollout cannot split a change of the QueueSort plugin (%s to %s): the profile's pods wait in one queue", e.Serving, e.Candidate)
}

// queueSortOf names the QueueSort plugins a framework runs.
func queueSortOf(p *config.Plugins) string {
	if p == nil {
		return ""
	}
	names := make([]string, 0, len(p.QueueSort.Enabled))
	for _, pl := range p.QueueSort.Enabled {
		names = append(names, pl.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
