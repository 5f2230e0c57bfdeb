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
	"context"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// The algorithm as work beside the live cycle is given it (package
// review, through ReviewHost.Algorithm).

// Algorithm is the algorithm on a snapshot of a caller's own, for work
// beside the live cycle (package review): the same filter pass and
// scoring the live cycle runs, one copy of the part that must never
// differ. Its search starts where the live cycle's next one starts when
// it is made and moves on per pass as the live one's does; it never
// batches. Passes on one Algorithm take turns.
type Algorithm struct{ a *algorithm }

// Algorithm returns an algorithm on snapshot whose search starts at the
// live cycle's next start index.
func (h *ReviewHost) Algorithm(snapshot *internalcache.Snapshot) *Algorithm {
	return newAlgorithm(snapshot, h.percentageOfNodesToScore, h.nextStartNodeIndex.Load())
}

func newAlgorithm(snapshot *internalcache.Snapshot, percentageOfNodesToScore int32, start int64) *Algorithm {
	a := &algorithm{snapshot: snapshot, percentageOfNodesToScore: percentageOfNodesToScore, nextStartNodeIndex: new(atomic.Int64)}
	a.nextStartNodeIndex.Store(start)
	return &Algorithm{a: a}
}

// On returns an algorithm on snapshot whose search starts where a's next
// one starts.
func (a *Algorithm) On(snapshot *internalcache.Snapshot) *Algorithm {
	return newAlgorithm(snapshot, a.a.percentageOfNodesToScore, a.a.nextStartNodeIndex.Load())
}

// StartIndex is where the next search of the nodes starts.
func (a *Algorithm) StartIndex() int { return int(a.a.nextStartNodeIndex.Load()) }

// FilterPass runs PreFilter, Filter and the extenders' filter for one pod
// as search says, as the live cycle's findNodesThatFitPod does.
func (a *Algorithm) FilterPass(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo, search Search) (Fit, error) {
	return a.a.filterPass(ctx, fw, state, podInfo, search)
}

// NumFeasibleNodesToFind is how many feasible nodes end the live cycle's
// search of numAllNodes nodes with fw.
func (a *Algorithm) NumFeasibleNodesToFind(fw framework.Framework, numAllNodes int) int {
	return int(a.a.numNodesToFind(fw, int32(numAllNodes)))
}

// Prioritize scores nodes for pod as the live cycle does (PreScore,
// Score, NormalizeScore, the prioritizing extenders).
func (a *Algorithm) Prioritize(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, error) {
	return prioritizeNodes(ctx, fw, state, pod, nodes)
}
