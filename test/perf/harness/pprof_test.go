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
	"bytes"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	httppprof "net/http/pprof"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// profileBuilder makes profiles as the Go runtime writes them: functions,
// locations with one line each, samples with stacks innermost first.
type profileBuilder struct {
	p     *profile.Profile
	locs  map[string]*profile.Location
	funcs map[string]*profile.Function
}

func newProfileBuilder(sampleTypes ...*profile.ValueType) *profileBuilder {
	return &profileBuilder{p: &profile.Profile{SampleType: sampleTypes, PeriodType: sampleTypes[0], Period: 1},
		locs: map[string]*profile.Location{}, funcs: map[string]*profile.Function{}}
}

// add adds a sample of values whose stack is funcs (innermost first).
func (b *profileBuilder) add(labels map[string][]string, values []int64, funcs ...string) {
	var stack []*profile.Location
	for _, name := range funcs {
		loc, ok := b.locs[name]
		if !ok {
			fn := &profile.Function{ID: uint64(len(b.funcs) + 1), Name: name, SystemName: name}
			b.funcs[name] = fn
			b.p.Function = append(b.p.Function, fn)
			loc = &profile.Location{ID: uint64(len(b.locs) + 1), Address: uint64(0x1000 + len(b.locs)), Line: []profile.Line{{Function: fn, Line: 1}}}
			b.locs[name] = loc
			b.p.Location = append(b.p.Location, loc)
		}
		stack = append(stack, loc)
	}
	b.p.Sample = append(b.p.Sample, &profile.Sample{Location: stack, Value: values, Label: labels})
}

// build writes the profile and parses it back, as the harness gets it
// from /debug/pprof.
func (b *profileBuilder) build(t *testing.T) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := b.p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	reviewLabels = map[string][]string{reviewLabelKey: {reviewLabelValue}}
	sec          = int64(1e9)
)

func cpuBuilder() *profileBuilder {
	return newProfileBuilder(&profile.ValueType{Type: "samples", Unit: "count"}, &profile.ValueType{Type: "cpu", Unit: "nanoseconds"})
}

func TestSplitCPU(t *testing.T) {
	b := cpuBuilder()
	// A review's own goroutine, and a Filter worker it started (framework
	// code the cycle runs too: only the label tells them apart).
	b.add(reviewLabels, []int64{300, 3 * sec}, "k8s.io/kubernetes/pkg/scheduler/backend/cache.(*Snapshot).AssumePod",
		module+"scheduler.(*reviewCycle).assume", module+"scheduler.(*Scheduler).runScenario", module+"scheduler.(*Scheduler).Review.func1")
	b.add(reviewLabels, []int64{100, sec}, "k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources.(*Fit).Filter",
		module+"scheduler.(*Scheduler).findNodesThatPassFilters.func1", "k8s.io/client-go/util/workqueue.ParallelizeUntil.func1")
	// The controller's call of Review is labelled: reviews, not the controller.
	b.add(reviewLabels, []int64{50, sec / 2}, module+"scheduler.(*Scheduler).Review", module+"controllers.(*schedulingReviewReconciler).answer",
		module+"controllers.(*schedulingReviewReconciler).Reconcile")
	// The controller writing status.
	b.add(nil, []int64{200, 2 * sec}, "encoding/json.Marshal", module+"controllers.(*schedulingReviewReconciler).Reconcile")
	// Review code without the label: a hole in the labelling.
	b.add(nil, []int64{25, sec / 4}, module+"scheduler.(*reviewSnapshot).snapshotLocked")
	// The scheduling cycle, and a function of another module named as ours.
	b.add(nil, []int64{400, 4 * sec}, module+"scheduler.(*Scheduler).scheduleOne")
	b.add(nil, []int64{100, sec}, "example.com/other/scheduler.(*Scheduler).Review")
	// A rollout's shadow judging a pod: its own label, apart from reviews.
	b.add(map[string][]string{reviewLabelKey: {shadowLabelValue}}, []int64{150, 3 * sec / 2}, module+"scheduler/review.(*Reviews).judgeShadow",
		module+"scheduler/review.(*Reviews).JudgeShadow.func1")
	// The bind arbiter judging a bind: its own label.
	b.add(map[string][]string{reviewLabelKey: {arbiterLabelValue}}, []int64{50, sec / 2}, module+"scheduler.(*Arbiter).Decide",
		module+"controllers.(*bindingValidator).Handle.func1")
	got, err := splitCPU(b.build(t))
	if err != nil {
		t.Fatal(err)
	}
	want := CPUSplit{Profiled: 13.75, Review: 4.5, ReviewController: 2, UnlabelledReview: 0.25, Shadow: 1.5, Arbiter: 0.5}
	if math.Abs(got.Profiled-want.Profiled) > 1e-9 || math.Abs(got.Review-want.Review) > 1e-9 || math.Abs(got.Shadow-want.Shadow) > 1e-9 ||
		math.Abs(got.Arbiter-want.Arbiter) > 1e-9 ||
		math.Abs(got.ReviewController-want.ReviewController) > 1e-9 || math.Abs(got.UnlabelledReview-want.UnlabelledReview) > 1e-9 {
		t.Errorf("split %+v, want %+v", got, want)
	}

	mutex := newProfileBuilder(&profile.ValueType{Type: "contentions", Unit: "count"}, &profile.ValueType{Type: "delay", Unit: "nanoseconds"})
	if _, err := splitCPU(mutex.build(t)); err == nil {
		t.Errorf("a mutex profile split as a CPU profile")
	}
}

func contentionBuilder() *profileBuilder {
	return newProfileBuilder(&profile.ValueType{Type: "contentions", Unit: "count"}, &profile.ValueType{Type: "delay", Unit: "nanoseconds"})
}

// The cache's lock released by a review's snapshot update counts as
// review-held; released by the cycle's, it does not. The delta of two
// cumulative profiles is what happened between them.
func TestSplitMutexDelta(t *testing.T) {
	reviewHeld := []string{"sync.(*Mutex).Unlock", "k8s.io/kubernetes/pkg/scheduler/backend/cache.(*cacheImpl).UpdateSnapshot",
		module + "scheduler.(*Scheduler).startReviewCycle", module + "scheduler.(*Scheduler).review", module + "scheduler.(*Scheduler).Review.func1"}
	cycleHeld := []string{"sync.(*Mutex).Unlock", "k8s.io/kubernetes/pkg/scheduler/backend/cache.(*cacheImpl).UpdateSnapshot",
		module + "scheduler.(*Scheduler).scheduleOne"}
	informer := []string{"sync.(*RWMutex).Unlock", "k8s.io/client-go/tools/cache.(*threadSafeMap).Update"}

	before := contentionBuilder()
	before.add(nil, []int64{2, 1e6}, cycleHeld...)
	before.add(nil, []int64{1, 5e5}, reviewHeld...)
	after := contentionBuilder()
	after.add(nil, []int64{5, 5e6}, cycleHeld...)
	after.add(nil, []int64{4, 35e5}, reviewHeld...)
	after.add(nil, []int64{1, 2e6}, informer...)
	d, err := profileDelta(before.build(t), after.build(t))
	if err != nil {
		t.Fatal(err)
	}
	got, stacks, err := splitMutex(d)
	if err != nil {
		t.Fatal(err)
	}
	want := LockSplit{Contentions: 7, DelaySeconds: 0.009, ReviewHeldContentions: 3, ReviewHeldDelaySeconds: 0.003}
	if got.Contentions != want.Contentions || got.ReviewHeldContentions != want.ReviewHeldContentions ||
		math.Abs(got.DelaySeconds-want.DelaySeconds) > 1e-12 || math.Abs(got.ReviewHeldDelaySeconds-want.ReviewHeldDelaySeconds) > 1e-12 {
		t.Errorf("split %+v, want %+v", got, want)
	}
	if len(stacks) != 3 {
		t.Fatalf("%d stacks, want 3: %+v", len(stacks), stacks)
	}
	// Most delay first; sync's frames left out, the module's trimmed.
	for i, w := range []struct {
		ms     float64
		review bool
		frames []string
	}{
		{4, false, []string{"k8s.io/kubernetes/pkg/scheduler/backend/cache.(*cacheImpl).UpdateSnapshot", "scheduler.(*Scheduler).scheduleOne"}},
		{3, true, []string{"k8s.io/kubernetes/pkg/scheduler/backend/cache.(*cacheImpl).UpdateSnapshot", "scheduler.(*Scheduler).startReviewCycle",
			"scheduler.(*Scheduler).review", "scheduler.(*Scheduler).Review.func1"}},
		{2, false, []string{"k8s.io/client-go/tools/cache.(*threadSafeMap).Update"}},
	} {
		st := stacks[i]
		if math.Abs(st.DelaySeconds*1000-w.ms) > 1e-9 || st.ReviewHeld != w.review || !slices.Equal(st.Frames, w.frames) {
			t.Errorf("stack %d: %.3f ms, review-held %t at %v; want %.0f ms, %t at %v", i, st.DelaySeconds*1000, st.ReviewHeld, st.Frames, w.ms, w.review, w.frames)
		}
	}
}

// The block profile's waits count when the scheduling cycle's goroutines
// waited for a lock: not its waits on channels, not a review's waits.
func TestCycleLockWaits(t *testing.T) {
	b := contentionBuilder()
	b.add(nil, []int64{3, 6e6}, "sync.runtime_SemacquireMutex", "internal/sync.(*Mutex).lockSlow", "internal/sync.(*Mutex).Lock", "sync.(*Mutex).Lock",
		"k8s.io/kubernetes/pkg/scheduler/backend/cache.(*cacheImpl).UpdateSnapshot", module+"scheduler.(*Scheduler).scheduleOnePod", module+"scheduler.(*Scheduler).scheduleOne")
	b.add(nil, []int64{1, 1e6}, "sync.runtime_SemacquireRWMutexR", "sync.(*RWMutex).RLock", "k8s.io/client-go/tools/cache.(*threadSafeMap).Get",
		module+"scheduler.(*Scheduler).bindingCycle", module+"scheduler.(*Scheduler).scheduleOnePod.func2")
	b.add(nil, []int64{50, 9e9}, "runtime.chanrecv1", module+"scheduler.(*Scheduler).scheduleOnePod.func2")
	b.add(nil, []int64{4, 8e6}, "sync.(*Mutex).Lock", module+"scheduler.(*Scheduler).startReviewCycle", module+"scheduler.(*Scheduler).Review.func1")
	waits, delay, err := cycleLockWaits(b.build(t))
	if err != nil {
		t.Fatal(err)
	}
	if waits != 4 || math.Abs(delay-0.007) > 1e-12 {
		t.Errorf("the cycle waited %d times, %.6f s; want 4, 0.007 s", waits, delay)
	}
	if _, _, err := cycleLockWaits(cpuBuilder().build(t)); err == nil {
		t.Errorf("a CPU profile read as a block profile")
	}
}

// burn spends CPU until ctx ends.
func burn(ctx context.Context) {
	x := 0
	for ctx.Err() == nil {
		for i := range 100000 {
			x += i
		}
	}
	_ = x
}

// Over a real /debug/pprof (this test process's): the CPU windows merge
// into one profile whose samples carry the label they were spent under,
// and the mutex profile's delta holds the contention made between its two
// reads, not the one before.
func TestProfilesOverHTTP(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", httppprof.Index)
	mux.HandleFunc("/debug/pprof/profile", httppprof.Profile)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer runtime.SetMutexProfileFraction(runtime.SetMutexProfileFraction(1))

	contend := func(n int) {
		var mu sync.Mutex
		for range n {
			mu.Lock()
			done := make(chan struct{})
			go func() { mu.Lock(); mu.Unlock(); close(done) }() //nolint:staticcheck // the wait is what is recorded
			time.Sleep(time.Millisecond)
			mu.Unlock()
			<-done
		}
	}
	contend(5) // before: not in the delta
	ctx, cancel := context.WithCancel(context.Background())
	mutexDelta := deltaOf(ctx, srv.URL, "mutex")
	stop := cpuWindows(ctx, srv.URL)
	var wg sync.WaitGroup
	wg.Go(func() { pprof.Do(ctx, pprof.Labels(reviewLabelKey, reviewLabelValue), burn) })
	wg.Go(func() { burn(ctx) })
	// Three seconds: two windows at least, however slow the machine.
	time.Sleep(3 * time.Second)
	contend(3)
	p, err := stop()
	m, mErr := mutexDelta()
	cancel()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if p.DurationNanos < int64(2*time.Second) {
		t.Errorf("merged windows last %v, want two seconds or more", time.Duration(p.DurationNanos))
	}
	cpu, err := splitCPU(p)
	if err != nil {
		t.Fatal(err)
	}
	if cpu.Review <= 0 || cpu.Profiled-cpu.Review <= 0 {
		t.Errorf("split %+v: want samples with the label and without", cpu)
	}
	if mErr != nil {
		t.Fatal(mErr)
	}
	_, stacks, err := splitMutex(m)
	if err != nil {
		t.Fatal(err)
	}
	// The runtime adds contention of its own locks: count this test's.
	var mine int64
	for _, st := range stacks {
		if slices.ContainsFunc(st.Frames, func(f string) bool { return strings.Contains(f, "TestProfilesOverHTTP") }) {
			mine += st.Contentions
		}
	}
	if mine != 3 {
		t.Errorf("%d contentions of this test between the reads, want the 3 made then: %+v", mine, stacks)
	}
}
