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
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/parallelize"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// The algorithm picks a node for one pod on a snapshot: PreFilter, Filter
// (from a rotating start index until enough nodes fit), the extenders'
// filter, Score and the pick, as upstream lays it out in algorithm.go. It
// does not interact with the scheduling queue, run binding, or handle
// scheduling failures: those stay with the cycle (schedule_one.go). The
// live cycle runs it on the scheduler's snapshot; a review runs the same
// code on a snapshot of its own (Algorithm, package review), so an explanation
// cannot drift from what the scheduler does.

const (
	// minFeasibleNodesToFind and minFeasibleNodesPercentageToFind bound how
	// few nodes a cycle looks at, as upstream.
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// ErrNoNodesAvailable is the failure when the cluster has no node.
var ErrNoNodesAvailable = errors.New("no nodes available to schedule pods")

// algorithm is the state the algorithm keeps between pods: the snapshot
// it reads (and a pod-group cycle assumes members on) and where the next
// Filter pass starts. Passes on one algorithm take turns: the live one
// runs on the scheduling loop alone, a review's on the review alone.
type algorithm struct {
	snapshot *internalcache.Snapshot
	// percentageOfNodesToScore is the scheduler's, for profiles that set
	// none.
	percentageOfNodesToScore int32
	// nextStartNodeIndex is where the next Filter pass starts; every pass
	// moves it on by the nodes it processed. The live one is read by
	// reviews, which start from it.
	nextStartNodeIndex *atomic.Int64
	// schedulingCycle numbers the scheduling cycles, for opportunistic
	// batching; nil (reviews): no batching.
	schedulingCycle func() int64
}

// scheduleResult is the outcome of the scheduling algorithm for one pod.
type scheduleResult struct {
	suggestedHost  string
	evaluatedNodes int
	feasibleNodes  int
	nominatingInfo *fwk.NominatingInfo
}

// newFitError is the error of a cycle that found no feasible node.
func newFitError(pod *v1.Pod, numAllNodes int, diagnosis framework.Diagnosis) *framework.FitError {
	return &framework.FitError{Pod: pod, NumAllNodes: numAllNodes, Diagnosis: diagnosis}
}

func (a *algorithm) schedulePod(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) (scheduleResult, error) {
	pod := podInfo.Pod
	if a.snapshot.NumNodesInPlacement() == 0 {
		return scheduleResult{}, ErrNoNodesAvailable
	}
	feasible, diagnosis, nodeHint, err := a.findNodesThatFitPod(ctx, fw, state, podInfo)
	if err != nil {
		return scheduleResult{}, err
	}
	if len(feasible) == 0 {
		return scheduleResult{}, newFitError(pod, a.snapshot.NumNodesInPlacement(), diagnosis)
	}
	batching := utilfeature.DefaultFeatureGate.Enabled(features.OpportunisticBatching) && a.schedulingCycle != nil
	if len(feasible) == 1 {
		node := feasible[0].Node().Name
		if batching {
			fw.StoreScheduleResults(ctx, podInfo.PodSignature, nodeHint, node, nil, a.schedulingCycle())
		}
		return scheduleResult{suggestedHost: node, evaluatedNodes: 1 + diagnosis.NodeToStatus.Len(), feasibleNodes: 1}, nil
	}
	scores, err := prioritizeNodes(ctx, fw, state, pod, feasible)
	if err != nil {
		return scheduleResult{}, err
	}
	sorted := framework.NewSortedScoredNodes(scores)
	node := sorted.Pop().Name
	if batching {
		fw.StoreScheduleResults(ctx, podInfo.PodSignature, nodeHint, node, sorted, a.schedulingCycle())
	}
	return scheduleResult{
		suggestedHost:  node,
		evaluatedNodes: len(feasible) + diagnosis.NodeToStatus.Len(),
		feasibleNodes:  len(feasible),
	}, nil
}

// Search says how a filter pass looks at the nodes. The zero value is
// the live cycle's search.
type Search struct {
	// EveryNode: Filter looks at every node PreFilter leaves, from the
	// first, and the start index stays where it is; no nominated node is
	// tried first. A review that explains a pod lists every node.
	EveryNode bool
	// ExtenderRejections, when set, is given each node a filter extender
	// rejected, by the extender's name, and an extender's error names it:
	// a review says which extender rejected a node.
	ExtenderRejections map[string]string
}

// Fit is a filter pass's outcome.
type Fit struct {
	// Nodes are the nodes Filter looked at (all of them, or those a
	// PreFilterResult names), nil when PreFilter rejected the pod (the
	// diagnosis then says why); AllNodes are the snapshot's.
	Nodes, AllNodes []fwk.NodeInfo
	// Feasible passed Filter and the extenders' filter.
	Feasible  []fwk.NodeInfo
	Diagnosis framework.Diagnosis
	nodeHint  string
}

// findNodesThatFitPod runs PreFilter, Filter (in parallel, from a rotating
// start index, stopping at numFeasibleNodesToFind) and the extenders' filter.
func (a *algorithm) findNodesThatFitPod(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) ([]fwk.NodeInfo, framework.Diagnosis, string, error) {
	f, err := a.filterPass(ctx, fw, state, podInfo, Search{})
	return f.Feasible, f.Diagnosis, f.nodeHint, err
}

// filterPass is findNodesThatFitPod searching as s says. The live cycle
// and the reviews run it: one copy of the part that must never differ.
func (a *algorithm) filterPass(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo, s Search) (Fit, error) {
	pod := podInfo.Pod
	var f Fit
	var err error
	f.Nodes, f.AllNodes, f.Diagnosis, err = runPreFilter(ctx, fw, state, pod, a.snapshot)
	if err != nil || f.Nodes == nil {
		return f, err
	}

	if utilfeature.DefaultFeatureGate.Enabled(features.OpportunisticBatching) && a.schedulingCycle != nil {
		f.nodeHint = fw.GetNodeHint(ctx, pod, podInfo.PodSignature, state, a.schedulingCycle())
	}
	// A nominated node (from preemption) or a batching hint is tried first.
	if !s.EveryNode && (pod.Status.NominatedNodeName != "" || f.nodeHint != "") {
		feasible, err := a.evaluateNominatedNode(ctx, pod, fw, state, f.nodeHint, f.Diagnosis)
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Evaluation failed on nominated node", "node", pod.Status.NominatedNodeName)
		}
		if len(feasible) != 0 {
			f.Feasible = feasible
			return f, nil
		}
	}

	var feasible []fwk.NodeInfo
	if s.EveryNode {
		feasible, err = filterNodes(ctx, fw, state, pod, &f.Diagnosis, f.Nodes, 0, int32(len(f.Nodes)))
	} else {
		feasible, err = a.findNodesThatPassFilters(ctx, fw, state, pod, &f.Diagnosis, f.Nodes)
		processed := len(feasible) + f.Diagnosis.NodeToStatus.Len()
		a.nextStartNodeIndex.Store(int64((int(a.nextStartNodeIndex.Load()) + processed) % len(f.AllNodes)))
	}
	if err != nil {
		return f, err
	}
	afterExtenders := feasible
	// One extender at a time, as findNodesThatPassExtenders calls them,
	// to know which one rejected a node.
	for _, e := range fw.Extenders() {
		before := afterExtenders
		afterExtenders, err = findNodesThatPassExtenders(ctx, []fwk.Extender{e}, pod, before, f.Diagnosis.NodeToStatus)
		if err != nil {
			if s.ExtenderRejections != nil {
				err = fmt.Errorf("extender %s: %w", e.Name(), err)
			}
			return f, err
		}
		if s.ExtenderRejections != nil && len(afterExtenders) != len(before) {
			kept := make(map[string]bool, len(afterExtenders))
			for _, n := range afterExtenders {
				kept[n.Node().Name] = true
			}
			for _, n := range before {
				if !kept[n.Node().Name] {
					s.ExtenderRejections[n.Node().Name] = e.Name()
				}
			}
		}
	}
	if len(afterExtenders) != len(feasible) {
		// Extenders have no queueing hints: any event may help.
		if f.Diagnosis.UnschedulablePlugins == nil {
			f.Diagnosis.UnschedulablePlugins = sets.New[string]()
		}
		f.Diagnosis.UnschedulablePlugins.Insert(framework.ExtenderName)
	}
	f.Feasible = afterExtenders
	return f, nil
}

// runPreFilter runs the PreFilter plugins and returns the nodes Filter
// must look at (all nodes of the snapshot, or those a PreFilterResult
// names), and all nodes. nodes is nil when PreFilter rejected the pod; the
// diagnosis then says why. A review runs it on its own snapshot.
func runPreFilter(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, snapshot *internalcache.Snapshot) (nodes, allNodes []fwk.NodeInfo, diagnosis framework.Diagnosis, err error) {
	logger := klog.FromContext(ctx)
	diagnosis = framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	allNodes, err = snapshot.ListNodesInPlacement()
	if err != nil {
		return nil, nil, diagnosis, err
	}
	preRes, st, unschedulablePlugins := fw.RunPreFilterPlugins(ctx, state, pod)
	diagnosis.UnschedulablePlugins = unschedulablePlugins
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return nil, allNodes, diagnosis, st.AsError()
		}
		diagnosis.NodeToStatus.SetAbsentNodesStatus(st)
		diagnosis.PreFilterMsg = st.Message()
		logger.V(5).Info("Status after running PreFilter plugins for pod", "status", st.Message())
		diagnosis.AddPluginStatus(st)
		return nil, allNodes, diagnosis, nil
	}
	if preRes.AllNodes() {
		return allNodes, allNodes, diagnosis, nil
	}
	nodes = make([]fwk.NodeInfo, 0, len(preRes.NodeNames))
	for name := range preRes.NodeNames {
		if ni, err := snapshot.GetNodeInPlacement(name); err == nil {
			nodes = append(nodes, ni)
		}
	}
	diagnosis.NodeToStatus.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unschedulablePlugins))))
	return nodes, allNodes, diagnosis, nil
}

func (a *algorithm) evaluateNominatedNode(ctx context.Context, pod *v1.Pod, fw framework.Framework, state fwk.CycleState, nodeHint string, diagnosis framework.Diagnosis) ([]fwk.NodeInfo, error) {
	nnn := pod.Status.NominatedNodeName
	if nnn == "" {
		nnn = nodeHint
	}
	ni, err := a.snapshot.GetNodeInPlacement(nnn)
	if err != nil {
		if _, err := a.snapshot.Get(nnn); err != nil {
			return nil, err
		}
		return nil, nil
	}
	feasible, err := a.findNodesThatPassFilters(ctx, fw, state, pod, &diagnosis, []fwk.NodeInfo{ni})
	if err != nil {
		return nil, err
	}
	return findNodesThatPassExtenders(ctx, fw.Extenders(), pod, feasible, diagnosis.NodeToStatus)
}

func hasScoring(fw framework.Framework) bool {
	if fw.HasScorePlugins() {
		return true
	}
	for _, e := range fw.Extenders() {
		if e.IsPrioritizer() {
			return true
		}
	}
	return false
}

func hasExtenderFilters(fw framework.Framework) bool {
	for _, e := range fw.Extenders() {
		if e.IsFilter() {
			return true
		}
	}
	return false
}

func (a *algorithm) findNodesThatPassFilters(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, diagnosis *framework.Diagnosis, nodes []fwk.NodeInfo) ([]fwk.NodeInfo, error) {
	return filterNodes(ctx, fw, state, pod, diagnosis, nodes, int(a.nextStartNodeIndex.Load()), a.numNodesToFind(fw, int32(len(nodes))))
}

// numNodesToFind is how many feasible nodes end fw's search of
// numAllNodes nodes: numFeasibleNodesToFind, or 1 when nothing scores the
// nodes and no extender filters them.
func (a *algorithm) numNodesToFind(fw framework.Framework, numAllNodes int32) int32 {
	if !hasExtenderFilters(fw) && !hasScoring(fw) {
		return 1
	}
	return a.numFeasibleNodesToFind(fw.PercentageOfNodesToScore(), numAllNodes)
}

// filterNodes runs the Filter plugins (with nominated pods) on nodes in
// parallel, from startIndex on, until numNodesToFind nodes fit; rejected
// nodes get their status in diagnosis. A review runs it on every node.
func filterNodes(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, diagnosis *framework.Diagnosis, nodes []fwk.NodeInfo, startIndex int, numNodesToFind int32) ([]fwk.NodeInfo, error) {
	numAllNodes := len(nodes)
	feasible := make([]fwk.NodeInfo, numNodesToFind)
	if !fw.HasFilterPlugins() {
		for i := range feasible {
			feasible[i] = nodes[(startIndex+i)%numAllNodes]
		}
		return feasible, nil
	}

	errCh := parallelize.NewResultChannel[error]()
	var feasibleLen int32
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(errors.New("findNodesThatPassFilters has completed"))
	type nodeStatus struct {
		node   string
		status *fwk.Status
	}
	results := make([]*nodeStatus, numAllNodes)
	checkNode := func(i int) {
		ni := nodes[(startIndex+i)%numAllNodes]
		st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni)
		if st.Code() == fwk.Error {
			errCh.SendWithCancel(st.AsError(), func() { cancel(errors.New("some other Filter operation failed")) })
			return
		}
		if st.IsSuccess() {
			n := atomic.AddInt32(&feasibleLen, 1)
			if n > numNodesToFind {
				cancel(errors.New("findNodesThatPassFilters has found enough nodes"))
				atomic.AddInt32(&feasibleLen, -1)
			} else {
				feasible[n-1] = ni
			}
			return
		}
		results[i] = &nodeStatus{node: ni.Node().Name, status: st}
	}
	begin := time.Now()
	code := fwk.Success
	defer func() {
		metrics.FrameworkExtensionPointDuration.WithLabelValues(metrics.Filter, code.String(), fw.ProfileName()).Observe(metrics.SinceInSeconds(begin))
	}()
	fw.Parallelizer().Until(ctx, numAllNodes, checkNode, metrics.Filter)
	feasible = feasible[:feasibleLen]
	for _, r := range results {
		if r == nil {
			continue
		}
		diagnosis.NodeToStatus.Set(r.node, r.status)
		diagnosis.AddPluginStatus(r.status)
	}
	if err := errCh.Receive(); err != nil {
		code = fwk.Error
		return feasible, err
	}
	return feasible, nil
}

// numFeasibleNodesToFind is how many feasible nodes end the search: all of
// them below 100 nodes, else percentageOfNodesToScore (the profile's, else
// the scheduler's; 0 is adaptive), never fewer than 100.
func (a *algorithm) numFeasibleNodesToFind(profilePercentage *int32, numAllNodes int32) int32 {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	percentage := a.percentageOfNodesToScore
	if profilePercentage != nil {
		percentage = *profilePercentage
	}
	if percentage == 0 {
		percentage = int32(50) - numAllNodes/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	n := numAllNodes * percentage / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return n
}

// findNodesThatPassExtenders calls the interested extenders in order, each
// on the nodes the previous ones kept. An ignorable extender that fails is
// skipped; any other failure fails the cycle.
func findNodesThatPassExtenders(ctx context.Context, extenders []fwk.Extender, pod *v1.Pod, feasible []fwk.NodeInfo, statuses *framework.NodeToStatus) ([]fwk.NodeInfo, error) {
	logger := klog.FromContext(ctx)
	for _, e := range extenders {
		if len(feasible) == 0 {
			break
		}
		if !e.IsInterested(pod) {
			continue
		}
		kept, failed, failedAndUnresolvable, err := e.Filter(pod, feasible)
		if err != nil {
			if e.IsIgnorable() {
				logger.Info("Skipping extender as it returned error and has ignorable flag set", "extender", e.Name(), "err", err)
				continue
			}
			return nil, err
		}
		for node, msg := range failedAndUnresolvable {
			statuses.Set(node, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg))
		}
		for node, msg := range failed {
			if _, ok := failedAndUnresolvable[node]; ok {
				continue
			}
			statuses.Set(node, fwk.NewStatus(fwk.Unschedulable, msg))
		}
		feasible = kept
	}
	return feasible, nil
}

// pluginMetricsSamplePercent of cycles record per-plugin latency.
const pluginMetricsSamplePercent = 10

var clearNominatedNode = &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: ""}

// singleNodeFitError describes a rejection at Reserve, Permit or
// WaitOnPermit, where only the chosen node was involved.
func singleNodeFitError(pod *v1.Pod, node string, st *fwk.Status, addPluginStatus bool) *framework.FitError {
	fitErr := &framework.FitError{
		NumAllNodes: 1,
		Pod:         pod,
		Diagnosis:   framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()},
	}
	fitErr.Diagnosis.NodeToStatus.Set(node, st)
	if addPluginStatus {
		fitErr.Diagnosis.AddPluginStatus(st)
	} else {
		fitErr.Diagnosis.UnschedulablePlugins = sets.New(st.Plugin())
	}
	return fitErr
}

// FailedSchedulingMessage is the note of the FailedScheduling event for a
// failed cycle's status (reviews report the same text).
func FailedSchedulingMessage(status *fwk.Status) string {
	return truncateMessage(status.Message())
}

func truncateMessage(message string) string {
	limit := validation.NoteLengthLimit
	if len(message) <= limit {
		return message
	}
	suffix := " ..."
	return message[:limit-len(suffix)] + suffix
}
