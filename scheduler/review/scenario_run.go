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
	"slices"

	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// scenarioRun is one run of a scenario with n nodes of Minimize's shape.
type scenarioRun struct {
	pods          []ScenarioPod
	groups        []GroupOutcome
	unplaced      int
	minimizeNodes int
	after         map[string]Usage
}

// settleGroup makes a pod group's placement all or nothing, as the
// pod-group cycle does: when fewer than minCount members were placed, the
// ones placed are taken off the snapshot again (the last ones assumed, in
// reverse order) and reported unplaced.
func (rc *cycle) settleGroup(logger klog.Logger, members []*framework.QueuedPodInfo, placed []WhatIfPod, minCount int) (GroupOutcome, error) {
	pod := members[0].Pod
	g := GroupOutcome{Namespace: pod.Namespace, Name: *pod.Spec.SchedulingGroup.PodGroupName, MinCount: minCount, Members: len(members)}
	for _, r := range placed {
		if r.Node != "" {
			g.Placed++
		}
	}
	if g.Placed >= minCount {
		return g, nil
	}
	g.Message = fmt.Sprintf("%d of the group's %d pods fit, fewer than its minCount %d: the group is not placed", g.Placed, len(members), minCount)
	for i := len(placed) - 1; i >= 0; i-- {
		if placed[i].Node == "" {
			continue
		}
		if err := rc.forget(logger, members[i].Pod); err != nil {
			return g, fmt.Errorf("taking %s off the scenario's snapshot: %w", klog.KObj(members[i].Pod), err)
		}
		placed[i].Node = ""
		placed[i].Message = "its pod group " + g.Name + " is not placed: " + g.Message
	}
	g.Placed = 0
	return g, nil
}

// runScenario builds the scenario's snapshot with n nodes of Minimize's
// shape, a framework of prof on it, and places the pending and evicted
// pods, then the added ones, through place.
func (rs *Reviews) runScenario(ctx context.Context, rc *cycle, prof scheduler.Profile, p *scenarioPlan, n int) (*scenarioRun, error) {
	logger := klog.FromContext(ctx)
	defer prometheus.NewTimer(scenarioRunDuration).ObserveDuration()
	nodes := slices.Concat(p.kept, p.added)
	if n > 0 {
		names := p.names.clone()
		for range n {
			nodes = append(nodes, names.copyOf(p.minimizeShape))
		}
	}
	// Upstream's constructor of a snapshot from objects: its name says
	// tests, and a scenario's snapshot is made from objects too.
	snapshot := internalcache.NewTestSnapshotWithPodGroups(p.keptPods, nodes, p.podGroups)
	rf, err := rs.newReviewFramework(ctx, prof, snapshot)
	if err != nil {
		return nil, err
	}
	defer rf.close()
	src := &cycle{reviewFramework: rf, algorithm: rc.algorithm.On(snapshot)}
	out := &scenarioRun{minimizeNodes: n}

	// A pending pod group is placed whole when its first member comes
	// up, with its pending and evicted members.
	placed, err := src.place(ctx, p.queued, func(ctx context.Context, namespace, name string) ([]WhatIfPod, error) {
		return rs.placeGroup(ctx, src, namespace, name, p.groupPending[namespace+"/"+name])
	})
	if err != nil {
		return nil, err
	}
	uids := make(map[string]types.UID, len(p.queued))
	for _, qp := range p.queued {
		uids[qp.Pod.Namespace+"/"+qp.Pod.Name] = qp.Pod.UID
	}
	for _, r := range placed {
		uid, ok := uids[r.Namespace+"/"+r.Name]
		source := p.sources[uid]
		switch {
		case !ok:
			// A gated member of a group: pending in the cluster.
			source = SourcePending
		case source == "":
			source = SourceEvicted
		}
		out.pods = append(out.pods, ScenarioPod{WhatIfPod: r, Source: source, FromNode: p.from[uid]})
	}
	for i, entry := range p.extra {
		placed, err := src.place(ctx, entry, nil)
		if err != nil {
			return nil, err
		}
		if minCount, ok := p.groups[i]; ok {
			g, err := src.settleGroup(logger, entry, placed, minCount)
			if err != nil {
				return nil, err
			}
			out.groups = append(out.groups, g)
		}
		for _, r := range placed {
			out.pods = append(out.pods, ScenarioPod{WhatIfPod: r, Source: SourceAdded})
		}
	}
	for _, r := range out.pods {
		if r.Node == "" {
			out.unplaced++
		}
	}
	all, err := snapshot.List()
	if err != nil {
		return nil, err
	}
	all = slices.DeleteFunc(slices.Clone(all), func(ni fwk.NodeInfo) bool { return p.removed.Has(ni.Node().Name) })
	out.after = pools(all, p.reportBy)
	logger.V(4).Info("Scenario run", "addedNodes", n, "pods", len(out.pods), "unplaced", out.unplaced)
	return out, nil
}
