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
	"sync"
	"sync/atomic"
)

// assumeLedger lets the scheduling loops assume pods in the cache one at
// a time and tells a loop whether a node was assumed on since its
// snapshot (profileLoop.assumePod). A pod nominated to a node after its
// preemption counts as an assume there (noteNomination).
type assumeLedger struct {
	// mu serializes the loops' assumes (the check before one and the
	// assume itself) and guards on. Taken before a bind check's lock and
	// the cache's.
	mu sync.Mutex
	// n counts the assumes (and nominations) of every loop; on holds, by
	// node, the count at the node's last one. A node's entry outlives
	// the node, as its name may come back.
	n  atomic.Int64
	on map[string]int64
}

func newAssumeLedger() *assumeLedger { return &assumeLedger{on: make(map[string]int64)} }

// count is the number of assumes so far; a loop keeps it with its
// snapshot.
func (a *assumeLedger) count() int64 { return a.n.Load() }

// assume runs do under the ledger's lock, giving it whether node was
// assumed on after the count seen, and notes an assume on node when do
// succeeds.
func (a *assumeLedger) assume(node string, do func(changedSince func(seen int64) bool) error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := do(func(seen int64) bool { return a.on[node] > seen }); err != nil {
		return err
	}
	a.on[node] = a.n.Add(1)
	return nil
}

// noteNomination counts a pod nominated to node (after its preemption
// evicted victims there) as an assume on node: a loop whose snapshot is
// older checks its next assume on node, counting the nominated pod
// (profileLoop.nominatedByOthers), as upstream's one loop counts
// nominated pods in every Filter.
func (a *assumeLedger) noteNomination(node string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.on[node] = a.n.Add(1)
}
