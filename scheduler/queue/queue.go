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

package queue

import (
	"context"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	listersv1 "k8s.io/client-go/listers/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/utils/clock"
)

const (
	// DefaultMaxInUnschedulable is how long a pod may wait in the
	// unschedulable set before the periodic flush retries it even though no
	// event asked for it (upstream's podMaxInUnschedulablePodsDuration).
	DefaultMaxInUnschedulable = 5 * time.Minute
	// DefaultFlushInterval is how often the unschedulable set is checked.
	DefaultFlushInterval = 30 * time.Second
)

// Queue is the scheduling queue. All fields below lock are guarded by it.
//
// Lock order: Queue.lock, then nominator.lock. Nothing else is taken while
// holding Queue.lock, except plugin PreEnqueue and queueing hint functions,
// which must not call back into the queue. Methods whose name ends in
// Locked expect the caller to hold Queue.lock.
type Queue struct {
	clock              clock.WithTicker
	initialBackoff     time.Duration
	maxBackoff         time.Duration
	maxInUnschedulable time.Duration
	flushInterval      time.Duration
	nominator          *nominator
	// wake tells the back-off loop that a pod entered back-off.
	wake chan struct{}

	lock sync.Mutex
	// cond wakes Pop, the one loop of every profile; waiters wake PopFor,
	// a loop of one profile, by schedulerName. Both wait on lock.
	cond    *sync.Cond
	waiters map[string]*sync.Cond
	// profiles is keyed by schedulerName.
	profiles map[string]*profileQueue
	// backoff holds pods of every profile, ordered by back-off expiry.
	backoff *backoffQueue
	// popFromBackoff lets Pop take a rejected pod from backoff when no
	// pod is active (upstream's SchedulerPopFromBackoffQ).
	popFromBackoff bool
	// unschedulable holds pods rejected by plugins and pods gated by
	// PreEnqueue plugins, keyed by namespace/name.
	unschedulable map[string]*framework.QueuedPodInfo
	// inFlight maps popped pods to the event sequence number at pop time.
	inFlight map[types.UID]int64
	// events received while pods were in flight, oldest first.
	events []recordedEvent
	seq    int64
	cycle  int64
	closed bool
	// gated is how many unschedulable pods were gated at the last count.
	gated int
	// lastAdded is the Timestamp given to the last pod added: pods added
	// one after another keep the order they were added in, by the queue
	// sort's timestamp, even where the clock did not move between them.
	lastAdded time.Time

	// podGroups, when set, turns pod-group scheduling on (podgroups.go):
	// the PodGroups the scheduler has observed.
	podGroups fwk.PodGroupLister
	// members maps a group to its queued members by pod key, in
	// flight included (only their key and schedulerName are read, which
	// do not change).
	members map[groupKey]map[string]*v1.Pod
	// incomplete holds the keys of unschedulable pods that wait for
	// their group's PodGroup to be observed.
	incomplete map[groupKey]sets.Set[string]
}

var (
	_ fwk.PodNominator = &Queue{}
	_ fwk.PodActivator = &Queue{}
)

// Option configures a Queue.
type Option func(*Queue)

// WithClock sets the clock (a fake one in tests).
func WithClock(c clock.WithTicker) Option { return func(q *Queue) { q.clock = c } }

// WithPodBackoff sets the initial and maximum back-off.
func WithPodBackoff(initial, maxBackoff time.Duration) Option {
	return func(q *Queue) { q.initialBackoff, q.maxBackoff = initial, maxBackoff }
}

// WithMaxInUnschedulable sets how long a pod may stay unschedulable before
// the periodic flush retries it, and how often that is checked.
func WithMaxInUnschedulable(maxWait, interval time.Duration) Option {
	return func(q *Queue) { q.maxInUnschedulable, q.flushInterval = maxWait, interval }
}

// WithPodLister lets the nominator ignore pods that are gone or bound.
func WithPodLister(l listersv1.PodLister) Option {
	return func(q *Queue) { q.nominator = newNominator(l) }
}

// WithPodGroups turns pod-group scheduling on (the GenericWorkload gate):
// a popped pod that names a PodGroup comes out of Pop with its group's
// queued members; l finds the PodGroups the scheduler has observed.
func WithPodGroups(l fwk.PodGroupLister) Option { return func(q *Queue) { q.podGroups = l } }

// New returns an empty queue serving no profile.
func New(opts ...Option) *Queue {
	q := &Queue{
		clock:              clock.RealClock{},
		initialBackoff:     DefaultPodInitialBackoff,
		maxBackoff:         DefaultPodMaxBackoff,
		maxInUnschedulable: DefaultMaxInUnschedulable,
		flushInterval:      DefaultFlushInterval,
		nominator:          newNominator(nil),
		wake:               make(chan struct{}, 1),
		profiles:           make(map[string]*profileQueue),
		waiters:            make(map[string]*sync.Cond),
		unschedulable:      make(map[string]*framework.QueuedPodInfo),
		inFlight:           make(map[types.UID]int64),
		members:            make(map[groupKey]map[string]*v1.Pod),
		incomplete:         make(map[groupKey]sets.Set[string]),
		popFromBackoff:     utilfeature.DefaultFeatureGate.Enabled(features.SchedulerPopFromBackoffQ),
	}
	for _, o := range opts {
		o(q)
	}
	q.cond = sync.NewCond(&q.lock)
	q.backoff = newBackoffQueue(func(a, b *framework.QueuedPodInfo) bool {
		ta, tb := q.backoffTimeLocked(a), q.backoffTimeLocked(b)
		if ta.Equal(tb) {
			return corev1helpers.PodPriority(a.Pod) > corev1helpers.PodPriority(b.Pod)
		}
		return ta.Before(tb)
	})
	return q
}

func podKey(pod *v1.Pod) string {
	return types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}.String()
}

func podInfoKey(p *framework.QueuedPodInfo) string { return podKey(p.Pod) }

// Run starts the back-off and unschedulable loops; they stop with ctx.
func (q *Queue) Run(ctx context.Context) {
	go q.backoffLoop(ctx)
	go q.unschedulableLoop(ctx)
}

// Close wakes every Pop; they return nil from then on.
func (q *Queue) Close() {
	q.lock.Lock()
	defer q.lock.Unlock()
	q.closed = true
	q.wakeAllLocked()
}

// wakeLocked wakes the loops that may pop a pod of profile name: Pop's,
// and PopFor's of that profile.
func (q *Queue) wakeLocked(name string) {
	q.cond.Broadcast()
	if c := q.waiters[name]; c != nil {
		c.Broadcast()
	}
}

// wakeAllLocked wakes every loop.
func (q *Queue) wakeAllLocked() {
	q.cond.Broadcast()
	for _, c := range q.waiters {
		c.Broadcast()
	}
}

// updateMetricsLocked sets upstream's pending_pods gauges. It is O(number
// of profiles); the gated share of the unschedulable set is recounted by
// countGatedLocked, which the back-off loop runs at least once a second.
func (q *Queue) updateMetricsLocked() {
	active := 0
	for _, pq := range q.profiles {
		active += pq.active.Len()
	}
	gated := min(q.gated, len(q.unschedulable))
	metrics.ActivePods().Set(float64(active))
	metrics.BackoffPods().Set(float64(q.backoff.len()))
	metrics.UnschedulablePods().Set(float64(len(q.unschedulable) - gated))
	metrics.GatedPods().Set(float64(gated))
}

func (q *Queue) countGatedLocked() {
	q.gated = 0
	for _, p := range q.unschedulable {
		if p.Gated() {
			q.gated++
		}
	}
	q.updateMetricsLocked()
}

func (q *Queue) newQueuedPodInfo(pod *v1.Pod) *framework.QueuedPodInfo {
	pi, _ := framework.NewPodInfo(pod)
	now := q.clock.Now()
	if !now.After(q.lastAdded) {
		now = q.lastAdded.Add(time.Nanosecond)
	}
	q.lastAdded = now
	return &framework.QueuedPodInfo{
		PodInfo: pi,
		QueueingParams: framework.QueueingParams{
			Timestamp:            now,
			UnschedulablePlugins: sets.New[string](),
			PendingPlugins:       sets.New[string](),
		},
	}
}

// Add queues a new pending pod. It reports false, and does nothing, when no
// profile serves the pod's schedulerName or the pod is already queued.
func (q *Queue) Add(ctx context.Context, pod *v1.Pod) bool {
	logger := klog.FromContext(ctx)
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	pq, ok := q.profiles[pod.Spec.SchedulerName]
	if !ok {
		return false
	}
	if q.findLocked(pq, pod) != nil {
		return false
	}
	if _, ok := q.inFlight[pod.UID]; ok {
		return false
	}
	p := q.newQueuedPodInfo(pod)
	q.nominator.add(logger, p.PodInfo, nil)
	q.trackMemberLocked(pod)
	q.moveToActiveLocked(ctx, p, framework.EventUnscheduledPodAdd.Label())
	return true
}

// findLocked returns the queued pod with pod's key in any sub-queue.
func (q *Queue) findLocked(pq *profileQueue, pod *v1.Pod) *framework.QueuedPodInfo {
	key := podKey(pod)
	if pq != nil {
		if p, ok := pq.active.GetByKey(key); ok {
			return p
		}
	}
	if p, ok := q.backoff.getByKey(key); ok {
		return p
	}
	return q.unschedulable[key]
}

// Update reflects a pending pod's update. An update may make an
// unschedulable or gated pod schedulable; the live profile's queueing hints
// decide.
func (q *Queue) Update(ctx context.Context, oldPod, newPod *v1.Pod) {
	logger := klog.FromContext(ctx)
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	pq, ok := q.profiles[newPod.Spec.SchedulerName]
	if !ok {
		return
	}
	events := framework.PodSchedulingPropertiesChange(newPod, oldPod, true)
	if _, ok := q.inFlight[newPod.UID]; ok {
		// The pod comes back through AddUnschedulableIfNotPresent, which
		// checks these events.
		for _, e := range events {
			q.recordLocked(e, oldPod, newPod, newPod.UID)
		}
		return
	}
	key := podKey(newPod)
	if p, ok := pq.active.GetByKey(key); ok {
		_, _ = p.Update(newPod)
		pq.active.AddOrUpdate(p)
		q.nominator.update(logger, oldPod, p.PodInfo)
		return
	}
	if p, ok := q.backoff.getByKey(key); ok {
		_, _ = p.Update(newPod)
		q.backoff.addOrUpdate(p)
		q.nominator.update(logger, oldPod, p.PodInfo)
		return
	}
	if p, ok := q.unschedulable[key]; ok {
		_, _ = p.Update(newPod)
		q.nominator.update(logger, oldPod, p.PodInfo)
		for _, e := range events {
			s := q.worthRequeuingLocked(logger, p, e, oldPod, newPod)
			if s == queueSkip {
				continue
			}
			delete(q.unschedulable, key)
			if q.requeueLocked(ctx, p, s, e.Label()) != inUnschedulable {
				break
			}
		}
		return
	}
	p := q.newQueuedPodInfo(newPod)
	q.nominator.add(logger, p.PodInfo, nil)
	q.trackMemberLocked(newPod)
	q.moveToActiveLocked(ctx, p, framework.EventUnscheduledPodUpdate.Label())
}

// Delete removes a pod from every sub-queue and from the nominator.
func (q *Queue) Delete(pod *v1.Pod) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	key := podKey(pod)
	q.nominator.delete(pod)
	q.untrackMemberLocked(pod)
	if g, ok := q.groupOf(pod); ok && q.incomplete[g] != nil {
		q.incomplete[g].Delete(key)
	}
	for _, pq := range q.profiles {
		if p, ok := pq.active.GetByKey(key); ok {
			pq.active.Delete(p)
		}
	}
	if p, ok := q.backoff.getByKey(key); ok {
		q.backoff.delete(p)
	}
	delete(q.unschedulable, key)
}

// Pending lists the queued pods per sub-queue (for tests and debugging).
func (q *Queue) Pending() (active, backoff, unschedulable []*v1.Pod) {
	q.lock.Lock()
	defer q.lock.Unlock()
	for _, pq := range q.profiles {
		for _, p := range pq.active.List() {
			active = append(active, p.Pod)
		}
	}
	for _, p := range q.backoff.list() {
		backoff = append(backoff, p.Pod)
	}
	for _, p := range q.unschedulable {
		unschedulable = append(unschedulable, p.Pod)
	}
	return active, backoff, unschedulable
}
