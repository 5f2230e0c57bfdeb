package queue

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	listersv1 "k8s.io/client-go/listers/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/backend/heap"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/utils/clock"
)

const (
	// DefaultPodInitialBackoff is the back-off after the first failed attempt.
	DefaultPodInitialBackoff = time.Second
	// DefaultPodMaxBackoff caps the back-off, which doubles per attempt.
	DefaultPodMaxBackoff = 10 * time.Second
	// DefaultMaxInUnschedulable is how long a pod may wait in the
	// unschedulable set before the periodic flush retries it even though no
	// event asked for it (upstream's podMaxInUnschedulablePodsDuration).
	DefaultMaxInUnschedulable = 5 * time.Minute
	// DefaultFlushInterval is how often the unschedulable set is checked.
	DefaultFlushInterval = 30 * time.Second

	// maxBackoffWait bounds how long the back-off flusher sleeps.
	maxBackoffWait = time.Second
)

// ProfileChanged is the label of the event that re-evaluates every pod of
// a profile whose framework was replaced.
const ProfileChanged = "ProfileChanged"

// EventProfileChanged moves the pods of a replaced profile out of the
// unschedulable set: the new plugins may accept them.
var EventProfileChanged = fwk.ClusterEvent{Resource: fwk.WildCard, ActionType: fwk.All, CustomLabel: ProfileChanged}

// PreEnqueueCheck filters the pods an event may move.
type PreEnqueueCheck func(pod *v1.Pod) bool

type strategy int

const (
	queueSkip strategy = iota
	queueAfterBackoff
	queueImmediately
)

// hintFunction is one plugin's queueing hint for one event.
type hintFunction struct {
	pluginName string
	fn         fwk.QueueingHintFn
}

type hintMap map[fwk.ClusterEvent][]hintFunction

// profileQueue is what the queue keeps per served schedulerName. It is
// replaced as a whole when the profile's framework changes.
type profileQueue struct {
	name         string
	less         fwk.LessFunc
	preEnqueue   []fwk.PreEnqueuePlugin
	pluginEvents map[string][]fwk.ClusterEvent
	hints        hintMap
	active       *heap.Heap[*framework.QueuedPodInfo]
}

type recordedEvent struct {
	seq      int64
	event    fwk.ClusterEvent
	oldObj   interface{}
	newObj   interface{}
	onlyFor  types.UID
	targeted bool
}

// Queue is the scheduling queue. All fields below lock are guarded by it.
// Lock order: Queue.lock, then nominator.lock; nothing else is taken while
// holding Queue.lock, except plugin PreEnqueue and queueing hint functions,
// which must not call back into the queue.
type Queue struct {
	clock              clock.WithTicker
	initialBackoff     time.Duration
	maxBackoff         time.Duration
	maxInUnschedulable time.Duration
	flushInterval      time.Duration
	nominator          *nominator
	wake               chan struct{}

	lock sync.Mutex
	cond *sync.Cond
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
		unschedulable:      make(map[string]*framework.QueuedPodInfo),
		inFlight:           make(map[types.UID]int64),
		popFromBackoff:     utilfeature.DefaultFeatureGate.Enabled(features.SchedulerPopFromBackoffQ),
	}
	for _, o := range opts {
		o(q)
	}
	q.cond = sync.NewCond(&q.lock)
	q.backoff = newBackoffQueue(func(a, b *framework.QueuedPodInfo) bool {
		ta, tb := q.backoffTime(a), q.backoffTime(b)
		if ta.Equal(tb) {
			return corev1helpers.PodPriority(a.Pod) > corev1helpers.PodPriority(b.Pod)
		}
		return ta.Before(tb)
	})
	return q
}

func podKey(pod *v1.Pod) string { return pod.Namespace + "/" + pod.Name }

func podInfoKey(p *framework.QueuedPodInfo) string { return podKey(p.Pod) }

// Run starts the back-off and unschedulable flushers; they stop with ctx.
func (q *Queue) Run(ctx context.Context) {
	go q.backoffLoop(ctx)
	go q.unschedulableLoop(ctx)
}

// Close wakes every Pop; they return nil from then on.
func (q *Queue) Close() {
	q.lock.Lock()
	defer q.lock.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

// SetProfile starts serving schedulerName with fw's QueueSort, PreEnqueue
// plugins and queueing hints, or replaces them. Pods already queued for the
// name are re-sorted, re-checked by the new PreEnqueue plugins, and the
// unschedulable ones are retried.
func (q *Queue) SetProfile(ctx context.Context, name string, fw framework.Framework) error {
	hints, pluginEvents, err := buildHints(ctx, fw.EnqueueExtensions())
	if err != nil {
		return err
	}
	pq := &profileQueue{
		name:         name,
		less:         fw.QueueSortFunc(),
		preEnqueue:   fw.PreEnqueuePlugins(),
		pluginEvents: pluginEvents,
		hints:        hints,
	}
	less := pq.less
	pq.active = heap.New(podInfoKey, func(a, b *framework.QueuedPodInfo) bool { return less(a, b) })

	logger := klog.FromContext(ctx)
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	old := q.profiles[name]
	q.profiles[name] = pq
	if old == nil {
		return nil
	}
	for _, p := range old.active.List() {
		q.moveToActive(logger, p, ProfileChanged)
	}
	var toMove []*framework.QueuedPodInfo
	for _, p := range q.unschedulable {
		if p.Pod.Spec.SchedulerName == name {
			toMove = append(toMove, p)
		}
	}
	q.moveToActiveOrBackoff(logger, toMove, EventProfileChanged, nil, nil)
	q.cond.Broadcast()
	return nil
}

// RemoveProfile stops serving schedulerName and drops its pods from every
// sub-queue. It returns how many pods were dropped.
func (q *Queue) RemoveProfile(name string) int {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	pq, ok := q.profiles[name]
	if !ok {
		return 0
	}
	delete(q.profiles, name)
	n := 0
	for _, p := range pq.active.List() {
		q.nominator.delete(p.Pod)
		n++
	}
	for _, p := range q.backoff.list() {
		if p.Pod.Spec.SchedulerName == name {
			q.backoff.delete(p)
			q.nominator.delete(p.Pod)
			n++
		}
	}
	for k, p := range q.unschedulable {
		if p.Pod.Spec.SchedulerName == name {
			delete(q.unschedulable, k)
			q.nominator.delete(p.Pod)
			n++
		}
	}
	return n
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

// Serves reports whether a profile for schedulerName is set.
func (q *Queue) Serves(name string) bool {
	q.lock.Lock()
	defer q.lock.Unlock()
	_, ok := q.profiles[name]
	return ok
}

// buildHints collects, per cluster event, the plugins interested in it and
// their hint functions, plus each plugin's events (for gated pods).
func buildHints(ctx context.Context, exts []fwk.EnqueueExtensions) (hintMap, map[string][]fwk.ClusterEvent, error) {
	hints := make(hintMap)
	pluginEvents := make(map[string][]fwk.ClusterEvent)
	var errs []error
	for _, e := range exts {
		events, err := e.EventsToRegister(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %s: %w", e.Name(), err))
			continue
		}
		for _, ev := range events {
			fn := ev.QueueingHintFn
			if fn == nil {
				fn = func(klog.Logger, *v1.Pod, interface{}, interface{}) (fwk.QueueingHint, error) { return fwk.Queue, nil }
			}
			hf := hintFunction{pluginName: e.Name(), fn: fn}
			pluginEvents[e.Name()] = append(pluginEvents[e.Name()], ev.Event)
			if ev.Event.Resource == fwk.Pod {
				for _, pe := range framework.UnrollPodEvent(ev.Event) {
					hints[pe] = append(hints[pe], hf)
				}
			} else {
				hints[ev.Event] = append(hints[ev.Event], hf)
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return hints, pluginEvents, nil
}

// Events returns the union of the events the profile's plugins registered,
// so the caller can watch the resources they name.
func Events(ctx context.Context, fw framework.Framework) ([]fwk.ClusterEvent, error) {
	hints, _, err := buildHints(ctx, fw.EnqueueExtensions())
	if err != nil {
		return nil, err
	}
	out := make([]fwk.ClusterEvent, 0, len(hints))
	for e := range hints {
		out = append(out, e)
	}
	return out, nil
}

func (q *Queue) newQueuedPodInfo(pod *v1.Pod) *framework.QueuedPodInfo {
	pi, _ := framework.NewPodInfo(pod)
	now := q.clock.Now()
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
	q.moveToActive(logger, p, framework.EventUnscheduledPodAdd.Label())
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
			q.recordLocked(e, oldPod, newPod, newPod.UID, true)
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
			s := q.worthRequeuing(logger, p, e, oldPod, newPod)
			if s == queueSkip {
				continue
			}
			delete(q.unschedulable, key)
			if q.requeue(logger, p, s, e.Label()) != "unschedulable" {
				break
			}
		}
		return
	}
	p := q.newQueuedPodInfo(newPod)
	q.nominator.add(logger, p.PodInfo, nil)
	q.moveToActive(logger, p, framework.EventUnscheduledPodUpdate.Label())
}

// Delete removes a pod from every sub-queue and from the nominator.
func (q *Queue) Delete(pod *v1.Pod) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	key := podKey(pod)
	q.nominator.delete(pod)
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

// Pop blocks until a pod is active and returns it; it returns nil once the
// queue is closed or ctx is done. Across profiles it picks the head with
// the highest priority, then the oldest timestamp, then the lowest
// schedulerName; within a profile its QueueSort decides.
func (q *Queue) Pop(ctx context.Context) *framework.QueuedPodInfo {
	stop := context.AfterFunc(ctx, func() {
		q.lock.Lock()
		q.cond.Broadcast()
		q.lock.Unlock()
	})
	defer stop()
	q.lock.Lock()
	defer q.lock.Unlock()
	for {
		if q.closed || ctx.Err() != nil {
			return nil
		}
		p := q.popActiveLocked()
		if p == nil && q.popFromBackoff {
			p = q.popBackoffLocked(klog.FromContext(ctx))
		}
		if p != nil {
			q.cycle++
			p.Attempts++
			q.inFlight[p.Pod.UID] = q.seq
			q.updateMetricsLocked()
			return p
		}
		q.cond.Wait()
	}
}

func (q *Queue) popActiveLocked() *framework.QueuedPodInfo {
	pq := q.pickLocked()
	if pq == nil {
		return nil
	}
	p, err := pq.active.Pop()
	if err != nil {
		return nil
	}
	return p
}

// popBackoffLocked takes the rejected pod whose back-off ends first, before
// it ends, as upstream does when no pod is active: an idle scheduler has
// nothing better to do. A pod the live profile's PreEnqueue plugins gate,
// or that no profile serves any more, is passed over.
func (q *Queue) popBackoffLocked(logger klog.Logger) *framework.QueuedPodInfo {
	for {
		p, ok := q.backoff.popUnschedulable()
		if !ok {
			return nil
		}
		if q.admitLocked(logger, p, framework.PopFromBackoffQ) != nil {
			return p
		}
	}
}

func (q *Queue) pickLocked() *profileQueue {
	var best *profileQueue
	var bestHead *framework.QueuedPodInfo
	for _, pq := range q.profiles {
		head, ok := pq.active.Peek()
		if !ok {
			continue
		}
		if best == nil || headBefore(head, pq.name, bestHead, best.name) {
			best, bestHead = pq, head
		}
	}
	return best
}

func headBefore(a *framework.QueuedPodInfo, an string, b *framework.QueuedPodInfo, bn string) bool {
	pa, pb := corev1helpers.PodPriority(a.Pod), corev1helpers.PodPriority(b.Pod)
	if pa != pb {
		return pa > pb
	}
	if !a.Timestamp.Equal(b.Timestamp) {
		return a.Timestamp.Before(b.Timestamp)
	}
	return an < bn
}

// SchedulingCycle is the number of pods popped so far.
func (q *Queue) SchedulingCycle() int64 {
	q.lock.Lock()
	defer q.lock.Unlock()
	return q.cycle
}

// Done tells the queue a popped pod's cycle is over (bound, requeued or
// dropped), so the events recorded for it can be released.
func (q *Queue) Done(uid types.UID) {
	q.lock.Lock()
	defer q.lock.Unlock()
	q.doneLocked(uid)
}

func (q *Queue) doneLocked(uid types.UID) {
	if _, ok := q.inFlight[uid]; !ok {
		return
	}
	delete(q.inFlight, uid)
	if len(q.inFlight) == 0 {
		q.events = nil
		return
	}
	oldest := q.seq
	for _, s := range q.inFlight {
		if s < oldest {
			oldest = s
		}
	}
	i := sort.Search(len(q.events), func(i int) bool { return q.events[i].seq > oldest })
	if i > 0 {
		q.events = append([]recordedEvent(nil), q.events[i:]...)
	}
}

func (q *Queue) recordLocked(e fwk.ClusterEvent, oldObj, newObj interface{}, uid types.UID, targeted bool) {
	if len(q.inFlight) == 0 {
		return
	}
	q.seq++
	q.events = append(q.events, recordedEvent{seq: q.seq, event: e, oldObj: oldObj, newObj: newObj, onlyFor: uid, targeted: targeted})
}

// AddUnschedulableIfNotPresent puts back a pod whose attempt failed. Events
// that arrived while it was in flight are checked with the live profile's
// queueing hints: if one of them may help, the pod goes to back-off (or
// active) instead of the unschedulable set. A pod whose profile is gone is
// dropped.
func (q *Queue) AddUnschedulableIfNotPresent(logger klog.Logger, p *framework.QueuedPodInfo) error {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	defer q.doneLocked(p.Pod.UID)

	pq, ok := q.profiles[p.Pod.Spec.SchedulerName]
	if !ok {
		logger.V(3).Info("Dropping pod whose profile is no longer served", "pod", klog.KObj(p.Pod))
		return nil
	}
	if q.findLocked(pq, p.Pod) != nil {
		return fmt.Errorf("pod %v is already queued", klog.KObj(p.Pod))
	}
	if p.UnschedulablePlugins.Len() == 0 && p.PendingPlugins.Len() == 0 {
		p.ConsecutiveErrorsCount++
	} else {
		p.UnschedulableCount++
		p.ConsecutiveErrorsCount = 0
	}
	p.Timestamp = q.clock.Now()
	p.BackoffExpiration = time.Time{}
	p.WasFlushedFromUnschedulable = false
	p.FlushTimestamp = time.Time{}
	for plugin := range p.UnschedulablePlugins.Union(p.PendingPlugins) {
		metrics.UnschedulableReason(plugin, p.Pod.Spec.SchedulerName).Inc()
	}
	s := q.hintForInFlight(logger, p)
	where := q.requeue(logger, p, s, framework.ScheduleAttemptFailure)
	logger.V(3).Info("Pod moved to an internal scheduling queue", "pod", klog.KObj(p.Pod), "queue", where, "unschedulablePlugins", sets.List(p.UnschedulablePlugins))
	return nil
}

func (q *Queue) hintForInFlight(logger klog.Logger, p *framework.QueuedPodInfo) strategy {
	if p.UnschedulablePlugins.Len() == 0 && p.PendingPlugins.Len() == 0 {
		return queueAfterBackoff
	}
	start, ok := q.inFlight[p.Pod.UID]
	if !ok {
		return queueAfterBackoff
	}
	result := queueSkip
	for _, e := range q.events {
		if e.seq <= start || (e.targeted && e.onlyFor != p.Pod.UID) {
			continue
		}
		switch q.worthRequeuing(logger, p, e.event, e.oldObj, e.newObj) {
		case queueImmediately:
			return queueImmediately
		case queueAfterBackoff:
			result = queueAfterBackoff
			if p.PendingPlugins.Len() == 0 {
				return result
			}
		}
	}
	return result
}

// worthRequeuing asks the hint functions of the plugins that rejected p,
// from the profile serving p now, whether event may make p schedulable.
func (q *Queue) worthRequeuing(logger klog.Logger, p *framework.QueuedPodInfo, event fwk.ClusterEvent, oldObj, newObj interface{}) strategy {
	rejectors := p.UnschedulablePlugins.Union(p.PendingPlugins)
	if rejectors.Len() == 0 {
		return queueAfterBackoff
	}
	if framework.ClusterEventIsWildCard(event) {
		if newObj != nil {
			if pod, ok := newObj.(*v1.Pod); !ok || pod.UID != p.Pod.UID {
				return queueSkip
			}
		}
		return queueAfterBackoff
	}
	pq, ok := q.profiles[p.Pod.Spec.SchedulerName]
	if !ok {
		return queueSkip
	}
	result := queueSkip
	for want, fns := range pq.hints {
		if !framework.MatchClusterEvents(want, event) {
			continue
		}
		for _, hf := range fns {
			if !rejectors.Has(hf.pluginName) {
				continue
			}
			hint, err := hf.fn(logger, p.Pod, oldObj, newObj)
			if err != nil {
				utilruntime.HandleErrorWithLogger(logger, err, "QueueingHintFn returned an error", "event", event.Label(), "plugin", hf.pluginName, "pod", klog.KObj(p.Pod))
				hint = fwk.Queue
			}
			if hint == fwk.QueueSkip {
				continue
			}
			if p.PendingPlugins.Has(hf.pluginName) {
				return queueImmediately
			}
			if p.PendingPlugins.Len() == 0 {
				return queueAfterBackoff
			}
			result = queueAfterBackoff
		}
	}
	return result
}

// requeue puts p where s says and returns the sub-queue's name.
func (q *Queue) requeue(logger klog.Logger, p *framework.QueuedPodInfo, s strategy, event string) string {
	if s == queueSkip {
		q.unschedulable[podInfoKey(p)] = p
		metrics.SchedulerQueueIncomingPods.WithLabelValues("unschedulable", event).Inc()
		return "unschedulable"
	}
	if s == queueAfterBackoff && q.isBackingOff(p) {
		delete(q.unschedulable, podInfoKey(p))
		q.backoff.addOrUpdate(p)
		metrics.SchedulerQueueIncomingPods.WithLabelValues("backoff", event).Inc()
		select {
		case q.wake <- struct{}{}:
		default:
		}
		if q.popFromBackoff {
			// An idle Pop may take it now.
			q.cond.Broadcast()
		}
		return "backoff"
	}
	if q.moveToActive(logger, p, event) {
		return "active"
	}
	return "unschedulable"
}

// moveToActive runs the live profile's PreEnqueue plugins and puts p in its
// active heap, or in the unschedulable set when a plugin gates it.
func (q *Queue) moveToActive(logger klog.Logger, p *framework.QueuedPodInfo, event string) bool {
	pq := q.admitLocked(logger, p, event)
	if pq == nil {
		return false
	}
	pq.active.AddOrUpdate(p)
	q.cond.Broadcast()
	return true
}

// admitLocked decides whether p may be scheduled now and returns the queue
// of the profile serving it. It returns nil, leaving p out of every
// sub-queue, when no profile serves p, and nil with p in the unschedulable
// set when one of the profile's PreEnqueue plugins gates it.
func (q *Queue) admitLocked(logger klog.Logger, p *framework.QueuedPodInfo, event string) *profileQueue {
	pq, ok := q.profiles[p.Pod.Spec.SchedulerName]
	if !ok {
		delete(q.unschedulable, podInfoKey(p))
		return nil
	}
	q.runPreEnqueue(logger, pq, p)
	if p.Gated() {
		p.WasFlushedFromUnschedulable = false
		q.unschedulable[podInfoKey(p)] = p
		metrics.SchedulerQueueIncomingPods.WithLabelValues("gated", event).Inc()
		logger.V(5).Info("Pod is gated", "pod", klog.KObj(p.Pod), "plugin", p.GatingPlugin, "event", event)
		return nil
	}
	delete(q.unschedulable, podInfoKey(p))
	p.SetInitialAttemptTimestamp(q.clock.Now())
	metrics.SchedulerQueueIncomingPods.WithLabelValues("active", event).Inc()
	return pq
}

func (q *Queue) runPreEnqueue(logger klog.Logger, pq *profileQueue, p *framework.QueuedPodInfo) {
	ctx := klog.NewContext(context.Background(), logger)
	for _, pl := range pq.preEnqueue {
		s := pl.PreEnqueue(ctx, p.Pod)
		if s.IsSuccess() {
			continue
		}
		if !p.UnschedulablePlugins.Has(pl.Name()) && !p.PendingPlugins.Has(pl.Name()) {
			metrics.UnschedulableReason(pl.Name(), p.Pod.Spec.SchedulerName).Inc()
		}
		if p.UnschedulablePlugins == nil {
			p.UnschedulablePlugins = sets.New[string]()
		}
		p.UnschedulablePlugins.Insert(pl.Name())
		p.GatingPlugin = pl.Name()
		p.GatingPluginEvents = pq.pluginEvents[pl.Name()]
		if s.Code() == fwk.Error {
			utilruntime.HandleErrorWithLogger(logger, s.AsError(), "PreEnqueue plugin failed", "pod", klog.KObj(p.Pod), "plugin", pl.Name())
		} else {
			logger.V(4).Info("Status after running PreEnqueue plugin", "pod", klog.KObj(p.Pod), "plugin", pl.Name(), "status", s)
		}
		return
	}
	p.GatingPlugin = ""
	p.GatingPluginEvents = nil
}

// backoffTime is when p may be retried. Errors back off by their own count.
func (q *Queue) backoffTime(p *framework.QueuedPodInfo) time.Time {
	if q.maxBackoff == 0 {
		return time.Time{}
	}
	count := p.UnschedulableCount
	if p.ConsecutiveErrorsCount > 0 {
		count = p.ConsecutiveErrorsCount
	}
	if count == 0 {
		return time.Time{}
	}
	if p.BackoffExpiration.IsZero() {
		p.BackoffExpiration = p.Timestamp.Add(q.backoffDuration(count))
	}
	return p.BackoffExpiration
}

func (q *Queue) backoffDuration(count int) time.Duration {
	d := q.initialBackoff
	for i := 1; i < count; i++ {
		if d > q.maxBackoff/2 {
			return q.maxBackoff
		}
		d *= 2
	}
	if d > q.maxBackoff {
		return q.maxBackoff
	}
	return d
}

func (q *Queue) isBackingOff(p *framework.QueuedPodInfo) bool {
	return q.backoffTime(p).After(q.clock.Now())
}

// MoveAllToActiveOrBackoffQueue offers a cluster event to every
// unschedulable pod; the live profile's queueing hints for the plugins that
// rejected a pod decide whether it moves.
func (q *Queue) MoveAllToActiveOrBackoffQueue(logger klog.Logger, event fwk.ClusterEvent, oldObj, newObj interface{}, preCheck PreEnqueueCheck) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	if !q.interestedLocked(event) {
		return
	}
	pods := make([]*framework.QueuedPodInfo, 0, len(q.unschedulable))
	for _, p := range q.unschedulable {
		if preCheck == nil || preCheck(p.Pod) {
			pods = append(pods, p)
		}
	}
	q.moveToActiveOrBackoff(logger, pods, event, oldObj, newObj)
	q.recordLocked(event, oldObj, newObj, "", false)
}

func (q *Queue) interestedLocked(event fwk.ClusterEvent) bool {
	if framework.ClusterEventIsWildCard(event) {
		return true
	}
	for _, pq := range q.profiles {
		for want := range pq.hints {
			if framework.MatchClusterEvents(want, event) {
				return true
			}
		}
	}
	return false
}

func (q *Queue) moveToActiveOrBackoff(logger klog.Logger, pods []*framework.QueuedPodInfo, event fwk.ClusterEvent, oldObj, newObj interface{}) {
	for _, p := range pods {
		if p.Gated() && !framework.ClusterEventIsWildCard(event) && !framework.MatchAnyClusterEvent(event, p.GatingPluginEvents) {
			continue
		}
		s := q.worthRequeuing(logger, p, event, oldObj, newObj)
		if s == queueSkip {
			continue
		}
		delete(q.unschedulable, podInfoKey(p))
		where := q.requeue(logger, p, s, event.Label())
		logger.V(5).Info("Pod moved by cluster event", "pod", klog.KObj(p.Pod), "event", event.Label(), "queue", where)
	}
}

// Activate moves the given pods to the active heap if they wait in the
// back-off or unschedulable sets; for in-flight ones it records the
// request so they are retried when they come back.
func (q *Queue) Activate(logger klog.Logger, pods map[string]*v1.Pod) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	for _, pod := range pods {
		key := podKey(pod)
		if p, ok := q.unschedulable[key]; ok {
			q.moveToActive(logger, p, framework.ForceActivate)
			continue
		}
		if p, ok := q.backoff.getByKey(key); ok {
			q.backoff.delete(p)
			q.moveToActive(logger, p, framework.ForceActivate)
			continue
		}
		if _, ok := q.inFlight[pod.UID]; ok {
			q.recordLocked(framework.EventForceActivate, nil, pod, pod.UID, true)
		}
	}
}

// AddNominatedPod implements fwk.PodNominator.
func (q *Queue) AddNominatedPod(logger klog.Logger, pi fwk.PodInfo, nominatingInfo *fwk.NominatingInfo) {
	q.nominator.add(logger, pi, nominatingInfo)
}

// DeleteNominatedPodIfExists implements fwk.PodNominator.
func (q *Queue) DeleteNominatedPodIfExists(pod *v1.Pod) { q.nominator.delete(pod) }

// UpdateNominatedPod implements fwk.PodNominator.
func (q *Queue) UpdateNominatedPod(logger klog.Logger, oldPod *v1.Pod, newPodInfo fwk.PodInfo) {
	q.nominator.update(logger, oldPod, newPodInfo)
}

// NominatedPodsForNode implements fwk.PodNominator.
func (q *Queue) NominatedPodsForNode(nodeName string) []fwk.PodInfo {
	return q.nominator.forNode(nodeName)
}

// NominatedNode returns the node a pod is nominated to in memory.
func (q *Queue) NominatedNode(uid types.UID) string { return q.nominator.nominatedNode(uid) }

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

// Get returns a copy of the queued pod info for the pod, if it is queued.
func (q *Queue) Get(pod *v1.Pod) (*framework.QueuedPodInfo, bool) {
	q.lock.Lock()
	defer q.lock.Unlock()
	p := q.findLocked(q.profiles[pod.Spec.SchedulerName], pod)
	if p == nil {
		return nil, false
	}
	return p.DeepCopy(), true
}

func (q *Queue) backoffLoop(ctx context.Context) {
	logger := klog.FromContext(ctx)
	for {
		q.lock.Lock()
		wait := maxBackoffWait
		if head, ok := q.backoff.peek(); ok {
			if d := q.backoffTime(head).Sub(q.clock.Now()); d < wait {
				wait = d
			}
		}
		q.lock.Unlock()
		if wait > 0 {
			t := q.clock.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-q.wake:
				t.Stop()
				continue
			case <-t.C():
			}
		}
		q.flushBackoffCompleted(logger)
	}
}

func (q *Queue) flushBackoffCompleted(logger klog.Logger) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.countGatedLocked()
	for {
		head, ok := q.backoff.peek()
		if !ok || q.isBackingOff(head) {
			return
		}
		_, _ = q.backoff.pop()
		q.moveToActive(logger, head, framework.BackoffComplete)
	}
}

func (q *Queue) unschedulableLoop(ctx context.Context) {
	logger := klog.FromContext(ctx)
	t := q.clock.NewTicker(q.flushInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			q.flushUnschedulableLeftover(logger)
		}
	}
}

func (q *Queue) flushUnschedulableLeftover(logger klog.Logger) {
	q.lock.Lock()
	defer q.lock.Unlock()
	defer q.updateMetricsLocked()
	now := q.clock.Now()
	var pods []*framework.QueuedPodInfo
	for _, p := range q.unschedulable {
		last := p.Timestamp
		if p.FlushTimestamp.After(last) {
			last = p.FlushTimestamp
		}
		if now.Sub(last) > q.maxInUnschedulable {
			p.WasFlushedFromUnschedulable = true
			p.FlushTimestamp = now
			pods = append(pods, p)
		}
	}
	q.moveToActiveOrBackoff(logger, pods, framework.EventUnschedulableTimeout, nil, nil)
}
