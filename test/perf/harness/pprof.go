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
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// The operator's reviews run under this pprof label (review.Reviews.Review),
// and so do the goroutines they start: Go hands a goroutine's labels to
// the goroutines it starts.
const reviewLabelKey, reviewLabelValue = "work", "review"

// A rollout's shadow judges pods under the label work=shadow
// (review.Reviews.JudgeShadow).
const shadowLabelValue = "shadow"

// The bind arbiter's decisions run under the label work=arbiter
// (controllers' bindingValidator).
const arbiterLabelValue = "arbiter"

// module prefixes the operator's function names in a profile.
const module = "github.com/profile-scheduler/profile-scheduler/"

// reviewFuncs are the functions of scheduler/review*.go that hold a
// review's work, as a profile names them (after module; a closure adds
// .funcN, so each is a prefix). A review's own goroutine has
// (*Scheduler).Review at its root; the others are for stacks a profile
// cut short. The goroutines a review starts (its parallel Filter and
// Score workers) run framework code the scheduling cycle runs too: their
// CPU is told apart by the label, their locks not at all.
var reviewFuncs = []string{
	"scheduler.(*Scheduler).Review",
	"scheduler.(*Scheduler).review", // review, reviewPodGroup
	"scheduler.(*Scheduler).startReviewCycle",
	"scheduler.(*Scheduler).liveReviewFramework",
	"scheduler.(*Scheduler).newReviewFramework",
	"scheduler.(*Scheduler).scenario",
	"scheduler.(*Scheduler).runScenario",
	"scheduler.(*Scheduler).planScenario",
	"scheduler.(*Scheduler).whatIf", // whatIf, whatIfGroup
	"scheduler.(*Scheduler).pendingPods",
	"scheduler.(*Scheduler).queuedGroup",
	"scheduler.(*reviewCycle).",
	"scheduler.(*reviewFramework).",
	"scheduler.(*reviewSnapshot).",
	"scheduler.reviewPlacer.",
	"scheduler.minimize",
}

// reviewControllerFuncs are the SchedulingReview controller's: reading a
// review, writing its answer into status, deleting it after its TTL. Its
// call of Review is labelled; the rest is not.
var reviewControllerFuncs = []string{"controllers.(*schedulingReviewReconciler)."}

// cycleFuncs are the scheduling cycle's goroutines: the scheduling loop
// (scheduleOne, scheduleOnePod, scheduleOnePodGroup) and the binding
// cycles it starts (scheduleOnePod.funcN). Its parallel Filter and Score
// workers run code reviews run too, and are left out.
var cycleFuncs = []string{"scheduler.(*Scheduler).scheduleOne"}

// lockFuncs are where a goroutine waits for a sync.Mutex or RWMutex.
var lockFuncs = []string{"sync.(*Mutex).Lock", "sync.(*RWMutex).Lock", "sync.(*RWMutex).RLock", "internal/sync.(*Mutex).Lock"}

// inFuncs says whether a frame of stack is one of funcs (prefixes of
// function names, the operator's without its module path).
func inFuncs(stack []*profile.Location, funcs []string) bool {
	for _, loc := range stack {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			name := strings.TrimPrefix(line.Function.Name, module)
			for _, f := range funcs {
				if strings.HasPrefix(name, f) {
					return true
				}
			}
		}
	}
	return false
}

// valueIndex is the index of the sample type typ in p.
func valueIndex(p *profile.Profile, typ string) (int, error) {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i, nil
		}
	}
	return 0, fmt.Errorf("the profile has no %q samples", typ)
}

// CPUSplit is a CPU profile's samples split by who spent them, in seconds
// of CPU sampled.
type CPUSplit struct {
	// Profiled is every sample.
	Profiled float64 `json:"profiled"`
	// Review is the samples labelled work=review: reviews and capacity
	// scenarios, and the goroutines they start.
	Review float64 `json:"review"`
	// ReviewController is the unlabelled samples of the SchedulingReview
	// controller (reconciles: status writes, deletions after the TTL).
	ReviewController float64 `json:"reviewController"`
	// UnlabelledReview is unlabelled samples in a review function
	// (reviewFuncs): review work the label misses; 0 when it misses none.
	UnlabelledReview float64 `json:"unlabelledReview"`
	// Shadow is the samples labelled work=shadow: a rollout's candidate
	// judging the pods the serving generation placed.
	Shadow float64 `json:"shadow,omitempty"`
	// Arbiter is the samples labelled work=arbiter: the bind arbiter's
	// decisions.
	Arbiter float64 `json:"arbiter,omitempty"`
}

// splitCPU splits the samples of a CPU profile (sample type "cpu", in
// nanoseconds).
func splitCPU(p *profile.Profile) (CPUSplit, error) {
	var s CPUSplit
	i, err := valueIndex(p, "cpu")
	if err != nil {
		return s, err
	}
	for _, smp := range p.Sample {
		v := float64(smp.Value[i]) / 1e9
		s.Profiled += v
		switch {
		case slices.Contains(smp.Label[reviewLabelKey], reviewLabelValue):
			s.Review += v
		case slices.Contains(smp.Label[reviewLabelKey], shadowLabelValue):
			s.Shadow += v
		case slices.Contains(smp.Label[reviewLabelKey], arbiterLabelValue):
			s.Arbiter += v
		case inFuncs(smp.Location, reviewControllerFuncs):
			s.ReviewController += v
		case inFuncs(smp.Location, reviewFuncs):
			s.UnlabelledReview += v
		}
	}
	return s, nil
}

// LockSplit is the lock contention a mutex profile recorded over a span:
// how often a goroutine waited for a sync.Mutex or RWMutex another held,
// and for how long in all. The profile records it at the stack that
// released the lock (the holder's), not at the waiter's.
type LockSplit struct {
	Contentions  int64   `json:"contentions"`
	DelaySeconds float64 `json:"delaySeconds"`
	// ReviewHeld is the part released by review code (a frame of
	// reviewFuncs in the holder's stack): the most any goroutine, the
	// scheduling cycle's among them, waited for a lock a review held.
	ReviewHeldContentions  int64   `json:"reviewHeldContentions"`
	ReviewHeldDelaySeconds float64 `json:"reviewHeldDelaySeconds"`
	// CycleWaits and CycleWaitSeconds are, from the block profile (at
	// the waiter's stack), the scheduling cycle's waits for a lock,
	// whoever held it (cycleLockWaits).
	CycleWaits       int64   `json:"cycleWaits"`
	CycleWaitSeconds float64 `json:"cycleWaitSeconds"`
}

// LockStack is one holder stack of a mutex profile and the delay it
// caused.
type LockStack struct {
	DelaySeconds float64
	Contentions  int64
	ReviewHeld   bool
	// Frames are the stack's functions, innermost first, without those
	// of sync and runtime.
	Frames []string
}

// splitMutex splits a mutex profile (sample types "contentions" and
// "delay", in nanoseconds) and returns its stacks, most delay first.
func splitMutex(p *profile.Profile) (LockSplit, []LockStack, error) {
	var s LockSplit
	ci, err := valueIndex(p, "contentions")
	if err != nil {
		return s, nil, err
	}
	di, err := valueIndex(p, "delay")
	if err != nil {
		return s, nil, err
	}
	var stacks []LockStack
	for _, smp := range p.Sample {
		n, d := smp.Value[ci], float64(smp.Value[di])/1e9
		if n <= 0 && d <= 0 {
			continue
		}
		st := LockStack{DelaySeconds: d, Contentions: n, ReviewHeld: inFuncs(smp.Location, reviewFuncs)}
		s.Contentions += n
		s.DelaySeconds += d
		if st.ReviewHeld {
			s.ReviewHeldContentions += n
			s.ReviewHeldDelaySeconds += d
		}
		for _, loc := range smp.Location {
			for _, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				name := line.Function.Name
				if strings.HasPrefix(name, "sync.") || strings.HasPrefix(name, "runtime.") || strings.HasPrefix(name, "internal/sync.") {
					continue
				}
				st.Frames = append(st.Frames, strings.TrimPrefix(name, module))
			}
		}
		stacks = append(stacks, st)
	}
	slices.SortFunc(stacks, func(a, b LockStack) int { return cmp.Compare(b.DelaySeconds, a.DelaySeconds) })
	return s, stacks, nil
}

// cycleLockWaits sums the samples of a block profile (sample types
// "contentions" and "delay", in nanoseconds; recorded at the stack that
// waited) where the scheduling cycle (cycleFuncs) waited for a lock
// (lockFuncs), whoever held it.
func cycleLockWaits(p *profile.Profile) (waits int64, delaySeconds float64, err error) {
	ci, err := valueIndex(p, "contentions")
	if err != nil {
		return 0, 0, err
	}
	di, err := valueIndex(p, "delay")
	if err != nil {
		return 0, 0, err
	}
	for _, smp := range p.Sample {
		if smp.Value[ci] > 0 && inFuncs(smp.Location, lockFuncs) && inFuncs(smp.Location, cycleFuncs) {
			waits += smp.Value[ci]
			delaySeconds += float64(smp.Value[di]) / 1e9
		}
	}
	return waits, delaySeconds, nil
}

// profileDelta is after less before, for cumulative profiles (mutex,
// block), as net/http/pprof computes ?seconds=N.
func profileDelta(before, after *profile.Profile) (*profile.Profile, error) {
	before = before.Copy()
	before.Scale(-1)
	return profile.Merge([]*profile.Profile{before, after})
}

// fetchProfile reads and parses the profile served at base+path (a
// process's /debug/pprof/...).
func fetchProfile(ctx context.Context, base, path string) (*profile.Profile, error) {
	if base == "" {
		return nil, fmt.Errorf("%s: the scheduler serves no /debug/pprof", path)
	}
	body, err := getPprof(ctx, base, path)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return profile.Parse(body)
}

// cpuWindows records the CPU profile served under base in windows of one
// second, back to back, until stop; stop waits for the window under way
// and returns them merged. The gaps between windows (a request's round
// trip and the profile's encoding, a few milliseconds each) go unsampled.
func cpuWindows(ctx context.Context, base string) (stop func() (*profile.Profile, error)) {
	ctx, cancel := context.WithCancel(ctx)
	var (
		windows []*profile.Profile
		failed  error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			// Not ctx: stop lets the window under way finish.
			p, err := fetchProfile(context.Background(), base, "/debug/pprof/profile?seconds=1")
			if err != nil {
				failed = err
				return
			}
			windows = append(windows, p)
		}
	}()
	return func() (*profile.Profile, error) {
		cancel()
		<-done
		if failed != nil {
			return nil, failed
		}
		if len(windows) == 0 {
			return nil, errors.New("no CPU profile window")
		}
		return profile.Merge(windows)
	}
}

// saveProfile writes p as dir/name (gzipped protobuf, for go tool
// pprof); a profile that cannot be written is logged, the run goes on.
func (r *Runner) saveProfile(name string, p *profile.Profile) {
	if r.Dir == "" || p == nil {
		return
	}
	f, err := os.Create(filepath.Join(r.Dir, name))
	if err == nil {
		err = p.Write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		r.logf("saving %s: %v", name, err)
	}
}
