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
	"runtime/pprof"
	"sync"

	v1 "k8s.io/api/core/v1"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// Errors of Review a caller tells apart.
var (
	// ErrPodNotFound: the scheduler knows no such pod that is not
	// terminal.
	ErrPodNotFound = errors.New("pod not found")
	// ErrNotServing: no live profile serves the schedulerName asked for.
	ErrNotServing = errors.New("no profile serves the schedulerName")
	// ErrNotReady: the scheduler has not synced its informers yet (it is
	// not started, or this replica does not lead).
	ErrNotReady = errors.New("the scheduler is not running yet")
)

// BuildError is a framework build failure of a review's profile: for a
// draft, the text is the one Apply would have returned.
type BuildError struct{ Err error }

func (e *BuildError) Error() string { return e.Err.Error() }
func (e *BuildError) Unwrap() error { return e.Err }

// Request asks what a scheduling cycle would decide.
type Request struct {
	// Pod is evaluated as given (a pod template, as if created now). When
	// nil, PodNamespace/PodName name a pod the scheduler's informer knows.
	Pod                   *v1.Pod
	PodNamespace, PodName string
	// SchedulerName selects the live profile to evaluate with, unless
	// Draft is set. Empty: the pod's schedulerName.
	SchedulerName string
	// Draft is a profile built for this review only (converted,
	// defaulted and validated as for Apply), closed afterwards.
	Draft *scheduler.Profile
	// PendingPods asks for what-if mode: every pending pod whose
	// schedulerName is PendingSchedulerName, in queue order.
	PendingPods          bool
	PendingSchedulerName string
	// PodGroupName asks for the pod-group cycle's answer for a PodGroup of
	// PodNamespace (explain mode for a group). A review of a pending pod
	// that belongs to a PodGroup answers for its group too.
	PodGroupName string
	// ScoredNodes, when above 0, bounds the feasible nodes listed with
	// their per-plugin scores (PodAnswer.Feasible[i].Scores) to the first
	// ScoredNodes in rank order; the others have their total only. Every
	// feasible node is scored and ranked either way.
	ScoredNodes int

	// Scenario, when set, changes the cluster the pods are placed on
	// (scenario.go): the pending pods of PendingPods, if set, then
	// the scenario's own pods.
	Scenario *Scenario
}

// Reviewer answers scheduling reviews. *Reviews implements it.
type Reviewer interface {
	// Review runs the scheduling pipeline (PreFilter, Filter on every
	// node, extenders, PreScore, Score, NormalizeScore, and dry-run
	// preemption when nothing fits) on a private snapshot of the cache,
	// with a private framework built from the serving profile (once per
	// generation, shared by its reviews) or from the draft (per review).
	// It never runs Reserve, Permit or Bind, never changes the cache, the
	// queue or any API object, and never blocks a scheduling cycle.
	Review(ctx context.Context, req Request) (*Answer, error)
}

var _ Reviewer = &Reviews{}

// Answer is a review's answer.
type Answer struct {
	// SchedulerName of the framework used.
	SchedulerName string
	// SnapshotNodes is the number of nodes evaluated on.
	SnapshotNodes int
	// Pod answers explain mode.
	Pod *PodAnswer
	// WhatIf answers what-if mode, in queue order.
	WhatIf []WhatIfPod
	// Scenario answers a request with a scenario (WhatIf is then unset).
	Scenario *ScenarioAnswer
	// Group answers for a pod group (PodGroupName, or the group of the
	// pending pod reviewed); Pod is then nil.
	Group *GroupAnswer
}

// PodAnswer is what one scheduling cycle would decide for one pod.
type PodAnswer struct {
	Pod *v1.Pod
	// SelectedNode is where the cycle would put the pod; empty if nowhere.
	SelectedNode string
	// Message is, when SelectedNode is empty, the FailedScheduling event
	// message the cycle would write.
	Message string
	// Feasible nodes in the order the cycle ranks them (the selected node
	// first, ties by name), with their scores.
	Feasible []NodeResult
	// Tied counts the nodes sharing the best score (the selected one
	// included) when the cycle would pick among several at random; 0
	// otherwise.
	Tied int
	// Rejected nodes, by name.
	Rejected []NodeRejection
	// NumFeasibleNodesToFind is where the real cycle stops searching
	// (percentageOfNodesToScore); StartNode is where it starts now.
	NumFeasibleNodesToFind int
	StartNode              string
	// Preemption is set when nothing fits and the profile preempts.
	Preemption *Preemption
	// BoundNode is, for a pod already bound, its node; the pod is
	// evaluated as if it were pending again.
	BoundNode string
	// Overcommitted is set when BoundNode's bound pods request more than
	// it has: the resources over and the pods.
	Overcommitted *scheduler.Overcommit
}

// NodeResult is a feasible node.
type NodeResult struct {
	Name string
	// Scores per score plugin (raw, normalized, weighted), then per
	// prioritizing extender (weighted only); nil beyond the first
	// Request.ScoredNodes nodes.
	Scores []ScoreDetail
	Total  int64
	// Sampled is false when the real cycle, starting at StartNode and
	// stopping at NumFeasibleNodesToFind, would not reach the node.
	Sampled bool
}

// ScoreDetail is one plugin's (or extender's) score of a node.
type ScoreDetail struct {
	Name     string
	Extender bool
	// Raw and Normalized are set for plugins.
	Raw, Normalized int64
	Weight          int32
	Weighted        int64
}

// NodeRejection is a node that does not fit and what rejected it.
type NodeRejection struct {
	Node string
	// Plugin or extender name; empty for nodes a PreFilterResult excluded.
	Plugin       string
	Reasons      []string
	Unresolvable bool
}

// Preemption is DefaultPreemption's answer, computed without
// touching a victim.
type Preemption struct {
	// Node the pod would be nominated to, and its victims (namespace/name).
	Node    string
	Victims []string
	// Message is what PostFilter adds to the FailedScheduling message.
	Message string
	// NotEvaluated says why preemption was not evaluated (PostFilter
	// plugins other than DefaultPreemption).
	NotEvaluated string
}

// WhatIfPod is one pending pod's outcome in what-if mode.
type WhatIfPod struct {
	Namespace, Name string
	Node            string
	Message         string
	// Tied counts the nodes sharing the best score (Node included) when
	// the cycle would pick among several at random; 0 otherwise.
	Tied int
	// Group is the PodGroup the pod was placed with (all or nothing).
	Group string
}

// parallelism is the parallelism of a review framework: its Filter
// and Score passes and preemption's dry run run on one goroutine. A review
// evaluates every node, twice the work of a cycle's sampled pass or more;
// with the scheduler's parallelism (16 by default) its workers would take
// every core from the scheduling cycle's own parallel passes for as long as
// it runs. With one, a review never takes more than one core. Each node's
// verdict and scores do not depend on the order nodes are evaluated in, so
// the answer is the same; preemption's dry run stops after enough
// candidates from a random offset, as the cycle's does, whose parallel
// workers may look at a few more. On 2 cores a review takes as long either
// way (BenchmarkReview: 1.3 ms at 500 nodes, 14 ms at 5000); on more cores
// a big review takes longer with one.
const parallelism = 1

// Reviews answers the scheduling reviews of one scheduler, reached
// through host: it keeps the snapshots its reviews hold while they answer
// (snapshots.go), one pool for the reviews and one for rollouts' shadows,
// and attaches the frameworks the reviews of a serving generation share
// to that generation. Make one per scheduler.
type Reviews struct {
	host Host
	opts options
	// reviews' snapshots, one per review answered at the same time;
	// shadows' snapshot, one (the shadows of rollouts take turns on it).
	reviews, shadows *pool
	// attachMu: the frameworks of a generation are attached once. Taken
	// before any lock of the scheduler's.
	attachMu sync.Mutex
}

// New returns the reviews of host (a *scheduler.Scheduler).
func New(host Host, opts ...Option) *Reviews {
	o := options{scenarioLimits: DefaultScenarioLimits}
	for _, opt := range opts {
		opt(&o)
	}
	registerMetrics()
	return &Reviews{host: host, opts: o, reviews: newPool(), shadows: newSharedPool()}
}

// Option configures Reviews.
type Option func(*options)

type options struct {
	// scenarioLimits bound a review's scenario (scenario_plan.go).
	scenarioLimits ScenarioLimits
}

// WithScenarioLimits bounds the scenarios of reviews: a scenario whose
// nodes or pods, once expanded, exceed them is refused, naming the field.
// A limit of 0 or less keeps the default (DefaultScenarioLimits).
func WithScenarioLimits(l ScenarioLimits) Option {
	return func(o *options) {
		if l.Nodes > 0 {
			o.scenarioLimits.Nodes = l.Nodes
		}
		if l.Pods > 0 {
			o.scenarioLimits.Pods = l.Pods
		}
		if l.NodePods > 0 {
			o.scenarioLimits.NodePods = l.NodePods
		}
	}
}

// Review answers a review. See Reviewer.
//
// Its work, and the parallel Filter and Score workers it starts, carry the
// pprof label work=review, so a CPU profile of the operator tells a
// review's cost from the scheduling loop's.
func (rs *Reviews) Review(ctx context.Context, req Request) (out *Answer, err error) {
	pprof.Do(ctx, pprof.Labels("work", "review"), func(ctx context.Context) {
		out, err = rs.review(ctx, req)
	})
	return out, err
}

// A review asks one question of one profile: the serving generation of a
// schedulerName, or a draft. Each question lives in a file of its own and
// owns how it is answered on a review cycle: a pod (pod.go), a pod group
// (podgroup.go), the pending pods (whatif.go), a capacity scenario
// (scenario.go). review resolves the question,
// the profile and the cycle once, then asks.
type question interface {
	// schedulerName is the schedulerName whose serving generation
	// answers when the review has no draft.
	schedulerName() string
	// ask answers on rc, whose framework is prof's, into out.
	ask(ctx context.Context, rs *Reviews, rc *cycle, prof scheduler.Profile, out *Answer) error
}

func (rs *Reviews) review(ctx context.Context, req Request) (*Answer, error) {
	if !rs.host.HasSynced() {
		return nil, ErrNotReady
	}
	var rc *cycle
	// prof builds the frameworks of a scenario's own snapshots.
	var prof scheduler.Profile
	if req.Draft != nil {
		prof = *req.Draft
		// A draft that does not build is the answer, whatever the question.
		var err error
		if rc, err = rs.startReviewCycle(ctx, rs.reviews, req.Draft, nil); err != nil {
			return nil, err
		}
		defer rc.end()
	}
	q, err := rs.question(req, req.Draft != nil)
	if err != nil {
		return nil, err
	}
	if rc == nil {
		// Taken as a cycle takes it: a swap retires it, and it is closed,
		// with the review framework of its generation, once this review
		// released it.
		gen := rs.host.AcquireGeneration(q.schedulerName())
		if gen == nil {
			return nil, fmt.Errorf("%w: %q", ErrNotServing, q.schedulerName())
		}
		defer gen.Release(ctx)
		prof = gen.Profile()
		if rc, err = rs.startReviewCycle(ctx, rs.reviews, nil, gen); err != nil {
			return nil, err
		}
		defer rc.end()
	}
	out := &Answer{SchedulerName: rc.fw.ProfileName(), SnapshotNodes: rc.snapshot.NumNodesInPlacement()}
	return out, q.ask(ctx, rs, rc, prof, out)
}

// question is the question req asks.
func (rs *Reviews) question(req Request, draft bool) (question, error) {
	switch {
	case req.Scenario != nil:
		return scenarioQuestion{req: req}, nil
	case req.PendingPods:
		return pendingQuestion{profile: req.SchedulerName, pendingSchedulerName: req.PendingSchedulerName}, nil
	case req.PodGroupName != "":
		return rs.groupQuestion(req.PodNamespace, req.PodGroupName, req.SchedulerName, draft)
	}
	return rs.podQuestion(req)
}
