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

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
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
// the cache under the assume ledger's lock (assume.go), and checked again first, against the cache's
// copy of its node, with its profile's fit-judging Filter plugins (the
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

// profileLoop is one scheduling loop: what it shares with every other
// loop, given to it explicitly, and the snapshot and algorithm it alone
// writes. Its cycles are in schedule_one.go and schedule_one_podgroup.go.
type profileLoop struct {
	// name is the schedulerName whose pods the loop pops; "" for the one
	// loop of every profile (loopSet.single).
	name string

	// Shared with every loop: the cache and the queue, the generations
	// serving now, the assume ledger, the binder that runs the binding
	// cycles the loop starts, and the scheduler's goroutine count, which
	// counts those.
	cache   internalcache.Cache
	queue   *queue.Queue
	gens    *generations
	assumes *assumeLedger
	binder  *binder
	running *sync.WaitGroup

	// snapshot is the loop's copy of the cache, brought up to date at the
	// start of each cycle. Its profile's frameworks read it; a pod-group
	// cycle assumes members on it.
	snapshot  *internalcache.Snapshot
	algorithm *algorithm
	// seen is the assume ledger's count when the loop last took its
	// snapshot: a node assumed on after it may hold a pod the snapshot
	// does not, another loop's (or, in a pod-group cycle, one of the
	// group's members, which the snapshot has too; checking those is
	// redundant, not wrong).
	seen int64
	// cycle is the profile generation of the cycle the loop runs (its
	// bind check judges fit at assume); nil between cycles.
	cycle *liveProfile

	// cancel stops the loop; nil until it starts (loopSet.startLocked).
	cancel context.CancelFunc
	stats  loopStats
}

// assumePod assumes pod (its node set) in the cache. When a pod was
// assumed on its node since this loop's snapshot, by another loop, the
// pod is first checked against the cache's copy of its node with the bind
// check of the cycle's generation, its fit-judging plugins (none
// enabled: nothing to check); a pod that no longer fits gets an error
// wrapping errAssumeConflict and is not assumed. Assumes of every loop
// take turns (assumeLedger.mu), so of two pods that fit only one at a
// time, the second is checked with the first in the cache; the lock is
// held for the check and the assume alone, and loops filling nodes of
// their own never check. The one loop of every profile never checks: its
// snapshot holds every pod assumed before it, as upstream's does.
func (l *profileLoop) assumePod(ctx context.Context, pod *v1.Pod) error {
	logger := klog.FromContext(ctx)
	node := pod.Spec.NodeName
	return l.assumes.assume(node, func(changedSince func(seen int64) bool) error {
		if l.name != "" && changedSince(l.seen) && l.cycle != nil && l.cycle.check != nil {
			var nominated podsOnNode
			if pods := l.nominatedByOthers(pod); len(pods) > 0 {
				nominated = func(context.Context, string) ([]v1.Pod, error) { return pods, nil }
			}
			if st, _ := l.cycle.check.run(ctx, l.cache, nominated, pod, node); st.IsRejected() {
				return fmt.Errorf("%w: node %q: %s", errAssumeConflict, node, st.Message())
			}
		}
		return l.cache.AssumePod(logger, pod)
	})
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
	l.seen = l.assumes.count()
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
	cached, err := l.binder.podLister.Pods(pod.Namespace).Get(pod.Name)
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
