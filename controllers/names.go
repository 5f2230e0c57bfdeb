package controllers

import (
	"fmt"
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
// profile never removes a name another profile has taken over since. It is
// shared by the reconciler (writes) and the readiness check (reads).
//
// Invariant: byName[n] == o if and only if byObject[o].SchedulerName == n.
type servedNames struct {
	mu       sync.Mutex
	byName   map[string]string
	byObject map[string]servedProfile
	// refused is the last refusal reported per object, so that a refusal
	// is announced once even when the cache lags behind the status written.
	refused map[string]string
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

func newServedNames() *servedNames {
	return &servedNames{
		byName: map[string]string{}, byObject: map[string]servedProfile{}, refused: map[string]string{},
		failedBuilds: map[string]failedBuild{}, counted: map[string]countedRefusals{},
	}
}

// countRefusal records that generation of object was refused for reason
// and reports whether that generation and reason were not recorded yet.
// Only the latest generation of an object is remembered.
func (s *servedNames) countRefusal(object string, generation int64, reason string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.counted[object]
	if !ok || c.generation != generation {
		c = countedRefusals{generation: generation, reasons: map[string]bool{}}
		s.counted[object] = c
	}
	if c.reasons[reason] {
		return false
	}
	c.reasons[reason] = true
	return true
}

// forget drops everything recorded about object, once it is gone.
func (s *servedNames) forget(object string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refused, object)
	delete(s.failedBuilds, object)
	delete(s.counted, object)
}

// noteRefusal records the refusal of generation of object and reports
// whether it differs from the last one recorded.
func (s *servedNames) noteRefusal(object string, generation int64, r *Refusal) bool {
	key := fmt.Sprintf("%d/%s/%s", generation, r.Reason, r.Message)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused[object] == key {
		return false
	}
	s.refused[object] = key
	return true
}

// forgetRefusal drops the last refusal of object, once it is live or gone.
func (s *servedNames) forgetRefusal(object string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refused, object)
	delete(s.failedBuilds, object)
}

// buildRefused returns the refusal of an earlier build of the same inputs.
func (s *servedNames) buildRefused(object, fingerprint string) *Refusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.failedBuilds[object]; ok && b.fingerprint == fingerprint {
		return b.refusal
	}
	return nil
}

// noteBuildRefused remembers a build refusal that only new inputs can
// change: an unknown plugin, bad plugin args, an invalid plugin set.
func (s *servedNames) noteBuildRefused(object, fingerprint string, r *Refusal) {
	switch r.Reason {
	case v1alpha1.ReasonUnknownPlugin, v1alpha1.ReasonInvalidPluginArgs, v1alpha1.ReasonInvalidSpec:
	default:
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failedBuilds[object] = failedBuild{fingerprint: fingerprint, refusal: r}
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
