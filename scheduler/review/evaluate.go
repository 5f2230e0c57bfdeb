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
	"cmp"
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// evaluate runs one pod through the cycle's decision steps, the
// algorithm's own (scheduler.Algorithm) on the review's snapshot, with Filter on
// every node unless the review is placing pods.
func (rc *cycle) evaluate(ctx context.Context, pod *v1.Pod) (*PodAnswer, error) {
	state := framework.NewCycleState()
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	out, _, err := rc.evaluateIn(ctx, state, pod)
	return out, err
}

// evaluateIn evaluates pod with the cycle state given; it also returns the
// status schedulingAlgorithm would return when no node fits. A member of a
// pod-group cycle (state.IsPodGroupSchedulingCycle) gets no PostFilter, as
// in schedulingAlgorithm.
//
// Explaining a pod, Filter runs on every node, to list them all; the
// nodes the real cycle would reach are marked. Placing pods (what-if,
// scenarios) searches as the real cycle does: from the start index, until
// numFeasibleNodesToFind nodes fit, and the next pod's search starts
// after the nodes this one processed. Below 100 nodes that is every node;
// above, the pod goes to the best of the nodes the real cycle would have
// looked at.
func (rc *cycle) evaluateIn(ctx context.Context, state fwk.CycleState, pod *v1.Pod) (*PodAnswer, *fwk.Status, error) {
	fw := rc.fw
	out := &PodAnswer{Pod: pod}
	numAll := rc.snapshot.NumNodesInPlacement()
	if numAll == 0 {
		status := fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithError(scheduler.ErrNoNodesAvailable)
		out.Message = scheduler.FailedSchedulingMessage(status)
		return out, status, nil
	}
	start := rc.startIndex()
	rejectedBy := map[string]string{}
	f, err := rc.algorithm.FilterPass(ctx, fw, state, &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: pod}},
		scheduler.Search{EveryNode: !rc.placing, ExtenderRejections: rejectedBy})
	if err != nil {
		return nil, nil, err
	}
	feasible := f.Feasible
	if f.Nodes != nil {
		// Filter runs in parallel: the feasible nodes in the snapshot's
		// order.
		order := make(map[string]int, len(f.Nodes))
		for i, n := range f.Nodes {
			order[n.Node().Name] = i
		}
		slices.SortFunc(feasible, func(a, b fwk.NodeInfo) int {
			return cmp.Compare(order[a.Node().Name], order[b.Node().Name])
		})
		out.NumFeasibleNodesToFind, out.StartNode = rc.sampling(f.Nodes, start)
		var sampled map[string]bool
		if !rc.placing {
			sampled = sampledNodes(f.Nodes, feasible, start, out.NumFeasibleNodesToFind)
		}
		if err := rc.rank(ctx, state, out, feasible, sampled); err != nil {
			return nil, nil, err
		}
	}
	if !rc.placing {
		out.Rejected = rejections(f.AllNodes, feasible, f.Diagnosis.NodeToStatus, rejectedBy)
	}
	if len(feasible) > 0 {
		out.SelectedNode = out.Feasible[0].Name
		return out, nil, nil
	}

	fitErr := &framework.FitError{Pod: pod, NumAllNodes: numAll, Diagnosis: f.Diagnosis}
	if fw.HasPostFilterPlugins() && !state.IsPodGroupSchedulingCycle() {
		out.Preemption = rc.dryRunPreemption(ctx, state, pod, f.Diagnosis.NodeToStatus)
		fitErr.Diagnosis.PostFilterMsg = out.Preemption.Message
	}
	status := fwk.NewStatus(fwk.Unschedulable).WithError(fitErr)
	out.Message = scheduler.FailedSchedulingMessage(status)
	return out, status, nil
}

// rank scores the feasible nodes as the cycle does (Algorithm.Prioritize) and
// orders them as it picks: highest total first. A feasible nominated node
// is picked without scoring, as the cycle does; so is a single node.
func (rc *cycle) rank(ctx context.Context, state fwk.CycleState, out *PodAnswer, feasible []fwk.NodeInfo, sampled map[string]bool) error {
	pod := out.Pod
	if len(feasible) == 0 {
		return nil
	}
	var scores []fwk.NodePluginScores
	if len(feasible) > 1 {
		var err error
		scores, err = rc.algorithm.Prioritize(ctx, rc.fw, state, pod, feasible)
		if err != nil {
			return err
		}
	} else {
		scores = []fwk.NodePluginScores{{Name: feasible[0].Node().Name}}
	}
	nominated := pod.Status.NominatedNodeName
	// A total order (node names are unique): an unstable sort gives the
	// same answer, faster.
	slices.SortFunc(scores, func(a, b fwk.NodePluginScores) int {
		switch {
		case a.Name == nominated:
			return -1
		case b.Name == nominated:
			return 1
		}
		if c := cmp.Compare(b.TotalScore, a.TotalScore); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	// The details of the listed nodes in one allocation: a slice and a
	// map per feasible node were most of what a review allocated.
	detailed := len(scores)
	if rc.scoredNodes > 0 {
		detailed = min(detailed, rc.scoredNodes)
	}
	n := 0
	for _, ns := range scores[:detailed] {
		n += len(ns.Scores)
	}
	details := make([]ScoreDetail, n)
	out.Feasible = make([]NodeResult, len(scores))
	for i, ns := range scores {
		res := &out.Feasible[i]
		*res = NodeResult{Name: ns.Name, Total: ns.TotalScore, Sampled: sampled[ns.Name]}
		if i >= detailed || len(ns.Scores) == 0 {
			continue
		}
		res.Scores, details = details[:len(ns.Scores):len(ns.Scores)], details[len(ns.Scores):]
		for j, sc := range ns.Scores {
			d := ScoreDetail{Name: sc.Name, Weighted: sc.Score}
			if r, ok := rawScore(ns.RawScores, j, sc.Name); ok {
				d.Raw, d.Weight = r, rc.weights[sc.Name]
				if d.Weight > 0 {
					d.Normalized = sc.Score / int64(d.Weight)
				}
			} else {
				d.Extender = true
			}
			res.Scores[j] = d
		}
	}
	if len(scores) > 1 && scores[0].Name != nominated {
		tied := 1
		for tied < len(scores) && scores[tied].TotalScore == scores[0].TotalScore {
			tied++
		}
		if tied > 1 {
			out.Tied = tied
		}
	}
	return nil
}

// rawScore is the raw score of plugin among a node's raw scores. The
// framework lists them in the order of the weighted scores (whose
// extenders' scores come last and have no raw score), so it is at index i;
// it is looked for by name otherwise.
func rawScore(raw []fwk.PluginScore, i int, plugin string) (int64, bool) {
	if i < len(raw) && raw[i].Name == plugin {
		return raw[i].Score, true
	}
	for _, r := range raw {
		if r.Name == plugin {
			return r.Score, true
		}
	}
	return 0, false
}

// sampling returns how many feasible nodes the real cycle looks for and
// the node it would start from (start).
func (rc *cycle) sampling(nodes []fwk.NodeInfo, start int) (int, string) {
	n := rc.algorithm.NumFeasibleNodesToFind(rc.fw, len(nodes))
	if len(nodes) == 0 {
		return n, ""
	}
	return n, nodes[start%len(nodes)].Node().Name
}

// sampledNodes marks the feasible nodes the real cycle would reach: the
// first numToFind of them going round from the start index.
func sampledNodes(nodes, feasible []fwk.NodeInfo, start, numToFind int) map[string]bool {
	fits := make(map[string]bool, len(feasible))
	for _, n := range feasible {
		fits[n.Node().Name] = true
	}
	out := make(map[string]bool, numToFind)
	for i := 0; i < len(nodes) && len(out) < numToFind; i++ {
		name := nodes[(start+i)%len(nodes)].Node().Name
		if fits[name] {
			out[name] = true
		}
	}
	return out
}

// rejections lists every node that does not fit, by name, with the status
// that rejected it: its own, or the status of the nodes no plugin looked at.
func rejections(allNodes, feasible []fwk.NodeInfo, statuses *framework.NodeToStatus, rejectedBy map[string]string) []NodeRejection {
	fits := make(map[string]bool, len(feasible))
	for _, n := range feasible {
		fits[n.Node().Name] = true
	}
	out := make([]NodeRejection, 0, len(allNodes)-len(feasible))
	for _, n := range allNodes {
		name := n.Node().Name
		if fits[name] {
			continue
		}
		st := statuses.Get(name)
		r := NodeRejection{Node: name, Plugin: st.Plugin(), Reasons: st.Reasons(), Unresolvable: st.Code() == fwk.UnschedulableAndUnresolvable}
		if e, ok := rejectedBy[name]; ok {
			r.Plugin = e
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b NodeRejection) int { return cmp.Compare(a.Node, b.Node) })
	return out
}
