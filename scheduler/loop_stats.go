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
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// What a scheduling loop tells of itself (LoopState, the loop metrics):
// the cycle it runs, and its time in cycles and waiting for pods.

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

	// mu guards what follows: the loop writes it, LoopState reads it; a
	// leaf lock.
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

// Metrics of the scheduling loops.
var (
	// loopsRunning counts the scheduling loops that run: one per served
	// profile, or one in all with profile loops off.
	loopsRunning = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "scheduling_loops",
		Help:      "Scheduling loops running: one per served profile, or one for all profiles with --profile-loops=false.",
	})
	// loopBusySeconds and loopWaitSeconds split a loop's time between
	// scheduling cycles and waiting for a pod, per loop (its profile's
	// schedulerName; "" for the one loop of every profile).
	loopBusySeconds = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "scheduling_loop_busy_seconds_total",
		Help:      "Time a scheduling loop spent in scheduling cycles, by loop (the profile's schedulerName; empty for the one loop of every profile).",
	}, []string{"loop"})
	loopWaitSeconds = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "scheduling_loop_wait_seconds_total",
		Help:      "Time a scheduling loop waited for a pod to schedule, by loop (the profile's schedulerName; empty for the one loop of every profile).",
	}, []string{"loop"})
	// loopAssumeConflicts counts the pods that lost their node's room to
	// another profile's loop at assume and were scheduled again at once.
	loopAssumeConflicts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "scheduling_loop_assume_conflicts_total",
		Help:      "Pods whose node's room another profile's loop took between their cycle's snapshot and their assume, scheduled again at once, by profile.",
	}, []string{"profile"})
)

// loopCollectors are the metrics declared here (registerMetrics).
func loopCollectors() []prometheus.Collector {
	return []prometheus.Collector{loopsRunning, loopBusySeconds, loopWaitSeconds, loopAssumeConflicts}
}
