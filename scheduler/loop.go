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
	"sync"

	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"

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
// writes. Its run is in loops.go, its cycles, assumes included, in
// schedule_one.go and schedule_one_podgroup.go.
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
