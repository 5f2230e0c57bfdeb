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
	"math/rand"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// The pod-group algorithm, as upstream lays it out in
// algorithm_podgroup.go: the members of a group are placed one after the
// other on a snapshot, each assumed there for the next, while the
// PlacementFeasible plugins (GangScheduling: minCount) say whether the
// group can still make it; then every simulated assumption is reverted.
// It places members through a podGroupPlacer (the live scheduler, or a
// review on its own snapshot) and touches no queue, binding or failure
// handling: the cycle (schedule_one_podgroup.go) does.

// revertFns undoes, last first, what a simulated placement did.
type revertFns []func()

func (r *revertFns) append(other revertFns) { *r = append(*r, other...) }

func (r *revertFns) revert() {
	if r == nil {
		return
	}
	for i := len(*r) - 1; i >= 0; i-- {
		(*r)[i]()
		(*r)[i] = nil
	}
	*r = nil
}

// podSchedulingContext is what one attempt of one member uses.
type podSchedulingContext struct {
	logger         klog.Logger
	state          *framework.CycleState
	podsToActivate *framework.PodsToActivate
}

// initPodSchedulingContext starts a member's attempt: a cycle state marked
// as part of the pod-group cycle, with the placement's state.
func initPodSchedulingContext(ctx context.Context, pod *v1.Pod, placementCycleState *framework.CycleState) *podSchedulingContext {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "pod", klog.KObj(pod))
	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(rand.Intn(100) < pluginMetricsSamplePercent)
	podsToActivate := framework.NewPodsToActivate()
	state.Write(framework.PodsToActivateKey, podsToActivate)
	state.SetPodGroupSchedulingCycle(placementCycleState.GetPodGroupSchedulingCycle())
	state.SetPlacementCycleState(placementCycleState)
	return &podSchedulingContext{logger: logger, state: state, podsToActivate: podsToActivate}
}

// algorithmResult is one member's attempt.
type algorithmResult struct {
	podInfo            *framework.QueuedPodInfo
	scheduleResult     scheduleResult
	podCtx             *podSchedulingContext
	schedulingDuration time.Duration
	status             *fwk.Status
}

var _ fwk.ProposedAssignment = &algorithmResult{}

func (ar *algorithmResult) GetPod() *v1.Pod               { return ar.podInfo.Pod }
func (ar *algorithmResult) GetPodInfo() fwk.PodInfo       { return ar.podInfo }
func (ar *algorithmResult) GetNodeName() string           { return ar.scheduleResult.suggestedHost }
func (ar *algorithmResult) GetCycleState() fwk.CycleState { return ar.podCtx.state }

// podGroupAlgorithmResult is the group's attempt. status is Success when
// the group fits and needs no preemption, Unschedulable when it does not
// fit (waitingOnPreemption: preemption was started for it), Error when the
// attempt failed.
type podGroupAlgorithmResult struct {
	podGroupInfo        *framework.PodGroupInfo
	podResults          []algorithmResult
	status              *fwk.Status
	waitingOnPreemption bool
	placementCycleState fwk.PlacementCycleState
	anyScheduled        bool
}

// podGroupPlacer is what the pod-group algorithm places members with: the
// live scheduler (its cycle's snapshot, where members are assumed until
// the group fits, and its queue's nominations) or a review (the review's
// snapshot only). The algorithm's code is the same for both.
type podGroupPlacer interface {
	// podGroupStates are the snapshot's pod-group states.
	podGroupStates() fwk.PodGroupStateLister
	// schedulingAlgorithm finds a member's node (filter and score; a
	// member of a pod-group cycle gets no PostFilter).
	schedulingAlgorithm(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, start time.Time) (scheduleResult, *fwk.Status)
	// assumeAndReserve assumes a placed member on the snapshot for the
	// next members to see; unreserveAndForget reverts it.
	assumeAndReserve(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, result scheduleResult) (*framework.QueuedPodInfo, *fwk.Status)
	unreserveAndForget(ctx context.Context, state fwk.CycleState, fw framework.Framework, assumed *framework.QueuedPodInfo, node string) error
}

// PodGroupPostFilter runs the PodGroupPostFilter plugins when a group
// does not fit: the framework's in the live cycle, a dry run in a review.
type PodGroupPostFilter func(ctx context.Context, state *framework.CycleState, pgi fwk.PodGroupInfo, schedule fwk.PodGroupSchedulingFunc) (*fwk.PodGroupPostFilterResult, *fwk.Status)

// runPodGroupAlgorithm runs the algorithm for the group's queued members,
// every simulated assumption reverted, and gives the members it did not
// reach the group's status. It returns the root status too, which says
// whether the PodGroupPostFilter plugins run.
func runPodGroupAlgorithm(ctx context.Context, pl podGroupPlacer, fw framework.Framework, cycleState *framework.CycleState, pgi *framework.QueuedPodGroupInfo) (*podGroupAlgorithmResult, *fwk.Status) {
	key := pgKey(pgi.PodGroupInfo)
	result := runRootSchedulingAlgorithm(ctx, pl, fw, cycleState, pgi)
	rootStatus := result.status
	return completePodGroupAlgorithmResult(ctx, pgi.QueuedPodInfos[key], cycleState, result), rootStatus
}

// runPodGroupPostFilter runs postFilter when the group did not fit, with
// the algorithm as the function preemption checks its room with, and
// records what it did in result.
func runPodGroupPostFilter(ctx context.Context, pl podGroupPlacer, fw framework.Framework, cycleState *framework.CycleState, pgi *framework.QueuedPodGroupInfo, result *podGroupAlgorithmResult, rootStatus *fwk.Status, postFilter PodGroupPostFilter) {
	if rootStatus.Code() != fwk.Unschedulable {
		return
	}
	var schedule fwk.PodGroupSchedulingFunc = func(ctx context.Context) (*fwk.PodGroupAssignments, *fwk.Status) {
		res := runRootSchedulingAlgorithm(ctx, pl, fw, framework.NewCycleState(), pgi)
		return &fwk.PodGroupAssignments{ProposedAssignments: makeProposedAssignments(res)}, res.status
	}
	pfResult, status := postFilter(ctx, cycleState, pgi.PodGroupInfo, schedule)
	applyPodGroupPostFilterResult(result, pfResult, status)
}

// runRootSchedulingAlgorithm runs the algorithm and reverts every
// simulated assumption before it returns.
func runRootSchedulingAlgorithm(ctx context.Context, pl podGroupPlacer, fw framework.Framework, cycleState *framework.CycleState, pgi *framework.QueuedPodGroupInfo) *podGroupAlgorithmResult {
	result, reverts := podGroupSchedulingAlgorithm(ctx, pl, fw, cycleState, pgi.PodGroupInfo, pgi)
	defer reverts.revert()
	if result.status.IsSuccess() && !result.anyScheduled {
		// A group succeeds only with at least one pod placed.
		result.status = fwk.NewStatus(fwk.Unschedulable).WithError(errPodGroupUnschedulable)
	}
	return result
}

// podGroupSchedulingAlgorithm runs the default algorithm in one implicit
// placement.
func podGroupSchedulingAlgorithm(ctx context.Context, pl podGroupPlacer, fw framework.Framework, cycleState *framework.CycleState, pgi *framework.PodGroupInfo, queued *framework.QueuedPodGroupInfo) (*podGroupAlgorithmResult, revertFns) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	placementCycleState := framework.NewCycleState()
	placementCycleState.SetPodGroupSchedulingCycle(cycleState)
	return podGroupSchedulingDefaultAlgorithm(ctx, pl, fw, placementCycleState, pgi, queued)
}

// podGroupSchedulingDefaultAlgorithm places the queued members one after
// the other, in the group's order, each assumed and reserved on the
// snapshot for the next; PlacementFeasible plugins say, before and after
// each member, whether the group can still meet its constraints.
func podGroupSchedulingDefaultAlgorithm(ctx context.Context, pl podGroupPlacer, fw framework.Framework, placementCycleState *framework.CycleState, pgi *framework.PodGroupInfo, queued *framework.QueuedPodGroupInfo) (result *podGroupAlgorithmResult, reverts revertFns) {
	defer func() {
		if !result.status.IsSuccess() {
			reverts.revert()
			result.anyScheduled = false
		}
	}()
	infos := queued.QueuedPodInfos[pgKey(pgi)]
	result = &podGroupAlgorithmResult{
		podGroupInfo:        pgi,
		podResults:          make([]algorithmResult, 0, len(infos)),
		status:              fwk.NewStatus(fwk.Unschedulable).WithError(errPodGroupUnschedulable),
		placementCycleState: placementCycleState,
	}
	logger := klog.FromContext(ctx)
	logger.V(5).Info("Running a pod group scheduling algorithm", "podGroup", klog.KObj(pgi), "unscheduledPodsCount", len(infos))

	state, err := pl.podGroupStates().Get(pgi.Namespace, pgi.Name)
	if err != nil {
		result.status = fwk.AsStatus(fmt.Errorf("failed to get podGroup state for podGroup %s to compute gang feasibility: %w", klog.KObj(pgi), err))
		return result, nil
	}
	progress := framework.PlacementProgress{
		Remaining: len(pgi.GetUnscheduledPods()),
		Scheduled: state.ScheduledPodsCount(),
	}
	feasible := fw.RunPlacementFeasiblePlugins(ctx, placementCycleState, pgi, progress)
	result.status = feasible
	if feasible.IsError() {
		result.status = fwk.AsStatus(fmt.Errorf("failed to evaluate placement feasibility: %w", feasible.AsError()))
		return result, nil
	}
	if feasible.Code() == fwk.Unschedulable {
		result.status = fwk.NewStatus(fwk.Unschedulable, result.status.Reasons()...).WithError(errPodGroupUnschedulable)
		return result, nil
	}

	anyScheduled := false
	for _, p := range infos {
		podResult, revert := podGroupPodSchedulingAlgorithm(ctx, pl, fw, placementCycleState, pgi, p)
		result.podResults = append(result.podResults, podResult)
		if revert != nil {
			reverts.append(revertFns{revert})
		}
		if !podResult.status.IsSuccess() && !podResult.status.IsRejected() {
			result.status = fwk.AsStatus(fmt.Errorf("failed to schedule other pod from a pod group: %w", podResult.status.AsError()))
			break
		}
		progress.Remaining--
		if podResult.status.IsSuccess() {
			progress.Scheduled++
		}
		feasible := fw.RunPlacementFeasiblePlugins(ctx, placementCycleState, pgi, progress)
		if feasible.IsError() {
			result.status = fwk.AsStatus(fmt.Errorf("failed to evaluate placement feasibility: %w", feasible.AsError()))
			break
		}
		result.status = feasible
		if feasible.Code() == fwk.Unschedulable {
			break
		}
		anyScheduled = anyScheduled || podResult.status.IsSuccess()
	}
	if result.status.IsWait() {
		result.status = fwk.NewStatus(fwk.Unschedulable, result.status.Reasons()...).WithError(errPodGroupUnschedulable)
	}
	result.anyScheduled = anyScheduled
	return result, reverts
}

// podGroupPodSchedulingAlgorithm places one member on the snapshot and
// returns the function that reverts it.
func podGroupPodSchedulingAlgorithm(ctx context.Context, pl podGroupPlacer, fw framework.Framework, placementCycleState *framework.CycleState, pgi *framework.PodGroupInfo, p *framework.QueuedPodInfo) (algorithmResult, func()) {
	podCtx := initPodSchedulingContext(ctx, p.Pod, placementCycleState)
	ctx = klog.NewContext(ctx, podCtx.logger)
	start := time.Now()
	podCtx.logger.V(4).Info("Attempting to schedule a pod belonging to a pod group", "podGroup", klog.KObj(pgi))

	result, status := pl.schedulingAlgorithm(ctx, podCtx.state, fw, p, start)
	if !status.IsSuccess() {
		return algorithmResult{podInfo: p, scheduleResult: result, podCtx: podCtx, schedulingDuration: time.Since(start), status: status}, nil
	}
	assumed, assumeStatus := pl.assumeAndReserve(ctx, podCtx.state, fw, p, result)
	if !assumeStatus.IsSuccess() {
		return algorithmResult{podInfo: p, scheduleResult: scheduleResult{nominatingInfo: clearNominatedNode}, podCtx: podCtx, schedulingDuration: time.Since(start), status: assumeStatus}, nil
	}
	revert := func() {
		if err := pl.unreserveAndForget(ctx, podCtx.state, fw, assumed, result.suggestedHost); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "ForgetPod failed")
		}
	}
	return algorithmResult{podInfo: p, scheduleResult: result, podCtx: podCtx, schedulingDuration: time.Since(start), status: status}, revert
}

// completePodGroupAlgorithmResult gives the members the algorithm did not
// reach the group's status.
func completePodGroupAlgorithmResult(ctx context.Context, infos []*framework.QueuedPodInfo, cycleState *framework.CycleState, result *podGroupAlgorithmResult) *podGroupAlgorithmResult {
	if len(result.podResults) == len(infos) {
		return result
	}
	results := make([]algorithmResult, len(infos))
	copy(results, result.podResults)
	for i := len(result.podResults); i < len(infos); i++ {
		placementCycleState := framework.NewCycleState()
		placementCycleState.SetPodGroupSchedulingCycle(cycleState)
		results[i] = algorithmResult{
			podInfo: infos[i],
			podCtx:  initPodSchedulingContext(ctx, infos[i].Pod, placementCycleState),
			status:  result.status.Clone(),
		}
	}
	result.podResults = results
	return result
}

// applyPodGroupPostFilterResult records what the PodGroupPostFilter
// plugins did: nominated nodes when preemption started, their status in
// the group's.
func applyPodGroupPostFilterResult(result *podGroupAlgorithmResult, pfResult *fwk.PodGroupPostFilterResult, status *fwk.Status) {
	if status.IsSuccess() {
		result.waitingOnPreemption = true
		for j := range result.podResults {
			pod := result.podResults[j].podInfo.Pod
			if info, ok := pfResult.NominatingInfos[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}]; ok {
				result.podResults[j].scheduleResult.nominatingInfo = info
			}
		}
	}
	if status.IsError() {
		result.status = status
	} else {
		result.status.AppendReason(status.String())
	}
}

// makeProposedAssignments lists the members an attempt placed.
func makeProposedAssignments(res *podGroupAlgorithmResult) []fwk.ProposedAssignment {
	out := make([]fwk.ProposedAssignment, 0)
	for _, r := range res.podResults {
		if r.status.IsSuccess() && r.GetNodeName() != "" {
			out = append(out, &r)
		}
	}
	return out
}

// podGroupMemberFailure returns the status member i of the group's result
// fails with, and the nominating info it gets; a nil status when the
// member goes on to its binding cycle (the group fits and the member was
// placed).
func podGroupMemberFailure(result *podGroupAlgorithmResult, i int) (*fwk.Status, *fwk.NominatingInfo) {
	podResult := result.podResults[i]
	switch {
	case result.status.IsError():
		if podResult.status.IsError() {
			return podResult.status, clearNominatedNode
		}
		return result.status, clearNominatedNode
	case !podResult.status.IsSuccess():
		return podResult.status, podResult.scheduleResult.nominatingInfo
	case result.status.IsSuccess():
		return nil, nil
	case result.status.IsRejected():
		if result.waitingOnPreemption {
			return result.status, podResult.scheduleResult.nominatingInfo
		}
		return fwk.NewStatus(fwk.Unschedulable, result.status.Message()).WithError(errPodGroupUnschedulable), clearNominatedNode
	default:
		err := fmt.Errorf("received unexpected pod group scheduling algorithm status code: %s", result.status.Code())
		return fwk.AsStatus(err), clearNominatedNode
	}
}

// PodGroupPlacer places a group's members for the pod-group algorithm
// run beside the live cycle (RunPodGroupAlgorithm): a review, on a
// snapshot of its own. The live cycle places through the scheduler
// itself.
type PodGroupPlacer interface {
	// PodGroupStates are the snapshot's pod-group states.
	PodGroupStates() fwk.PodGroupStateLister
	// Place finds a member's node, filtering and scoring (a member of a
	// pod-group cycle gets no PostFilter); node is empty, and status says
	// why, when none fits. An error fails the member.
	Place(ctx context.Context, state fwk.CycleState, podInfo *framework.QueuedPodInfo) (node string, feasibleNodes int, status *fwk.Status, err error)
	// Assume puts a copy of a placed member on the snapshot, on node, for
	// the next members to see, and returns it; Forget takes it off again.
	Assume(podInfo *framework.QueuedPodInfo, node string) (*framework.QueuedPodInfo, error)
	Forget(ctx context.Context, assumed *framework.QueuedPodInfo) error
}

// placerOf is a PodGroupPlacer as the algorithm places with it.
type placerOf struct{ p PodGroupPlacer }

var _ podGroupPlacer = placerOf{}

func (pl placerOf) podGroupStates() fwk.PodGroupStateLister { return pl.p.PodGroupStates() }

func (pl placerOf) schedulingAlgorithm(ctx context.Context, state fwk.CycleState, _ framework.Framework, podInfo *framework.QueuedPodInfo, _ time.Time) (scheduleResult, *fwk.Status) {
	node, feasible, status, err := pl.p.Place(ctx, state, podInfo)
	if err != nil {
		return scheduleResult{nominatingInfo: clearNominatedNode}, fwk.AsStatus(err)
	}
	if node == "" {
		return scheduleResult{}, status
	}
	return scheduleResult{suggestedHost: node, feasibleNodes: feasible}, nil
}

func (pl placerOf) assumeAndReserve(_ context.Context, _ fwk.CycleState, _ framework.Framework, podInfo *framework.QueuedPodInfo, result scheduleResult) (*framework.QueuedPodInfo, *fwk.Status) {
	assumed, err := pl.p.Assume(podInfo, result.suggestedHost)
	if err != nil {
		return assumed, fwk.AsStatus(err)
	}
	return assumed, nil
}

func (pl placerOf) unreserveAndForget(ctx context.Context, _ fwk.CycleState, _ framework.Framework, assumed *framework.QueuedPodInfo, _ string) error {
	return pl.p.Forget(ctx, assumed)
}

// PodGroupResult is the pod-group algorithm's outcome for a group, every
// simulated assumption reverted.
type PodGroupResult struct{ r *podGroupAlgorithmResult }

// Status is the group's: Success when it fits, Unschedulable when it
// does not, Error when the attempt failed (PodGroupCondition reads it).
func (g *PodGroupResult) Status() *fwk.Status { return g.r.status }

// Node is the node the algorithm placed member i on, in the group's
// member order; empty if none.
func (g *PodGroupResult) Node(i int) string { return g.r.podResults[i].scheduleResult.suggestedHost }

// MemberFailure is the status member i fails with and the nominating
// info it gets, as the pod-group cycle reports them; a nil status when
// the member would be bound.
func (g *PodGroupResult) MemberFailure(i int) (*fwk.Status, *fwk.NominatingInfo) {
	return podGroupMemberFailure(g.r, i)
}

// RunPodGroupAlgorithm runs the pod-group cycle's algorithm for the
// group's queued members with pl, as the live cycle runs it. It returns
// the root status too, which says whether RunPodGroupPostFilter runs.
func RunPodGroupAlgorithm(ctx context.Context, pl PodGroupPlacer, fw framework.Framework, state *framework.CycleState, pgi *framework.QueuedPodGroupInfo) (*PodGroupResult, *fwk.Status) {
	r, root := runPodGroupAlgorithm(ctx, placerOf{pl}, fw, state, pgi)
	return &PodGroupResult{r: r}, root
}

// RunPodGroupPostFilter runs postFilter when the group did not fit, with
// the algorithm (over pl) as the function preemption checks its room
// with, and records what it did in result.
func RunPodGroupPostFilter(ctx context.Context, pl PodGroupPlacer, fw framework.Framework, state *framework.CycleState, pgi *framework.QueuedPodGroupInfo, result *PodGroupResult, root *fwk.Status, postFilter PodGroupPostFilter) {
	runPodGroupPostFilter(ctx, placerOf{pl}, fw, state, pgi, result.r, root, postFilter)
}

// errPodGroupUnschedulable says the pod group as a whole did not fit.
var errPodGroupUnschedulable = errors.New("pod group is unschedulable")

// pgKey is the key of a group in QueuedPodInfos.
func pgKey(pgi *framework.PodGroupInfo) fwk.EntityKey {
	return fwk.PodGroupKey(pgi.Namespace, pgi.Name)
}
