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
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// Scenario changes the cluster a review places pods on, in the review's
// own snapshot only: nodes added (copies of a node, or templates), nodes
// removed (their pods placed again, as a drain would recreate them), and
// pods added after the pending ones. Minimize searches for the smallest
// count of one node shape that makes every pod fit.
type Scenario struct {
	// AddNodes are nodes that exist in the scenario only.
	AddNodes []NodeShape
	// RemoveNodes names nodes to drain; RemoveSelector (nil: none)
	// selects more by label. As kubectl drain does, they are cordoned
	// (they stay, unschedulable, and count as domains for spreading) and
	// their pods, but DaemonSet and static ones, are pending again. The
	// shares after leave them out.
	RemoveNodes    []string
	RemoveSelector labels.Selector
	// Pods are placed after the pending (and evicted) pods, entry by
	// entry.
	Pods []ScenarioPods
	// ReportBy is the node label whose values the allocated shares are
	// reported by; empty: one pool of every node.
	ReportBy string
	// Minimize, when set, searches for the smallest count of its shape
	// to add.
	Minimize *Minimize
	// Now is when the evicted pods are queued again; zero: time.Now.
	Now time.Time
}

// NodeShape is Count nodes like FromNode (a node of the cluster) or like
// Template.
type NodeShape struct {
	Template *v1.Node
	FromNode string
	Count    int
}

// ScenarioPods are Replicas copies of Template, named Template.Name-1, -2,
// ... When MinCount is above 0 they are the members of one pod group named
// Template.Name, placed all or nothing: at least MinCount of them, or
// none.
type ScenarioPods struct {
	Template *v1.Pod
	Replicas int
	MinCount int
}

// ScenarioError is a scenario that cannot be run as given. Field is the
// field at fault under the scenario ("addNodes[0].fromNode").
type ScenarioError struct {
	Field string
	// TooLarge: the scenario exceeds the operator's limits.
	TooLarge bool
	Err      error
}

func (e *ScenarioError) Error() string { return e.Field + ": " + e.Err.Error() }

func scenarioErrorf(field string, format string, args ...any) error {
	return &ScenarioError{Field: field, Err: fmt.Errorf(format, args...)}
}

// PodSource says why a pod is placed in a scenario.
type PodSource string

// The sources of a scenario's pods.
const (
	// SourcePending: a pending pod of the cluster (Request.PendingPods).
	SourcePending PodSource = "Pending"
	// SourceEvicted: a pod of a removed node.
	SourceEvicted PodSource = "Evicted"
	// SourceAdded: a pod of Scenario.Pods.
	SourceAdded PodSource = "Added"
)

// ScenarioAnswer is a scenario's answer.
type ScenarioAnswer struct {
	// Pods in the order they were placed: the pending and evicted ones in
	// queue order, then the added ones. With pod groups on, a pending or
	// evicted member's whole group is placed when its first member comes
	// up, all or nothing, as the pod-group cycle places it (a group the
	// queue holds back, short of its minCount, waits).
	Pods []ScenarioPod
	// Groups are the pod groups of Scenario.Pods.
	Groups []GroupOutcome
	// AddedNodes and RemovedNodes count the nodes added (Minimize's
	// included) and removed.
	AddedNodes, RemovedNodes int
	// NotMoved counts the pods of removed nodes that are not placed again
	// (DaemonSet and static pods, which a drain leaves behind).
	NotMoved int
	// Pools are the allocated shares per value of Scenario.ReportBy,
	// before (the cluster now) and after (the scenario, its pods placed),
	// by value.
	Pools []PoolUsage
	// Minimize answers Scenario.Minimize.
	Minimize *MinimizeAnswer
}

// Unplaced counts the pods that would not be placed.
func (r *ScenarioAnswer) Unplaced() int {
	n := 0
	for _, p := range r.Pods {
		if p.Node == "" {
			n++
		}
	}
	return n
}

// ScenarioPod is one pod's outcome in a scenario.
type ScenarioPod struct {
	WhatIfPod
	Source PodSource
	// FromNode is the removed node an evicted pod ran on.
	FromNode string
}

// GroupOutcome is a pod group's outcome.
type GroupOutcome struct {
	Namespace, Name           string
	MinCount, Members, Placed int
	// Message says why the group is not placed; empty when it is.
	Message string
}

// scenarioQuestion asks what fits if the cluster changes: req.Scenario,
// with the pending pods of req.PendingSchedulerName when req.PendingPods.
type scenarioQuestion struct{ req Request }

func (q scenarioQuestion) schedulerName() string { return q.req.SchedulerName }

func (q scenarioQuestion) ask(ctx context.Context, rs *Reviews, rc *cycle, prof scheduler.Profile, out *Answer) error {
	var err error
	out.Scenario, err = rs.scenario(ctx, rc, prof, q.req)
	return err
}

// scenario runs req.Scenario with prof on snapshots of its own, built
// from the review's snapshot (rc's, up to date with the cache), which it
// only reads. Each run builds a snapshot and a framework of prof on it:
// the live cache, queue and frameworks are never touched.
func (rs *Reviews) scenario(ctx context.Context, rc *cycle, prof scheduler.Profile, req Request) (*ScenarioAnswer, error) {
	sc := req.Scenario
	base, err := rc.snapshot.List()
	if err != nil {
		return nil, err
	}
	p, err := rs.planScenario(rc, sc, base)
	if err != nil {
		return nil, err
	}
	if req.PendingPods {
		name := req.PendingSchedulerName
		if name == "" {
			name = rc.fw.ProfileName()
		}
		pending, err := rs.pendingPods(rc, name)
		if err != nil {
			return nil, err
		}
		p.sources = make(map[types.UID]PodSource, len(pending))
		for _, qp := range pending {
			p.sources[qp.Pod.UID] = SourcePending
		}
		p.queued = append(p.queued, pending...)
	}
	if err := rs.planGroups(rc, p, req.PendingPods); err != nil {
		return nil, err
	}
	rc.sortPending(p.queued)
	if err := p.checkPods(rs.opts.scenarioLimits, sc); err != nil {
		return nil, err
	}
	out := &ScenarioAnswer{RemovedNodes: p.removed.Len(), NotMoved: p.notMoved}
	before := pools(base, sc.ReportBy)
	// The plan holds what the runs need (the nodes and pods as objects,
	// the pods to place as copies): the reviews' snapshot goes to the
	// next review now, not after the runs, which may take long (minimize).
	// Another review, or a rollout's shadow, waits on a scenario no
	// longer than its plan.
	rc.end()

	run := func(n int) (*scenarioRun, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return rs.runScenario(ctx, rc, prof, p, n)
	}
	var last *scenarioRun
	if sc.Minimize == nil {
		if last, err = run(0); err != nil {
			return nil, err
		}
	} else {
		out.Minimize = &MinimizeAnswer{Count: -1, Max: sc.Minimize.Max}
		if last, err = minimize(sc.Minimize.Max, out.Minimize, run); err != nil {
			// The counts tried so far are what a review stopped at its
			// deadline had computed.
			return out, err
		}
	}
	out.Pods, out.Groups, out.AddedNodes = last.pods, last.groups, len(p.added)+last.minimizeNodes
	out.Pools = mergePools(before, last.after)
	return out, nil
}

// IsScenarioError reports whether err is a ScenarioError, and returns it.
func IsScenarioError(err error) (*ScenarioError, bool) {
	var se *ScenarioError
	ok := errors.As(err, &se)
	return se, ok
}
