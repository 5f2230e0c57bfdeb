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
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// reviewFramework is a framework built for reviews on a review snapshot
// (snapshots.go). A live profile's generation has one per snapshot, built
// at its first review there, reused by every review of that generation on
// it and closed with the generation (or when the snapshot is replaced); a
// draft review builds its own and closes it at its end.
type reviewFramework struct {
	fw framework.Framework
	// snapshot is the review snapshot it was built on.
	snapshot *internalcache.Snapshot
	// stop closes the framework (scheduler.Scheduler.BuildFramework).
	stop       func()
	weights    map[string]int32
	preemption *defaultpreemption.DefaultPreemption
	// notPreempting explains why preemption is not evaluated.
	notPreempting string
	// draPostFilter: DynamicResources' PostFilter runs before preemption.
	draPostFilter bool
	// victims records what preemption's executor would evict for a group
	// (workload-aware preemption actuates inside the plugin).
	victims victimRecorder
}

// liveReviewFramework returns the review framework of gen on sl's
// snapshot, building and attaching it if there is none yet (or the one
// there is was built on a snapshot since replaced). The caller holds sl
// and the reference gen.
func (rs *Reviews) liveReviewFramework(ctx context.Context, gen *scheduler.Generation, sl *slot) (*reviewFramework, error) {
	g, err := rs.frameworksOf(gen)
	if err != nil {
		return nil, err
	}
	snapshot := sl.snapshotOf()
	// Only the holder of sl reads or writes its entry.
	g.mu.Lock()
	rf := g.bySlot[sl]
	g.mu.Unlock()
	if rf != nil && rf.snapshot == snapshot {
		return rf, nil
	}
	if rf, err = rs.newReviewFramework(ctx, gen.Profile(), snapshot); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		rf.close()
		return nil, fmt.Errorf("%w: %q was closed", ErrNotServing, gen.SchedulerName())
	}
	if old := g.bySlot[sl]; old != nil {
		// Built on the slot's snapshot before it was replaced.
		old.close()
	}
	g.bySlot[sl] = rf
	return rf, nil
}

// newReviewFramework builds a framework for p on snapshot
// (scheduler.Scheduler.BuildFramework: nothing it does reaches the live
// scheduler), with a DefaultPreemption of its own. The caller holds the
// snapshot's slot, or the snapshot is its own (a scenario's run).
func (rs *Reviews) newReviewFramework(ctx context.Context, p scheduler.Profile, snapshot *internalcache.Snapshot) (*reviewFramework, error) {
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("review", p.Config.SchedulerName))
	rf := &reviewFramework{snapshot: snapshot, weights: map[string]int32{}}
	// DefaultPreemption's constructor adds listers to the shared
	// informers: it is built while builds take turns.
	fw, stop, err := rs.host.BuildFramework(ctx, p, snapshot, parallelism, rf.setUpPreemption)
	if err != nil {
		return nil, &BuildError{err}
	}
	rf.fw, rf.stop = fw, stop
	for _, pl := range fw.ListPlugins().Score.Enabled {
		rf.weights[pl.Name] = pl.Weight
	}
	// A draft's plugins may have asked for informers nothing started yet.
	if err := rs.host.SyncInformers(ctx); err != nil {
		rf.close()
		return nil, err
	}
	return rf, nil
}

// setUpPreemption builds a DefaultPreemption of the review's own, with the
// profile's args, when DefaultPreemption is the profile's PostFilter
// plugin: its evaluator finds the victims without evicting them.
// DynamicResources' PostFilter may come first: for a pod without claims it
// returns Unschedulable without a reason, which leaves the message as
// DefaultPreemption makes it; for a pod with claims it would deallocate a
// claim, which a review does not do (the answer says so).
func (rf *reviewFramework) setUpPreemption(ctx context.Context, prof *config.KubeSchedulerProfile, fw framework.Framework) error {
	plugins := fw.ListPlugins()
	var others []string
	found := false
	for _, p := range plugins.PostFilter.Enabled {
		switch {
		case p.Name == defaultpreemption.Name:
			found = true
		case p.Name == dynamicresources.Name && !found:
			rf.draPostFilter = true
		default:
			others = append(others, p.Name)
		}
	}
	switch {
	case len(others) > 0:
		rf.notPreempting = fmt.Sprintf("PostFilter plugins %v are not run in a review (only %s and %s)", others, dynamicresources.Name, defaultpreemption.Name)
		return nil
	case !found:
		return nil
	}
	var args runtime.Object
	for _, pc := range prof.PluginConfig {
		if pc.Name == defaultpreemption.Name {
			args = pc.Args
		}
	}
	if args == nil {
		return fmt.Errorf("no args for %s in the defaulted profile", defaultpreemption.Name)
	}
	// Workload-aware preemption (PodGroupPostFilter) evicts inside the
	// plugin: the review's executor evicts synchronously, through
	// PreemptPod, which records the victim and evicts nothing, and its
	// handle's client set is one of its own that reaches no API server.
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	fts.EnableAsyncPreemption = false
	pl, err := defaultpreemption.New(ctx, args, dryRunHandle{Framework: fw, client: noAPIClient}, fts)
	if err != nil {
		return fmt.Errorf("initializing plugin %q: %w", defaultpreemption.Name, err)
	}
	pl.Executor.PreemptPod = rf.victims.record
	rf.preemption = pl
	return nil
}

// noAPIClient is a client set whose every request fails without leaving
// the process.
var noAPIClient = func() kubernetes.Interface {
	c, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: "http://review.invalid"}, &http.Client{Transport: refuseRequests{}})
	if err != nil {
		panic(fmt.Sprintf("building the review's client set: %v", err))
	}
	return c
}()

type refuseRequests struct{}

func (refuseRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("a review sends no request (%s %s)", r.Method, r.URL.Path)
}

// dryRunHandle is the review framework as the review's DefaultPreemption
// sees it: with a client set that reaches no API server.
type dryRunHandle struct {
	framework.Framework
	client kubernetes.Interface
}

func (h dryRunHandle) ClientSet() kubernetes.Interface { return h.client }

// victimRecorder is a preemption executor's PreemptPod that records the
// victims (namespace/name) and evicts nothing. A review framework serves
// the review holding its snapshot: one recording at a time.
type victimRecorder struct {
	mu      sync.Mutex
	victims []string
}

func (r *victimRecorder) record(_ context.Context, _ preemption.Candidate, _ preemption.ExecutorPreemptor, victim *v1.Pod, _ string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.victims = append(r.victims, victim.Namespace+"/"+victim.Name)
	return false, nil
}

func (r *victimRecorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.victims = nil
}

// take returns the victims recorded, sorted.
func (r *victimRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.victims
	r.victims = nil
	slices.Sort(out)
	return out
}

// close closes the framework's plugins, cancels its context and removes
// its informer handlers.
func (rf *reviewFramework) close() { rf.stop() }

// Parallelizer is what the framework's Filter and Score passes run on.
func (rf *reviewFramework) Parallelizer() fwk.Parallelizer { return rf.fw.Parallelizer() }
