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

package controllers

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// startupTracker knows whether every SchedulerProfile that existed when
// the operator started has been reconciled once. Until then, some profile
// may not serve yet although it will, and the operator is not ready.
type startupTracker struct {
	mu      sync.Mutex
	listed  bool
	pending map[string]struct{}
	seen    map[string]struct{}
	// elected, when set, is closed once this replica leads; a standby is
	// ready. Nil means there is no election: the replica leads.
	elected <-chan struct{}
}

func newStartupTracker(elected <-chan struct{}) *startupTracker {
	return &startupTracker{pending: map[string]struct{}{}, seen: map[string]struct{}{}, elected: elected}
}

// done records that the profile named has been reconciled.
func (t *startupTracker) done(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.pending, name)
	if !t.listed {
		t.seen[name] = struct{}{}
	}
}

// list records the profiles that exist at start. It runs once the cache
// has synced, as a leader-elected runnable, like the reconcilers.
func (t *startupTracker) list(ctx context.Context, c client.Reader) error {
	var profiles v1alpha1.SchedulerProfileList
	if err := c.List(ctx, &profiles); err != nil {
		return fmt.Errorf("listing profiles at start: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range profiles.Items {
		if _, ok := t.seen[p.Name]; !ok {
			t.pending[p.Name] = struct{}{}
		}
	}
	t.seen = nil
	t.listed = true
	return nil
}

// check returns why not every profile existing at start has been
// reconciled once, or nil.
func (t *startupTracker) check() error {
	if t.elected != nil {
		select {
		case <-t.elected:
		default:
			return nil
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.listed {
		return fmt.Errorf("profiles existing at start not listed yet")
	}
	if len(t.pending) > 0 {
		names := make([]string, 0, len(t.pending))
		for n := range t.pending {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("%d profiles existing at start not reconciled yet: %v", len(names), names)
	}
	return nil
}

// readyCheck is a healthz.Checker for /readyz: it passes once every
// SchedulerProfile that existed when the operator started has been
// reconciled once (applied or refused); a replica that does not lead is
// ready.
func (r *schedulerProfileReconciler) readyCheck(_ *http.Request) error { return r.startup.check() }
