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

package review

import (
	"fmt"
	"sync"

	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// A review holds a snapshot of the cache for as long as it answers (its
// pods are assumed there, a bound pod taken off its node). Reviews do not
// take turns on one: a pool keeps the snapshots, and a review takes one
// that nobody holds, made at the first review that found none free, and
// gives it back at its end. The pool's lock is held only to take or give
// one. A snapshot kept is brought up to date with the cache at each
// review (the nodes that changed since), never copied whole again, and
// the review framework of a generation is built once per snapshot.
//
// The reviews of users and the shadows of rollouts have pools of their
// own: a shadow never waits on a user's review, however long it runs or
// however many a tenant creates. Reviews answered one after the other use
// one snapshot (the pool hands out the one given back last).

// slot is one review snapshot of a pool.
type slot struct {
	// snapshot is made at its first use (reviewSnapshots counts it), and
	// again when restoring it failed (cycle.end sets it nil). Only the
	// review holding the slot reads or writes it.
	snapshot *internalcache.Snapshot
}

// snapshotOf is the slot's snapshot, made if it has none. The caller
// holds the slot.
func (sl *slot) snapshotOf() *internalcache.Snapshot {
	if sl.snapshot == nil {
		sl.snapshot = internalcache.NewEmptySnapshot()
		reviewSnapshots.Inc()
	}
	return sl.snapshot
}

// pool holds the review snapshots of one kind of work. It makes one when
// every one it has is held, so it holds as many as were held at once at
// most: the callers bound that (the controller answers at most
// --review-concurrency reviews at once; the shadows of rollouts take
// turns on their pool's one).
type pool struct {
	mu sync.Mutex
	// free are the slots given back, the last given back last.
	free []*slot
	// one: the pool has a single slot, which its users take in turn.
	one *sync.Mutex
}

// newPool is a pool that makes a slot whenever none is free.
func newPool() *pool { return &pool{} }

// newSharedPool is a pool of one slot, which its users take in turn.
func newSharedPool() *pool { return &pool{one: &sync.Mutex{}, free: []*slot{{}}} }

// take returns a slot nobody holds: the one given back last, or a new one.
func (p *pool) take() *slot {
	if p.one != nil {
		p.one.Lock()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		sl := p.free[n-1]
		p.free = p.free[:n-1]
		return sl
	}
	return &slot{}
}

// give gives sl back for the next review.
func (p *pool) give(sl *slot) {
	p.mu.Lock()
	p.free = append(p.free, sl)
	p.mu.Unlock()
	if p.one != nil {
		p.one.Unlock()
	}
}

// generationFrameworks are the review frameworks of one serving
// generation, one per slot it was reviewed on, attached to the generation
// and closed with it.
type generationFrameworks struct {
	mu     sync.Mutex
	closed bool
	bySlot map[*slot]*reviewFramework
}

var _ interface{ Close() error } = &generationFrameworks{}

// Close closes every review framework of the generation
// (scheduler.Generation.Attach).
func (g *generationFrameworks) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for sl, rf := range g.bySlot {
		rf.close()
		delete(g.bySlot, sl)
	}
	return nil
}

// Parallelizer is what the Filter and Score passes of the generation's
// review frameworks run on (they are built alike); nil before the first.
func (g *generationFrameworks) Parallelizer() fwk.Parallelizer {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, rf := range g.bySlot {
		return rf.Parallelizer()
	}
	return nil
}

// frameworksOf returns the review frameworks attached to gen, attaching
// them at its first review. Reviews of one generation attach at most
// once (attachMu).
func (rs *Reviews) frameworksOf(gen *scheduler.Generation) (*generationFrameworks, error) {
	rs.attachMu.Lock()
	defer rs.attachMu.Unlock()
	if g, ok := gen.Attached().(*generationFrameworks); ok {
		return g, nil
	}
	g := &generationFrameworks{bySlot: map[*slot]*reviewFramework{}}
	if !gen.Attach(g) {
		return nil, fmt.Errorf("%w: %q was closed", ErrNotServing, gen.SchedulerName())
	}
	return g, nil
}
