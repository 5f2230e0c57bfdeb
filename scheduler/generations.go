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
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// generations are the generations that serve now, by schedulerName: the
// serving one of each profile (profileMap) and, while a profile is rolled
// out, its candidate (rolloutMap). Both maps are published copy-on-write
// behind atomic pointers: a published map is never modified, so a cycle
// reads them once, without a lock. Writers (Apply, Remove, the rollout's
// state machine and shutdown) take turns under Scheduler.applyMu; publish
// is the one place a map is copied.
type generations struct {
	profiles atomic.Pointer[profileMap]
	rollouts atomic.Pointer[rolloutMap]
}

func newGenerations() *generations {
	g := &generations{}
	g.profiles.Store(&profileMap{})
	g.rollouts.Store(&rolloutMap{})
	return g
}

// publish stores a copy of the map behind m with name set to v, or
// without name when v is nil, and returns the map it replaced. The caller
// holds applyMu.
func publish[M ~map[string]V, V comparable](m *atomic.Pointer[M], name string, v V) M {
	old := *m.Load()
	next := make(M, len(old)+1)
	for k, x := range old {
		if k != name {
			next[k] = x
		}
	}
	var none V
	if v != none {
		next[name] = v
	}
	m.Store(&next)
	return old
}

// setServing publishes lp as the generation serving name (nil: none) and
// returns the one it replaces.
func (g *generations) setServing(name string, lp *liveProfile) *liveProfile {
	return publish(&g.profiles, name, lp)[name]
}

// setRollout publishes r as name's rollout (nil: none) and returns the
// one it replaces.
func (g *generations) setRollout(name string, r *rollout) *rollout {
	return publish(&g.rollouts, name, r)[name]
}

// takeAll publishes empty maps and returns the ones they replace
// (shutdown).
func (g *generations) takeAll() (profileMap, rolloutMap) {
	return *g.profiles.Swap(&profileMap{}), *g.rollouts.Swap(&rolloutMap{})
}

// serving is the generation serving name, nil if none.
func (g *generations) serving(name string) *liveProfile { return (*g.profiles.Load())[name] }

// rollout is name's rollout, nil if none.
func (g *generations) rollout(name string) *rollout { return (*g.rollouts.Load())[name] }

// names are the schedulerNames served now.
func (g *generations) names() []string {
	m := *g.profiles.Load()
	out := make([]string, 0, len(m))
	for name := range m {
		out = append(out, name)
	}
	return out
}

// count is how many profiles are served now.
func (g *generations) count() int { return len(*g.profiles.Load()) }

// serves reports whether lp is the generation serving its name, not a
// rollout's candidate (or a retired generation).
func (g *generations) serves(lp *liveProfile) bool {
	return g.serving(lp.applied.SchedulerName) == lp
}

// servesFramework reports whether fw is the framework of the generation
// serving its profile.
func (g *generations) servesFramework(fw framework.Framework) bool {
	p := g.serving(fw.ProfileName())
	return p != nil && p.fw == fw
}

// acquire returns the generation serving name with a reference taken, or
// nil when none serves it.
func (g *generations) acquire(name string) *liveProfile {
	for {
		p := g.serving(name)
		if p == nil {
			return nil
		}
		if p.acquire() {
			return p
		}
		// Retired between the load and the acquire: the replacement is
		// already published, look again.
	}
}

// acquireFor returns, with a reference taken, the generation that
// schedules pod (or the pod group pod starts the cycle of) of name, whose
// rollout key is key: the candidate when a canary step covers it
// (rollout.covers), else the serving one; nil when none serves.
func (g *generations) acquireFor(name string, pod *v1.Pod, key func() string) *liveProfile {
	if r := g.rollout(name); r != nil && r.covers(pod, key) && r.candidate.acquire() {
		return r.candidate
	}
	return g.acquire(name)
}

// statsOf returns the counts of the generation fw belongs to, if it
// serves or is a candidate; nil otherwise.
func (g *generations) statsOf(fw framework.Framework) *generationStats {
	name := fw.ProfileName()
	if p := g.serving(name); p != nil && p.fw == fw {
		return p.stats
	}
	if r := g.rollout(name); r != nil && r.candidate.fw == fw {
		return r.candidate.stats
	}
	return nil
}

// offerShadow hands a pod the serving generation lp placed on node (or
// found unschedulable: node empty) to the shadow of its name, if a
// shadow step runs.
func (g *generations) offerShadow(lp *liveProfile, pod *v1.Pod, node string) {
	name := lp.applied.SchedulerName
	r := g.rollout(name)
	if r == nil || r.shadow == nil || g.serving(name) != lp {
		return
	}
	r.shadow.offer(pod, node)
}

// liveGenerations are the generations of the schedulers of this process,
// from New until their shutdown (one in the operator; tests run several).
var liveGenerations = newLiveSet[*generations]()

var (
	// activeProfiles reads the profile maps of the live schedulers of
	// this process when scraped.
	activeProfiles = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: operatorMetricsNamespace,
		Name:      "active_profiles",
		Help:      "Profiles (schedulerNames) served now.",
	}, func() float64 {
		n := 0
		liveGenerations.each(func(g *generations) { n += g.count() })
		return float64(n)
	})
)

// generationsCollectors are the metrics declared here (registerMetrics).
func generationsCollectors() []prometheus.Collector {
	return []prometheus.Collector{activeProfiles}
}

// offerShadowGroup hands the members of a pod group the serving
// generation lp's pod-group cycle decided to the shadow of its name, if a
// shadow step runs.
func (g *generations) offerShadowGroup(lp *liveProfile, namespace, name string, members []ShadowMember) {
	r := g.rollout(lp.applied.SchedulerName)
	if r == nil || r.shadow == nil || g.serving(lp.applied.SchedulerName) != lp {
		return
	}
	r.shadow.offerGroup(namespace, name, members)
}
