package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	v1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedulingapi "k8s.io/kubernetes/pkg/apis/scheduling"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util"
)

// The pod-group cycle (GenericWorkload), ported from upstream's
// schedule_one_podgroup.go for leaf pod groups (CompositePodGroup and
// TopologyAwareWorkloadScheduling are refused at start): the members are
// placed one after the other on the cycle's snapshot, each assumed there
// and reserved for the next to see, while the PlacementFeasible plugins
// (GangScheduling: minCount) say whether the group can still make it.
// Then every simulated assumption is reverted. If the group fits, each
// member is assumed in the cache, reserved and permitted for real and its
// binding cycle starts; if it does not, the PodGroupPostFilter plugins
// (workload-aware preemption) may nominate nodes, and every member goes
// back to the queue with upstream's event, condition and message. The
// whole cycle, and every member's binding, runs on the one profile
// generation that was serving when the group was popped.

// errPodGroupUnschedulable says the pod group as a whole did not fit.
var errPodGroupUnschedulable = errors.New("pod group is unschedulable")

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

// scheduleOnePodGroup runs the pod-group cycle for a popped group.
func (s *Scheduler) scheduleOnePodGroup(ctx context.Context, pgi *framework.QueuedPodGroupInfo) {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "podGroupType", pgi.GetType(), "podGroup", klog.KObj(pgi))
	ctx = klog.NewContext(ctx, logger)
	start := time.Now()

	if err := s.cache.UpdateSnapshot(logger, s.snapshot); err != nil {
		logger.Error(err, "Error updating snapshot")
		s.handlePodGroupFailureBeforeScheduling(ctx, pgi, err)
		return
	}
	// The group popped from the queue may carry an older PodGroup: the
	// cycle uses the snapshot's.
	if err := s.reconcilePodGroupWithSnapshot(pgi.PodGroupInfo); err != nil {
		pgi.PodGroup = nil
		s.handlePodGroupFailureBeforeScheduling(ctx, pgi, err)
		return
	}
	schedulerName, err := s.validatePodGroup(pgi)
	if err != nil {
		s.handlePodGroupFailureBeforeScheduling(ctx, pgi, err)
		return
	}
	prof := s.acquireProfile(schedulerName)
	if prof == nil {
		// Removed since validatePodGroup saw it.
		s.handlePodGroupFailureBeforeScheduling(ctx, pgi, errProfileNotFound(schedulerName))
		return
	}
	defer prof.release(logger)

	s.skipPodGroupPodSchedule(ctx, prof.fw, pgi)
	if len(pgi.QueuedPodInfos) == 0 {
		return
	}
	logger.V(3).Info("Attempting to schedule pod group", "podGroupType", pgi.GetType(), "podGroup", klog.KObj(pgi))
	s.podGroupCycle(ctx, prof, framework.NewCycleState(), pgi, start)
}

// reconcilePodGroupWithSnapshot replaces the group's PodGroup with the
// snapshot's.
func (s *Scheduler) reconcilePodGroupWithSnapshot(pgi *framework.PodGroupInfo) error {
	pg, err := s.snapshot.PodGroups().Get(pgi.Namespace, pgi.Name)
	if err != nil {
		return err
	}
	pgi.PodGroup = pg
	return nil
}

// handlePodGroupFailureBeforeScheduling fails every member with err, on
// the framework serving each, and sets the PodGroup's condition.
func (s *Scheduler) handlePodGroupFailureBeforeScheduling(ctx context.Context, pgi *framework.QueuedPodGroupInfo, err error) {
	logger := klog.FromContext(ctx)
	pgi.ForEachPodInfo(func(p *framework.QueuedPodInfo) bool {
		prof := s.acquireProfile(p.Pod.Spec.SchedulerName)
		if prof == nil {
			logger.V(3).Info("No profile serves the pod any more, dropping it from the queue", "pod", klog.KObj(p.Pod), "schedulerName", p.Pod.Spec.SchedulerName)
			s.queue.Done(p.Pod.UID)
			return true
		}
		s.handleSchedulingFailure(ctx, prof.fw, p, fwk.AsStatus(err), clearNominatedNode, time.Now())
		prof.release(logger)
		return true
	})
	if pgi.PodGroup != nil {
		s.updatePodGroupCondition(ctx, pgi.PodGroupInfo, &metav1.Condition{
			Type:    schedulingapi.PodGroupInitiallyScheduled,
			Status:  metav1.ConditionFalse,
			Reason:  schedulingapi.PodGroupReasonSchedulerError,
			Message: err.Error(),
		})
	}
}

// errProfileNotFound is upstream's error for a group whose schedulerName no
// profile serves.
func errProfileNotFound(schedulerName string) error {
	return fmt.Errorf("profile not found for scheduler name %q", schedulerName)
}

// validatePodGroup checks, as upstream, that every member (queued or
// already scheduled) has the same schedulerName, the group's priority and
// the group's preemption policy, and that a profile serves that name; it
// returns the schedulerName.
func (s *Scheduler) validatePodGroup(pgi *framework.QueuedPodGroupInfo) (string, error) {
	return validatePodGroup(pgi, s.snapshot.PodGroupStates(), s.Serving)
}

// validatePodGroup validates pgi against the pod-group states of a
// snapshot; serving says whether a profile serves a schedulerName.
func validatePodGroup(pgi *framework.QueuedPodGroupInfo, states fwk.PodGroupStateLister, serving func(string) bool) (string, error) {
	schedulerName := ""
	groupPriority := pgi.GetPriority()
	policyGate := utilfeature.DefaultFeatureGate.Enabled(features.PodGroupPreemptionPolicy)
	var groupPolicy v1.PreemptionPolicy
	if policyGate {
		groupPolicy = podGroupPreemptionPolicy(pgi)
	}
	validatePod := func(pod *v1.Pod) error {
		if pod.Spec.SchedulerName != schedulerName {
			return fmt.Errorf("all pods in a single pod group should have the same .spec.schedulerName set, got: %q and %q", pod.Spec.SchedulerName, schedulerName)
		}
		if p := corev1helpers.PodPriority(pod); p != groupPriority {
			return fmt.Errorf("all pods in a single pod group should have the same priority as the pod group's priority, got %d and %d", p, groupPriority)
		}
		policy := podPreemptionPolicy(pod)
		if policyGate {
			if policy != groupPolicy {
				return fmt.Errorf("all pods in a single pod group should have the same preemption policy as the pod group's preemption policy, got %v and %v", policy, groupPolicy)
			}
		} else if groupPolicy == "" {
			groupPolicy = policy
		} else if policy != groupPolicy {
			return fmt.Errorf("all pods in a single pod group should have the same preemption policy, got %v and %v", policy, groupPolicy)
		}
		return nil
	}
	var err error
	pgi.ForEachPodInfo(func(p *framework.QueuedPodInfo) bool {
		if schedulerName == "" {
			schedulerName = p.Pod.Spec.SchedulerName
		}
		err = validatePod(p.Pod)
		return err == nil
	})
	if err != nil {
		return "", err
	}
	state, err := states.Get(pgi.Namespace, pgi.Name)
	if err != nil {
		return "", fmt.Errorf("failed to get pod group state: %w", err)
	}
	for _, pod := range state.ScheduledPods() {
		if err := validatePod(pod); err != nil {
			return "", err
		}
	}
	if !serving(schedulerName) {
		return "", errProfileNotFound(schedulerName)
	}
	return schedulerName, nil
}

// podGroupPreemptionPolicy is the group's preemption policy, by default
// PreemptLowerPriority.
func podGroupPreemptionPolicy(pgi *framework.QueuedPodGroupInfo) v1.PreemptionPolicy {
	if pg := pgi.PodGroup; pg != nil && pg.Spec.PreemptionPolicy != nil {
		return v1.PreemptionPolicy(*pg.Spec.PreemptionPolicy)
	}
	return v1.PreemptLowerPriority
}

// podPreemptionPolicy is the pod's preemption policy, by default
// PreemptLowerPriority.
func podPreemptionPolicy(pod *v1.Pod) v1.PreemptionPolicy {
	if pod != nil && pod.Spec.PreemptionPolicy != nil {
		return *pod.Spec.PreemptionPolicy
	}
	return v1.PreemptLowerPriority
}

// skipPodGroupPodSchedule drops the members that are being deleted or
// already assumed, as a pod cycle skips them.
func (s *Scheduler) skipPodGroupPodSchedule(ctx context.Context, fw framework.Framework, pgi *framework.QueuedPodGroupInfo) {
	for key, infos := range pgi.QueuedPodInfos {
		kept := make([]*framework.QueuedPodInfo, 0, len(infos))
		for _, p := range infos {
			if s.skipPodSchedule(ctx, fw, p.Pod) {
				s.queue.Done(p.Pod.UID)
				continue
			}
			kept = append(kept, p)
		}
		if len(kept) == len(infos) {
			continue
		}
		if len(kept) == 0 {
			delete(pgi.QueuedPodInfos, key)
		} else {
			pgi.QueuedPodInfos[key] = kept
		}
		pgi.UnscheduledPods = make([]*v1.Pod, 0, len(kept))
		for _, p := range kept {
			pgi.UnscheduledPods = append(pgi.UnscheduledPods, p.Pod)
		}
	}
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

// podGroupCycle runs the algorithm on the snapshot, the PodGroupPostFilter
// plugins when the group does not fit, and submits the result.
func (s *Scheduler) podGroupCycle(ctx context.Context, prof *liveProfile, cycleState *framework.CycleState, pgi *framework.QueuedPodGroupInfo, start time.Time) {
	fw := prof.fw
	result, rootStatus := runPodGroupAlgorithm(ctx, s, fw, cycleState, pgi)

	metrics.PodGroupSchedulingAlgorithmLatency.Observe(metrics.SinceInSeconds(start))

	runPodGroupPostFilter(ctx, s, fw, cycleState, pgi, result, rootStatus, fw.RunPodGroupPostFilterPlugins)
	s.submitPodGroupAlgorithmResult(ctx, prof, pgi, result, start)
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

var _ podGroupPlacer = &Scheduler{}

func (s *Scheduler) podGroupStates() fwk.PodGroupStateLister { return s.snapshot.PodGroupStates() }

// podGroupPostFilterFunc runs the PodGroupPostFilter plugins: the
// framework's in the live cycle, a dry run in a review.
type podGroupPostFilterFunc func(ctx context.Context, state *framework.CycleState, pgi fwk.PodGroupInfo, schedule fwk.PodGroupSchedulingFunc) (*fwk.PodGroupPostFilterResult, *fwk.Status)

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
func runPodGroupPostFilter(ctx context.Context, pl podGroupPlacer, fw framework.Framework, cycleState *framework.CycleState, pgi *framework.QueuedPodGroupInfo, result *podGroupAlgorithmResult, rootStatus *fwk.Status, postFilter podGroupPostFilterFunc) {
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

// submitPodGroupAlgorithmResult acts on the group's result: if it fits,
// every placed member is assumed, reserved and permitted in the cache and
// its binding cycle starts on the same profile generation; otherwise every
// member goes back to the queue with its status. The PodGroup gets its
// condition.
func (s *Scheduler) submitPodGroupAlgorithmResult(ctx context.Context, prof *liveProfile, pgi *framework.QueuedPodGroupInfo, result *podGroupAlgorithmResult, start time.Time) {
	logger := klog.FromContext(ctx)
	fw := prof.fw
	infos := pgi.QueuedPodInfos[pgKey(result.podGroupInfo)]
	if len(result.podResults) != len(infos) {
		logger.Error(errors.New("some pods were not processed"), "Scheduling error for pod group", "podGroup", klog.KObj(result.podGroupInfo))
		result.status = fwk.NewStatus(fwk.Error, "scheduling error for pod group, some pods were not processed")
		result.podResults = nil
		completePodGroupAlgorithmResult(ctx, infos, framework.NewCycleState(), result)
	}
	var scheduledPods, unschedulablePods int
	for i, p := range infos {
		podResult := result.podResults[i]
		podCtx := podResult.podCtx
		ctx := klog.NewContext(ctx, podCtx.logger)
		podStart := time.Now().Add(-podResult.schedulingDuration)

		if status, nominatingInfo := podGroupMemberFailure(result, i); status != nil {
			s.handleSchedulingFailure(ctx, fw, p, status, nominatingInfo, podStart)
			if !result.status.IsError() {
				unschedulablePods++
			}
			continue
		}
		podCtx.state.SetPodGroupSchedulingCycle(nil)
		assumed, status := s.prepareForBindingCycle(ctx, podCtx.state, fw, p, podCtx.podsToActivate, podResult.scheduleResult)
		if !status.IsSuccess() {
			s.handleSchedulingFailure(ctx, fw, p, status, clearNominatedNode, podStart)
			unschedulablePods++
			continue
		}
		prof.addRef()
		s.running.Add(1)
		go func() {
			defer s.running.Done()
			defer prof.release(podCtx.logger)
			s.runBindingCycle(ctx, podCtx.state, fw, prof.check, podResult.scheduleResult, assumed, podStart, podCtx.podsToActivate)
		}()
		scheduledPods++
	}

	pgName := klog.KObj(result.podGroupInfo)
	condition := podGroupCondition(result.status)
	switch {
	case result.status.IsSuccess():
		logger.V(2).Info("Successfully scheduled a pod group", "podGroup", pgName, "scheduledPods", scheduledPods, "unschedulablePods", unschedulablePods)
		metrics.PodGroupScheduled(fw.ProfileName(), metrics.SinceInSeconds(start))
	case result.status.IsRejected():
		if result.waitingOnPreemption {
			logger.V(2).Info("Pod group is waiting for preemption", "podGroup", pgName, "unschedulablePods", unschedulablePods, "err", result.status.Message())
			metrics.PodGroupWaitingOnPreemption(fw.ProfileName(), metrics.SinceInSeconds(start))
		} else {
			logger.V(2).Info("Unable to schedule a pod group", "podGroup", pgName, "unschedulablePods", unschedulablePods, "err", result.status.Message())
			metrics.PodGroupUnschedulable(fw.ProfileName(), metrics.SinceInSeconds(start))
		}
	default:
		utilruntime.HandleErrorWithContext(ctx, result.status.AsError(), "Error scheduling pod group", "podGroup", pgName, "errorPods", len(infos))
		metrics.PodGroupScheduleError(fw.ProfileName(), metrics.SinceInSeconds(start))
	}
	s.updatePodGroupCondition(ctx, result.podGroupInfo, condition)
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

// podGroupCondition is the PodGroupInitiallyScheduled condition the cycle
// writes for the group's status.
func podGroupCondition(status *fwk.Status) *metav1.Condition {
	switch {
	case status.IsSuccess():
		return &metav1.Condition{Type: schedulingapi.PodGroupInitiallyScheduled, Status: metav1.ConditionTrue, Reason: "Scheduled", Message: status.Message()}
	case status.IsRejected():
		return &metav1.Condition{Type: schedulingapi.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse, Reason: schedulingapi.PodGroupReasonUnschedulable, Message: status.Message()}
	default:
		return &metav1.Condition{Type: schedulingapi.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse, Reason: schedulingapi.PodGroupReasonSchedulerError, Message: status.AsError().Error()}
	}
}

// updatePodGroupCondition patches condition on the PodGroup; a group once
// scheduled does not go back to False.
func (s *Scheduler) updatePodGroupCondition(ctx context.Context, pgi *framework.PodGroupInfo, condition *metav1.Condition) {
	pg := pgi.PodGroup
	existing := apimeta.FindStatusCondition(pg.Status.Conditions, condition.Type)
	if existing != nil && existing.Status == metav1.ConditionTrue && condition.Status != metav1.ConditionTrue {
		return
	}
	condition.ObservedGeneration = pg.Generation
	newStatus := pg.Status.DeepCopy()
	if !apimeta.SetStatusCondition(&newStatus.Conditions, *condition) {
		return
	}
	if err := util.PatchPodGroupStatus(ctx, s.client, pgi.Name, pgi.Namespace, &pg.Status, newStatus); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to update PodGroup status", "podGroup", klog.KObj(pgi))
	}
}

// pgKey is the key of a group in QueuedPodInfos.
func pgKey(pgi *framework.PodGroupInfo) fwk.EntityKey {
	return fwk.PodGroupKey(pgi.Namespace, pgi.Name)
}
