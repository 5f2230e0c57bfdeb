package harness

import (
	"context"
	"fmt"
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
	mu      sync.Mutex
	active  map[int64]time.Time
	changed chan struct{}
	last    *v1alpha1.SchedulerProfile
	cancel  context.CancelFunc
	done    chan struct{}
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
