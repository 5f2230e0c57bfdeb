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
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// Scheduling loops. With profile loops on (the default, WithProfileLoops),
// every served schedulerName has a loop of its own: it pops only its
// profile's pods (queue.PopFor, the profile's QueueSort order), runs their
// cycles on a snapshot of its own, which its profile's frameworks read,
// and starts their binding cycles as the one loop did. A profile whose
// extender answers in seconds holds up its own pods only. The cache, the
// queue and the binding goroutines are shared. With profile loops off, one
// loop pops every profile's pods in upstream's global order (queue.Pop) on
// one snapshot.
//
// Two loops may pick the same room at the same moment: each placed its
// pod on a snapshot that did not have the other's. So a pod is assumed in
// the cache under assumeMu, and checked again first, against the cache's
// copy of its node, with its profile's room-judging Filter plugins (the
// bind check's: bindCheckPlugins), whenever another loop assumed a pod on
// that node since this loop's snapshot was taken. A pod that lost the race is put
// straight back into the active queue (queue.Retry): no plugin judged it,
// so it is not unschedulable, not backed off, and gets no FailedScheduling
// event; its next cycle sees the winner. One loop alone never checks: its
// snapshot held every pod assumed before it, as upstream's does.
//
// A pod nominated to a node, after its preemption evicted victims there,
// counts as an assume on that node (noteNomination), and the check counts
// the pods other loops' profiles nominated there, of the pod's priority
// or higher, as upstream's Filter does: the room a preemption freed goes
// to its preemptor, not to a loop whose snapshot predates the nomination.

// errAssumeConflict marks a pod whose node's room another loop took
// between this loop's snapshot and the pod's assume.
var errAssumeConflict = errors.New("another profile's loop took the node's room first")

// profileLoop is one scheduling loop: the scheduler as seen from the loop,
// with the snapshot and algorithm the loop alone writes.
type profileLoop struct {
	*Scheduler
	// name is the schedulerName whose pods the loop pops; "" for the one
	// loop of every profile.
	name string
	// snapshot is the loop's copy of the cache, brought up to date at the
	// start of each cycle. Its profile's frameworks read it; a pod-group
	// cycle assumes members on it.
	snapshot  *internalcache.Snapshot
	algorithm *algorithm
	// seen is the scheduler's assume count (Scheduler.assumes) when the
	// loop last took its snapshot: a node assumed on after it (assumedOn)
	// may hold a pod the snapshot does not, another loop's (or, in a
	// pod-group cycle, one of the group's members, which the snapshot
	// has too; checking those is redundant, not wrong).
	seen int64
	// cycle is the profile generation of the cycle the loop runs (its
	// bind check judges room at assume); nil between cycles.
	cycle *liveProfile

	// cancel stops the loop; nil until it starts.
	cancel context.CancelFunc
	stats  loopStats
}

// newLoop makes the loop of name ("" for the one loop of every profile);
// it starts with startLoopLocked.
func (s *Scheduler) newLoop(name string) *profileLoop {
	snapshot := internalcache.NewEmptySnapshot()
	return &profileLoop{
		Scheduler: s,
		name:      name,
		snapshot:  snapshot,
		algorithm: &algorithm{
			snapshot:                 snapshot,
			percentageOfNodesToScore: s.opts.percentageOfNodesToScore,
			nextStartNodeIndex:       &s.nextStartNodeIndex,
			schedulingCycle:          s.queue.SchedulingCycle,
		},
	}
}

// loopFor returns the loop that schedules name's pods, made if it does not
// exist yet (and started if the scheduler runs: startLoop). A framework of
// name is built on its snapshot.
func (s *Scheduler) loopFor(name string) *profileLoop {
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	if s.single != nil {
		return s.single
	}
	l := s.loops[name]
	if l == nil {
		l = s.newLoop(name)
		s.loops[name] = l
	}
	return l
}

// startLoop starts name's loop if the scheduler runs and it has not
// started yet.
func (s *Scheduler) startLoop(name string) {
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	if l := s.loops[name]; l != nil {
		s.startLoopLocked(l)
	}
}

// startLoops starts every loop made so far, and from then on each loop as
// it is made; they stop with ctx.
func (s *Scheduler) startLoops(ctx context.Context) {
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	s.loopsCtx = ctx
	if s.single != nil {
		s.startLoopLocked(s.single)
	}
	for _, l := range s.loops {
		s.startLoopLocked(l)
	}
}

func (s *Scheduler) startLoopLocked(l *profileLoop) {
	if s.loopsCtx == nil || l.cancel != nil {
		return
	}
	// Stopping a loop stops its popping only: the cycle it runs, and the
	// bindings it started, go on until the scheduler stops.
	ctx := s.loopsCtx
	if l.name != "" {
		ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("loop", l.name))
	}
	stop, cancel := context.WithCancel(ctx)
	l.cancel = cancel
	l.stats.start(time.Now(), l.name)
	loopsRunning.Inc()
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer loopsRunning.Dec()
		l.run(ctx, stop)
	}()
}

// stopLoop stops name's loop after the cycle it runs, if any, and forgets
// it: a profile of the same name added later gets a new loop.
func (s *Scheduler) stopLoop(name string) {
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	l := s.loops[name]
	if l == nil {
		return
	}
	delete(s.loops, name)
	if l.cancel != nil {
		l.cancel()
	}
}

// dropUnservedLoop forgets name's loop when it never started and no
// profile serves name (an Apply of a new name that failed).
func (s *Scheduler) dropUnservedLoop(name string) {
	if s.Serving(name) {
		return
	}
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	if l := s.loops[name]; l != nil && l.cancel == nil {
		delete(s.loops, name)
	}
}

// run pops until stop ends, and schedules what it popped on ctx (the
// scheduler's).
func (l *profileLoop) run(ctx, stop context.Context) {
	for stop.Err() == nil {
		waitStart := time.Now()
		var e framework.QueuedEntityInfo
		if l.name == "" {
			e = l.queue.Pop(stop)
		} else {
			e = l.queue.PopFor(stop, l.name)
		}
		start := time.Now()
		l.stats.wait.Add(start.Sub(waitStart).Seconds())
		if e == nil {
			continue
		}
		l.stats.begin(start, entityName(e))
		l.scheduleOne(ctx, e)
		l.stats.end(start, time.Now())
	}
}

// entityName names a popped pod or pod group, for the loop's state.
func entityName(e framework.QueuedEntityInfo) string {
	switch e := e.(type) {
	case *framework.QueuedPodGroupInfo:
		return "podgroup " + klog.KObj(e).String()
	case *framework.QueuedPodInfo:
		if e.Pod != nil {
			return "pod " + klog.KObj(e.Pod).String()
		}
	}
	return ""
}

// assumePod assumes pod (its node set) in the cache. When a pod was
// assumed on its node since this loop's snapshot, by another loop, the
// pod is first checked against the cache's copy of its node with the bind
// check of the cycle's generation, its room-judging plugins (none
// enabled: nothing to check); a pod that no longer fits gets an error
// wrapping errAssumeConflict and is not assumed. Assumes of every loop
// take turns (assumeMu), so of two pods that fit only one at a time, the
// second is checked with the first in the cache; assumeMu is held for the
// check and the assume alone, and loops filling nodes of their own never
// check. The one loop of every profile never checks: its snapshot holds
// every pod assumed before it, as upstream's does.
func (l *profileLoop) assumePod(ctx context.Context, pod *v1.Pod) error {
	logger := klog.FromContext(ctx)
	l.assumeMu.Lock()
	defer l.assumeMu.Unlock()
	if l.name != "" && l.assumedOn[pod.Spec.NodeName] > l.seen && l.cycle != nil && l.cycle.check != nil {
		var nominated podsOnNode
		if pods := l.nominatedByOthers(pod); len(pods) > 0 {
			nominated = func(context.Context, string) ([]v1.Pod, error) { return pods, nil }
		}
		if st, _ := l.cycle.check.run(ctx, l.cache, nominated, pod, pod.Spec.NodeName); st.IsRejected() {
			return fmt.Errorf("%w: node %q: %s", errAssumeConflict, pod.Spec.NodeName, st.Message())
		}
	}
	if err := l.cache.AssumePod(logger, pod); err != nil {
		return err
	}
	l.assumedOn[pod.Spec.NodeName] = l.assumes.Add(1)
	return nil
}

// noteNomination counts a pod nominated to node (after its preemption
// evicted victims there) as an assume on node: a loop whose snapshot is
// older checks its next assume on node, counting the nominated pod
// (nominatedByOthers), as upstream's one loop counts nominated pods in
// every Filter.
func (s *Scheduler) noteNomination(node string) {
	s.assumeMu.Lock()
	defer s.assumeMu.Unlock()
	s.assumedOn[node] = s.assumes.Add(1)
}

// nominatedByOthers returns the pods other loops' profiles nominated to
// pod's node, of pod's priority or higher (those upstream's Filter counts
// as if they ran there, RunFilterPluginsWithNominatedPods): the room a
// preemption freed for them is not another loop's to take.
func (l *profileLoop) nominatedByOthers(pod *v1.Pod) []v1.Pod {
	var out []v1.Pod
	priority := corev1helpers.PodPriority(pod)
	for _, pi := range l.queue.NominatedPodsForNode(pod.Spec.NodeName) {
		p := pi.GetPod()
		if p.UID == pod.UID || p.Spec.SchedulerName == pod.Spec.SchedulerName || corev1helpers.PodPriority(p) < priority {
			continue
		}
		out = append(out, *p)
	}
	return out
}

// updateSnapshot brings the loop's snapshot up to date with the cache at
// the start of a cycle.
func (l *profileLoop) updateSnapshot(logger klog.Logger) error {
	l.seen = l.assumes.Load()
	return l.cache.UpdateSnapshot(logger, l.snapshot)
}

// retryLostRace puts back a pod that lost its node to another loop at
// assume, for a cycle at once (queue.Retry), unless it was deleted,
// recreated or bound meanwhile.
func (l *profileLoop) retryLostRace(ctx context.Context, podInfo *framework.QueuedPodInfo, status *fwk.Status) {
	pod := podInfo.Pod
	klog.FromContext(ctx).V(3).Info("Pod lost its node to another profile's loop; scheduling it again at once", "reason", status.Message())
	loopAssumeConflicts.WithLabelValues(pod.Spec.SchedulerName).Inc()
	l.stats.conflicts.Add(1)
	cached, err := l.podLister.Pods(pod.Namespace).Get(pod.Name)
	if err != nil || cached.UID != pod.UID || cached.Spec.NodeName != "" {
		l.queue.Done(pod.UID)
		return
	}
	podInfo.PodInfo, _ = framework.NewPodInfo(cached.DeepCopy())
	l.queue.Retry(ctx, podInfo)
}

// lostRace reports whether status is that of a pod that lost its node to
// another loop at assume.
func lostRace(status *fwk.Status) bool {
	return status != nil && errors.Is(status.AsError(), errAssumeConflict)
}

// loopWindow is how far back a loop's busy share and cycles are counted
// (LoopState), in loopBuckets buckets.
const (
	loopWindow  = time.Minute
	loopBuckets = 6
)

// loopStats is what a loop tells of itself: the cycle it runs, and its
// time in cycles and waiting for pods over the last loopWindow. The loop
// writes it, LoopState reads it.
type loopStats struct {
	conflicts atomic.Int64
	// busy and wait are the loop's series of loopBusySeconds and
	// loopWaitSeconds.
	busy, wait prometheus.Counter

	mu      sync.Mutex
	started time.Time
	// current is the pod or pod group in the cycle, since cycleStart;
	// empty while the loop waits.
	current    string
	cycleStart time.Time
	// buckets hold busy time and cycles per loopWindow/loopBuckets of
	// time, by the bucket's index since the epoch.
	buckets [loopBuckets]loopBucket
}

type loopBucket struct {
	index  int64
	busy   time.Duration
	cycles int32
}

func (st *loopStats) start(now time.Time, loop string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.started = now
	st.busy, st.wait = loopBusySeconds.WithLabelValues(loop), loopWaitSeconds.WithLabelValues(loop)
}

func (st *loopStats) begin(now time.Time, current string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.current, st.cycleStart = current, now
}

func (st *loopStats) end(start, now time.Time) {
	d := now.Sub(start)
	st.busy.Add(d.Seconds())
	st.mu.Lock()
	defer st.mu.Unlock()
	st.current, st.cycleStart = "", time.Time{}
	b := st.bucket(now)
	b.busy += d
	b.cycles++
}

// bucket is now's bucket, emptied if it held an older one's counts.
func (st *loopStats) bucket(now time.Time) *loopBucket {
	i := now.UnixNano() / int64(loopWindow/loopBuckets)
	b := &st.buckets[i%loopBuckets]
	if b.index != i {
		*b = loopBucket{index: i}
	}
	return b
}

// LoopState is the state of the scheduling loop of a profile.
type LoopState struct {
	// Own is true when the profile has a loop of its own; false when one
	// loop serves every profile (profile loops off).
	Own bool
	// BusyPercent is the share of the last minute (or of the time since
	// the loop started, if shorter) the loop spent in scheduling cycles;
	// the rest it waited for pods. Cycles is how many it ran then.
	BusyPercent int32
	Cycles      int32
	// Current is the pod or pod group whose cycle runs now, since
	// CycleStart; empty while the loop waits for a pod.
	Current    string
	CycleStart time.Time
	// AssumeConflicts counts the pods that lost their node to another
	// loop at assume and were scheduled again.
	AssumeConflicts int64
}

// Loops tells controllers the state of the scheduling loops.
type Loops interface {
	// LoopState returns the state of the loop that schedules the pods of
	// schedulerName; false when none does.
	LoopState(schedulerName string) (LoopState, bool)
}

var _ Loops = &Scheduler{}

// LoopState returns the state of the loop that schedules name's pods;
// false when no started loop does.
func (s *Scheduler) LoopState(name string) (LoopState, bool) {
	s.loopsMu.Lock()
	l := s.single
	if l == nil {
		l = s.loops[name]
	}
	started := l != nil && l.cancel != nil
	s.loopsMu.Unlock()
	if !started || !s.Serving(name) {
		return LoopState{}, false
	}
	return l.stats.state(time.Now(), s.single == nil), true
}

func (st *loopStats) state(now time.Time, own bool) LoopState {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := LoopState{Own: own, Current: st.current, CycleStart: st.cycleStart, AssumeConflicts: st.conflicts.Load()}
	first := now.UnixNano()/int64(loopWindow/loopBuckets) - loopBuckets + 1
	var busy time.Duration
	for _, b := range st.buckets {
		if b.index >= first {
			busy += b.busy
			out.Cycles += b.cycles
		}
	}
	if st.current != "" {
		busy += now.Sub(st.cycleStart)
	}
	span := min(loopWindow, now.Sub(st.started))
	if span > 0 {
		out.BusyPercent = int32(min(100, 100*busy/span))
	}
	return out
}
