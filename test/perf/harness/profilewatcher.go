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
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ProfileWatcher records, per generation of one SchedulerProfile, when it
// was first seen active: Ready=True, observedGeneration and
// activeGeneration equal to the generation.
type ProfileWatcher struct {
	mu     sync.Mutex
	active map[int64]time.Time
	// rollouts are the distinct status.rollout states seen, in order.
	rollouts []RolloutSeen
	changed  chan struct{}
	last     *v1alpha1.SchedulerProfile
	cancel   context.CancelFunc
	done     chan struct{}
}

// WatchProfile starts following the SchedulerProfile name.
func WatchProfile(ctx context.Context, c client.WithWatch, name string) (*ProfileWatcher, error) {
	ctx, cancel := context.WithCancel(ctx)
	w := &ProfileWatcher{active: map[int64]time.Time{}, changed: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go w.loop(ctx, c, name)
	return w, nil
}

func (w *ProfileWatcher) loop(ctx context.Context, c client.WithWatch, name string) {
	defer close(w.done)
	for ctx.Err() == nil {
		list := &v1alpha1.SchedulerProfileList{}
		if err := c.List(ctx, list, client.MatchingFields{"metadata.name": name}); err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for i := range list.Items {
			w.observe(&list.Items[i])
		}
		wi, err := c.Watch(ctx, &v1alpha1.SchedulerProfileList{}, client.MatchingFields{"metadata.name": name},
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for ev := range wi.ResultChan() {
			if sp, ok := ev.Object.(*v1alpha1.SchedulerProfile); ok && ev.Type != watch.Deleted {
				w.observe(sp)
			}
		}
		wi.Stop()
	}
}

func (w *ProfileWatcher) observe(sp *v1alpha1.SchedulerProfile) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = sp.DeepCopy()
	if st := sp.Status.Rollout; st != nil {
		if n := len(w.rollouts); n == 0 || !sameRolloutState(w.rollouts[n-1].Status, *st) {
			w.rollouts = append(w.rollouts, RolloutSeen{At: now, Status: *st.DeepCopy()})
			close(w.changed)
			w.changed = make(chan struct{})
		}
	}
	gen := sp.Generation
	if meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady) &&
		sp.Status.ObservedGeneration == gen && sp.Status.ActiveGeneration == gen {
		if _, seen := w.active[gen]; !seen {
			w.active[gen] = now
			close(w.changed)
			w.changed = make(chan struct{})
		}
	}
}

// WaitActive waits until generation gen is active and returns when that
// was first seen.
func (w *ProfileWatcher) WaitActive(ctx context.Context, gen int64, timeout time.Duration) (time.Time, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		at, ok := w.active[gen]
		ch, last := w.changed, w.last
		w.mu.Unlock()
		if ok {
			return at, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-deadline.C:
			if last == nil {
				return time.Time{}, fmt.Errorf("generation %d not active after %s: profile never seen", gen, timeout)
			}
			return time.Time{}, fmt.Errorf("generation %d not active after %s: last seen generation %d, observed %d, active %d, conditions %s",
				gen, timeout, last.Generation, last.Status.ObservedGeneration, last.Status.ActiveGeneration, conditions(last))
		case <-ch:
		}
	}
}

// RolloutSeen is a status.rollout state and when the watch first saw it.
type RolloutSeen struct {
	At     time.Time
	Status v1alpha1.RolloutStatus
}

// sameRolloutState: the same rollout at the same step in the same phase
// (the summary's clock and the shadow's counts move on).
func sameRolloutState(a, b v1alpha1.RolloutStatus) bool {
	return a.Generation == b.Generation && a.Phase == b.Phase && a.Step == b.Step && a.Extensions == b.Extensions
}

// WaitRollout waits until a status.rollout state seen (since the watch
// started) satisfies cond, and returns the first that does.
func (w *ProfileWatcher) WaitRollout(ctx context.Context, timeout time.Duration, cond func(v1alpha1.RolloutStatus) bool) (RolloutSeen, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		seen, ch := slices.Clone(w.rollouts), w.changed
		w.mu.Unlock()
		for _, s := range seen {
			if cond(s.Status) {
				return s, nil
			}
		}
		select {
		case <-ctx.Done():
			return RolloutSeen{}, ctx.Err()
		case <-deadline.C:
			last := "none"
			if n := len(seen); n > 0 {
				st := seen[n-1].Status
				last = fmt.Sprintf("generation %d %s at step %d: %s", st.Generation, st.Phase, st.Step, st.Message)
			}
			return RolloutSeen{}, fmt.Errorf("rollout state not seen after %s; last seen: %s", timeout, last)
		case <-ch:
		}
	}
}

// Rollouts returns the status.rollout states seen, in order.
func (w *ProfileWatcher) Rollouts() []RolloutSeen {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.rollouts)
}

// Last returns the profile as last seen (nil before the first event).
func (w *ProfileWatcher) Last() *v1alpha1.SchedulerProfile {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		return nil
	}
	return w.last.DeepCopy()
}

// Stop ends the watch.
func (w *ProfileWatcher) Stop() {
	w.cancel()
	<-w.done
}

func conditions(sp *v1alpha1.SchedulerProfile) string {
	var parts []string
	for _, c := range sp.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
}
