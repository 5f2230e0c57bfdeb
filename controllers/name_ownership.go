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
	"sort"
	"sync"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// servedProfile is what one SchedulerProfile object serves now.
type servedProfile struct {
	// SchedulerName served.
	SchedulerName string
	// Generation of the object the serving framework was built from.
	Generation int64
	// Fingerprint of everything the framework was built from (generation
	// and resolved extenders, TLS material included): when it is unchanged,
	// nothing is re-applied.
	Fingerprint string
	// Status of the serving framework.
	Status profileOutcome
}

// servedNames records which object serves which schedulerName, so that a
// profile never removes a name another profile has taken over since. The
// reconciler, which runs one reconcile at a time, is its only user; the
// mutex keeps reads from other goroutines safe.
//
// Invariant: byName[n] == o if and only if byObject[o].SchedulerName == n.
type servedNames struct {
	mu       sync.Mutex
	byName   map[string]string
	byObject map[string]servedProfile
}

func newServedNames() *servedNames {
	return &servedNames{byName: map[string]string{}, byObject: map[string]servedProfile{}}
}

// get returns what object serves, if anything.
func (s *servedNames) get(object string) (servedProfile, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.byObject[object]
	return p, ok
}

// set records that object now serves p.SchedulerName. It returns the name
// object served before, if it was another one, and the object that served
// p.SchedulerName before, if it was another one.
func (s *servedNames) set(object string, p servedProfile) (oldName, displaced string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.byObject[object]; ok && prev.SchedulerName != p.SchedulerName {
		oldName = prev.SchedulerName
		delete(s.byName, prev.SchedulerName)
	}
	if other, ok := s.byName[p.SchedulerName]; ok && other != object {
		displaced = other
		delete(s.byObject, other)
	}
	s.byName[p.SchedulerName] = object
	s.byObject[object] = p
	return oldName, displaced
}

// release forgets what object serves and returns the name it served.
func (s *servedNames) release(object string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.byObject[object]
	if !ok {
		return "", false
	}
	delete(s.byObject, object)
	delete(s.byName, p.SchedulerName)
	return p.SchedulerName, true
}

// nameOwner returns the profile that owns a schedulerName among those that
// claim it: the oldest by creationTimestamp, then by name. Profiles being
// deleted claim nothing.
func nameOwner(claimers []v1alpha1.SchedulerProfile) *v1alpha1.SchedulerProfile {
	live := make([]*v1alpha1.SchedulerProfile, 0, len(claimers))
	for i := range claimers {
		if claimers[i].DeletionTimestamp.IsZero() {
			live = append(live, &claimers[i])
		}
	}
	if len(live) == 0 {
		return nil
	}
	sort.Slice(live, func(i, j int) bool {
		a, b := live[i], live[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	return live[0]
}
