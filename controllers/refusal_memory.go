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
	"fmt"
	"sync"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// refusalMemory is what the reconciler remembers of the refusals it
// decided, per SchedulerProfile object, between reconciles: so that a
// refusal is announced once, counted once per generation and reason, and a
// framework build that cannot pass is not tried again on every event. The
// reconciler, which runs one reconcile at a time, is its only user; the
// mutex keeps reads from other goroutines safe.
type refusalMemory struct {
	mu sync.Mutex
	// announced is the last refusal reported per object, so that a refusal
	// is announced once even when the cache lags behind the status written.
	announced map[string]string
	// failedBuilds remembers, per object, the fingerprint whose framework
	// build was refused for a reason that cannot change without new inputs,
	// so that the same build is not tried again on every event.
	failedBuilds map[string]failedBuild
	// counted is, per object, the generation whose refusals were counted
	// in the refused generations metric and their reasons, so that each
	// generation and reason is counted once however often it is
	// reconciled.
	counted map[string]countedRefusals
}

type countedRefusals struct {
	generation int64
	reasons    map[string]bool
}

type failedBuild struct {
	fingerprint string
	refusal     *Refusal
}

func newRefusalMemory() *refusalMemory {
	return &refusalMemory{announced: map[string]string{}, failedBuilds: map[string]failedBuild{}, counted: map[string]countedRefusals{}}
}

// count records that generation of object was refused for reason and
// reports whether that generation and reason were not recorded yet. Only
// the latest generation of an object is remembered.
func (m *refusalMemory) count(object string, generation int64, reason string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.counted[object]
	if !ok || c.generation != generation {
		c = countedRefusals{generation: generation, reasons: map[string]bool{}}
		m.counted[object] = c
	}
	if c.reasons[reason] {
		return false
	}
	c.reasons[reason] = true
	return true
}

// announce records the refusal of generation of object and reports
// whether it differs from the last one recorded.
func (m *refusalMemory) announce(object string, generation int64, r *Refusal) bool {
	key := fmt.Sprintf("%d/%s/%s", generation, r.Reason, r.Message)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.announced[object] == key {
		return false
	}
	m.announced[object] = key
	return true
}

// live drops the last refusal of object and its failed build, once a
// generation of it is live. The counts stay: a generation refused, then
// live, then refused again for the same reason is counted once.
func (m *refusalMemory) live(object string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.announced, object)
	delete(m.failedBuilds, object)
}

// forget drops everything recorded about object, once it is gone.
func (m *refusalMemory) forget(object string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.announced, object)
	delete(m.failedBuilds, object)
	delete(m.counted, object)
}

// buildRefused returns the refusal of an earlier build of the same inputs.
func (m *refusalMemory) buildRefused(object, fingerprint string) *Refusal {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.failedBuilds[object]; ok && b.fingerprint == fingerprint {
		return b.refusal
	}
	return nil
}

// noteBuildRefused remembers a build refusal that only new inputs can
// change: an unknown plugin, bad plugin args, an invalid plugin set.
func (m *refusalMemory) noteBuildRefused(object, fingerprint string, r *Refusal) {
	switch r.Reason {
	case v1alpha1.ReasonUnknownPlugin, v1alpha1.ReasonInvalidPluginArgs, v1alpha1.ReasonInvalidSpec:
	default:
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failedBuilds[object] = failedBuild{fingerprint: fingerprint, refusal: r}
}
