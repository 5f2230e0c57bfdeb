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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// StepLabel names the step that created a pod or node.
const StepLabel = "bench.profilescheduler.io/step"

// podRecord is what the watch saw of one pod. Times are when the harness
// received the event.
type podRecord struct {
	step string
	// group is the PodGroup the pod names, if any.
	group   string
	created time.Time
	bound   time.Time
	node    string
	deleted time.Time
	// rebinds counts events that showed the pod on a different node than
	// the one it was first seen bound to (a double bind).
	rebinds int
	uid     string
	// unschedulable is when the pod was first seen with PodScheduled=False
	// (reason Unschedulable): a scheduler found no node for it.
	unschedulable time.Time
}

// Bind is one pod seen bound.
type Bind struct {
	At   time.Time
	Pod  string
	Node string
	Step string
}

// Recorder watches the pods of one namespace and keeps, per pod, when it
// appeared, when it was first seen bound and where, and when it went away.
// Creation and bind times come from the same watch stream, so their
// difference is not skewed by the client's request latency.
type Recorder struct {
	watchLoop
	pods  map[string]*podRecord
	binds []Bind
	bound map[string]int // per step
	seen  map[string]int // per step
}

// NewRecorder lists the namespace's pods and watches from there on, until
// Stop.
func NewRecorder(ctx context.Context, cs kubernetes.Interface, ns string) (*Recorder, error) {
	list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	lw := &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cs.CoreV1().Pods(ns).Watch(ctx, o)
		},
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, lw)
	if err != nil {
		cancel()
		return nil, err
	}
	r := &Recorder{
		watchLoop: newWatchLoop(),
		pods:      map[string]*podRecord{},
		bound:     map[string]int{},
		seen:      map[string]int{},
	}
	for i := range list.Items {
		r.observe(watch.Added, &list.Items[i], time.Now())
	}
	r.run(ctx, cancel, w, "pod watch in "+ns, func(ev watch.Event, now time.Time) {
		if pod, ok := ev.Object.(*corev1.Pod); ok {
			r.observe(ev.Type, pod, now)
		}
	})
	return r, nil
}

func (r *Recorder) observe(t watch.EventType, pod *corev1.Pod, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.pods[pod.Name]
	if !ok {
		rec = &podRecord{step: pod.Labels[StepLabel], created: now}
		if g := pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
			rec.group = *g.PodGroupName
		}
		r.pods[pod.Name] = rec
		r.seen[rec.step]++
		r.notify()
	}
	rec.uid = string(pod.UID)
	if rec.unschedulable.IsZero() && unschedulable(pod) {
		rec.unschedulable = now
	}
	if t == watch.Deleted {
		if rec.deleted.IsZero() {
			rec.deleted = now
		}
		r.notify()
		return
	}
	if n := pod.Spec.NodeName; n != "" {
		switch {
		case rec.node == "":
			rec.node, rec.bound = n, now
			r.bound[rec.step]++
			r.binds = append(r.binds, Bind{At: now, Pod: pod.Name, Node: n, Step: rec.step})
			r.notify()
		case rec.node != n:
			rec.rebinds++
		}
	}
}

// unschedulable reports whether pod's PodScheduled condition is False
// with reason Unschedulable.
func unschedulable(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// Stop ends the watch.
func (r *Recorder) Stop() { r.stop() }

// PodState is what the watch saw of one pod; zero times were not seen.
type PodState struct {
	Name, UID, Node string
	Created, Bound  time.Time
	// Unschedulable is when the pod was first seen with PodScheduled=False
	// (reason Unschedulable).
	Unschedulable time.Time
	Rebinds       int
}

// Pods returns what the watch saw of the pods of step.
func (r *Recorder) Pods(step string) []PodState {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []PodState
	for name, p := range r.pods {
		if p.step == step {
			out = append(out, PodState{Name: name, UID: p.uid, Node: p.node, Created: p.created, Bound: p.bound, Unschedulable: p.unschedulable, Rebinds: p.rebinds})
		}
	}
	return out
}

// Bound returns how many pods of step were seen bound.
func (r *Recorder) Bound(step string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bound[step]
}

// IncompleteError says a scheduler left pods unbound: a result to report,
// not a failure of the harness.
type IncompleteError struct{ msg string }

func (e *IncompleteError) Error() string { return e.msg }

// WaitBound waits until n pods of step are bound. It gives up after timeout,
// or after stall without a single new bind of that step, and returns how
// many were bound.
func (r *Recorder) WaitBound(ctx context.Context, step string, n int, timeout, stall time.Duration) (int, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	last, lastChange := -1, time.Now()
	for {
		r.mu.Lock()
		got, ch, err := r.bound[step], r.changed, r.err
		r.mu.Unlock()
		if got >= n {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		if got != last {
			last, lastChange = got, time.Now()
		}
		if time.Since(lastChange) > stall {
			return got, &IncompleteError{fmt.Sprintf("%s: %d of %d pods bound, none for %s", step, got, n, stall)}
		}
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case <-deadline.C:
			return got, &IncompleteError{fmt.Sprintf("%s: %d of %d pods bound after %s", step, got, n, timeout)}
		case <-ch:
		case <-time.After(time.Second):
		}
	}
}

// WaitSeen waits until the watch has seen n pods of step.
func (r *Recorder) WaitSeen(ctx context.Context, step string, n int, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		got, ch := r.seen[step], r.changed
		r.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("%s: watch saw %d of %d pods after %s", step, got, n, timeout)
		case <-ch:
		}
	}
}

// WaitFor waits until cond (called with the binds so far, under the lock)
// holds, or timeout.
func (r *Recorder) WaitFor(ctx context.Context, timeout time.Duration, cond func([]Bind) bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ok, ch := cond(r.binds), r.changed
		r.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		case <-ch:
		}
	}
}

// StepStats is what the recorder saw of one step's pods.
type StepStats struct {
	Pods      int
	Bound     int
	Deleted   int
	Rebinds   int
	BindTimes []time.Time
	// BoundPods names the pod of each of BindTimes and Latencies.
	BoundPods []string
	// SeenTimes are when each pod first appeared on the watch.
	SeenTimes []time.Time
	Latencies []time.Duration
	Placement map[string]string
}

// Step returns the pods of step: bind times, creation-to-bind latencies
// and where each was bound.
func (r *Recorder) Step(step string) StepStats { return r.StepSince(step, time.Time{}) }

// StepSince is Step with latencies counted from since for pods created
// before it.
func (r *Recorder) StepSince(step string, since time.Time) StepStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := StepStats{Placement: map[string]string{}}
	for name, p := range r.pods {
		if p.step != step {
			continue
		}
		s.Pods++
		s.SeenTimes = append(s.SeenTimes, p.created)
		s.Rebinds += p.rebinds
		if !p.deleted.IsZero() {
			s.Deleted++
		}
		if p.node == "" {
			continue
		}
		s.Bound++
		s.BindTimes = append(s.BindTimes, p.bound)
		s.BoundPods = append(s.BoundPods, name)
		from := p.created
		if from.Before(since) {
			from = since
		}
		s.Latencies = append(s.Latencies, p.bound.Sub(from))
		s.Placement[name] = p.node
	}
	return s
}

// Binds returns a copy of every bind seen, in order.
func (r *Recorder) Binds() []Bind {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Bind(nil), r.binds...)
}

// GroupTimes is what the watch saw of one PodGroup's members.
type GroupTimes struct {
	Members int
	Bound   int
	// LastCreated is when the last member appeared; LastBound when the
	// last member was seen bound (zero until one is).
	LastCreated time.Time
	LastBound   time.Time
}

// Groups returns, per PodGroup named by pods of step, what the watch saw of
// its members.
func (r *Recorder) Groups(step string) map[string]GroupTimes {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]GroupTimes{}
	for _, p := range r.pods {
		if p.step != step || p.group == "" {
			continue
		}
		g := out[p.group]
		g.Members++
		if p.created.After(g.LastCreated) {
			g.LastCreated = p.created
		}
		if p.node != "" {
			g.Bound++
			if p.bound.After(g.LastBound) {
				g.LastBound = p.bound
			}
		}
		out[p.group] = g
	}
	return out
}
