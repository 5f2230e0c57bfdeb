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
	"sync"
	"sync/atomic"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/events"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// Scheduler schedules pods with the profiles applied to it. It is the
// core the rest hangs on: the cache and the queue, the generations serving
// now (generations.go), and the parts that each own their state and lock:
// the builder (build.go), the watcher of the resources plugins react to
// (watch.go), the scheduling loops (loops.go, loop.go), the assume ledger
// (assume.go), the binder (binding.go), the overcommit watch
// (overcommit.go) and the bind arbiter's holds (arbiter.go). Its own
// methods are the profile set (profiles.go), the rollouts (rollout.go),
// the informer handlers (eventhandlers.go) and its lifecycle (here).
//
// Goroutines: a scheduling loop per served profile, or one for all
// (loop.go; each alone updates its snapshot), one binding goroutine
// per assumed pod (whose bind checks take turns per profile, bindcheck.go),
// a shadow per shadow step (rollout_shadow.go), the queue's back-off and
// unschedulable loops, the overcommit watcher, informer handlers, and
// reviews (package review, through ReviewHost), which read the cache into
// a snapshot of their own.
//
// Locks, in the order they are taken (a lock is never taken while one
// later in the list is held):
//
//	applyMu → builder.mu
//	a caller's own lock (a review's) → builder.mu (ReviewHost.BuildFramework)
//	applyMu → watcher.mu
//	applyMu → queue's lock → nominator's lock
//	Arbiter.mu → bindCheck.mu (the arbiter's own check) → bindHolds.mu
//	assumeLedger.mu → bindCheck.mu → the cache's lock (a loop's assume)
//	applyMu → loopSet.mu
//
// applyMu serializes Apply, Remove, the rollout's steps and shutdown, and
// is held while an Apply waits, up to informerSyncTimeout, for informers
// to sync. builder.mu serializes framework builds, of Apply and of
// Validate alike, and is held for the build alone, which waits for
// nothing: so Validate (admission's dry-run) never waits for an Apply.
// builder.mu and watcher.mu are never held together. liveProfile.mu,
// liveProfile.attachedMu, bindHolds.mu, overcommitWatch.mu, a shadow's mu,
// generationStats.mu, loopStats.mu and the cache's lock are leaves. The
// generations serving are immutable maps behind atomic pointers, read once
// per cycle without a lock. The cache and the queue survive every swap.
type Scheduler struct {
	client          kubernetes.Interface
	informerFactory informers.SharedInformerFactory
	podLister       listersv1.PodLister
	// namespaces are read by a canary step's namespace selector.
	namespaces listersv1.NamespaceLister
	opts       options

	cache          internalcache.Cache
	queue          *queue.Queue
	broadcaster    events.EventBroadcaster
	ownBroadcaster bool

	// ctx lives as long as the scheduler; frameworks derive theirs from it.
	ctx    context.Context
	cancel context.CancelFunc

	// applyMu serializes Apply, Remove, the rollout's steps and shutdown:
	// the writers of gens.
	applyMu sync.Mutex
	gens    *generations
	// shadowJudge judges the pods of shadow steps (SetShadowJudge).
	shadowJudge atomic.Pointer[ShadowJudge]

	builder *builder
	watcher *watcher

	started atomic.Bool
	// running counts the loops, binding goroutines, shadows and the
	// overcommit watcher.
	running sync.WaitGroup

	// nextStartNodeIndex is where the next Filter pass starts, one for
	// every loop as upstream's is one for every profile. The scheduling
	// loops write it (through their algorithm); reviews read it.
	nextStartNodeIndex atomic.Int64

	loops   *loopSet
	assumes *assumeLedger
	binder  *binder

	overcommit *overcommitWatch
	// binds are the binds the bind arbiter admitted that the cache has
	// not seen yet (arbiter.go); the pod handlers release them.
	binds *bindHolds
	// bindTiming is what the bind check knows of how long binds take,
	// ours and other schedulers' (bindcheck.go).
	bindTiming *bindTiming
}
