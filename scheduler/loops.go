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
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// loopSet holds the scheduling loops: one per served schedulerName with
// profile loops on, or single, the one loop of every profile, with them
// off. A loop is made when a profile of its name is first built (its
// frameworks are built on its snapshot) and started once the scheduler
// runs; it stops when its profile is removed.
type loopSet struct {
	// newLoop makes a loop of a name, not started.
	newLoop func(name string) *profileLoop
	// running counts the loops' goroutines (the scheduler's).
	running *sync.WaitGroup

	// mu guards loops, single's start and ctx.
	mu     sync.Mutex
	loops  map[string]*profileLoop
	single *profileLoop
	// ctx is what started loops run on; nil until startAll.
	ctx context.Context
}

// newLoopSet returns the loops of a scheduler: one per profile when
// perProfile, else a single one made now.
func newLoopSet(perProfile bool, running *sync.WaitGroup, newLoop func(name string) *profileLoop) *loopSet {
	ls := &loopSet{newLoop: newLoop, running: running}
	if perProfile {
		ls.loops = make(map[string]*profileLoop)
	} else {
		ls.single = newLoop("")
	}
	return ls
}

// loopFor returns the loop that schedules name's pods, made if it does not
// exist yet (and started only by start). A framework of name is built on
// its snapshot.
func (ls *loopSet) loopFor(name string) *profileLoop {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.single != nil {
		return ls.single
	}
	l := ls.loops[name]
	if l == nil {
		l = ls.newLoop(name)
		ls.loops[name] = l
	}
	return l
}

// start starts name's loop if the loops run and it has not started yet.
func (ls *loopSet) start(name string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l := ls.loops[name]; l != nil {
		ls.startLocked(l)
	}
}

// startAll starts every loop made so far, and from then on each loop as
// it is made; they stop with ctx.
func (ls *loopSet) startAll(ctx context.Context) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.ctx = ctx
	if ls.single != nil {
		ls.startLocked(ls.single)
	}
	for _, l := range ls.loops {
		ls.startLocked(l)
	}
}

func (ls *loopSet) startLocked(l *profileLoop) {
	if ls.ctx == nil || l.cancel != nil {
		return
	}
	// Stopping a loop stops its popping only: the cycle it runs, and the
	// bindings it started, go on until the scheduler stops.
	ctx := ls.ctx
	if l.name != "" {
		ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("loop", l.name))
	}
	stop, cancel := context.WithCancel(ctx)
	l.cancel = cancel
	l.stats.start(time.Now(), l.name)
	loopsRunning.Inc()
	ls.running.Add(1)
	go func() {
		defer ls.running.Done()
		defer loopsRunning.Dec()
		l.run(ctx, stop)
	}()
}

// stop stops name's loop after the cycle it runs, if any, and forgets
// it: a profile of the same name added later gets a new loop.
func (ls *loopSet) stop(name string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l := ls.loops[name]
	if l == nil {
		return
	}
	delete(ls.loops, name)
	if l.cancel != nil {
		l.cancel()
	}
}

// dropUnstarted forgets name's loop when it never started (an Apply of a
// new name that failed; the caller checked that no profile serves name).
func (ls *loopSet) dropUnstarted(name string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l := ls.loops[name]; l != nil && l.cancel == nil {
		delete(ls.loops, name)
	}
}

// state is the state of the started loop that schedules name's pods;
// false when none does.
func (ls *loopSet) state(name string, now time.Time) (LoopState, bool) {
	ls.mu.Lock()
	l := ls.single
	if l == nil {
		l = ls.loops[name]
	}
	started := l != nil && l.cancel != nil
	own := ls.single == nil
	ls.mu.Unlock()
	if !started {
		return LoopState{}, false
	}
	return l.stats.state(now, own), true
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

// scheduleOne schedules one popped entity, a pod or a pod group.
func (l *profileLoop) scheduleOne(ctx context.Context, e framework.QueuedEntityInfo) {
	switch e := e.(type) {
	case *framework.QueuedPodGroupInfo:
		l.scheduleOnePodGroup(ctx, e)
	case *framework.QueuedPodInfo:
		if e.Pod != nil {
			l.scheduleOnePod(ctx, e)
		}
	}
}
