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
	"time"

	v1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
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
// TopologyAwareWorkloadScheduling are refused at start): the pod-group
// algorithm (algorithm_podgroup.go) places the members one after the
// other on the cycle's snapshot, each assumed there for the next to see,
// while the PlacementFeasible plugins (GangScheduling: minCount) say
// whether the group can still make it, then reverts every simulated
// assumption. If the group fits, each
// member is assumed in the cache, reserved and permitted for real and its
// binding cycle starts; if it does not, the PodGroupPostFilter plugins
// (workload-aware preemption) may nominate nodes, and every member goes
// back to the queue with upstream's event, condition and message. The
// whole cycle, and every member's binding, runs on the one profile
// generation that was serving when the group was popped.

// scheduleOnePodGroup runs the pod-group cycle for a popped group.
func (l *profileLoop) scheduleOnePodGroup(ctx context.Context, pgi *framework.QueuedPodGroupInfo) {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "podGroupType", pgi.GetType(), "podGroup", klog.KObj(pgi))
	ctx = klog.NewContext(ctx, logger)
	start := time.Now()

	if err := l.updateSnapshot(logger); err != nil {
		logger.Error(err, "Error updating snapshot")
		l.handlePodGroupFailureBeforeScheduling(ctx, pgi, err)
		return
	}
	// The group popped from the queue may carry an older PodGroup: the
	// cycle uses the snapshot'l.
	if err := l.reconcilePodGroupWithSnapshot(pgi.PodGroupInfo); err != nil {
		pgi.PodGroup = nil
		l.handlePodGroupFailureBeforeScheduling(ctx, pgi, err)
		return
	}
	schedulerName, err := l.validatePodGroup(pgi)
	if err != nil {
		l.handlePodGroupFailureBeforeScheduling(ctx, pgi, err)
		return
	}
	prof := l.gens.acquireFor(schedulerName, firstMember(pgi), func() string { return groupRolloutKey(pgi) })
	if prof == nil {
		// Removed since validatePodGroup saw it.
		l.handlePodGroupFailureBeforeScheduling(ctx, pgi, errProfileNotFound(schedulerName))
		return
	}
	defer prof.release(logger)
	l.cycle = prof
	defer func() { l.cycle = nil }()

	l.skipPodGroupPodSchedule(ctx, prof.fw, pgi)
	if len(pgi.QueuedPodInfos) == 0 {
		return
	}
	logger.V(3).Info("Attempting to schedule pod group", "podGroupType", pgi.GetType(), "podGroup", klog.KObj(pgi))
	l.podGroupCycle(ctx, prof, framework.NewCycleState(), pgi, start)
}

// reconcilePodGroupWithSnapshot replaces the group's PodGroup with the
// snapshot'l.
func (l *profileLoop) reconcilePodGroupWithSnapshot(pgi *framework.PodGroupInfo) error {
	pg, err := l.snapshot.PodGroups().Get(pgi.Namespace, pgi.Name)
	if err != nil {
		return err
	}
	pgi.PodGroup = pg
	return nil
}

// handlePodGroupFailureBeforeScheduling fails every member with err, on
// the framework serving each, and sets the PodGroup's condition.
func (l *profileLoop) handlePodGroupFailureBeforeScheduling(ctx context.Context, pgi *framework.QueuedPodGroupInfo, err error) {
	logger := klog.FromContext(ctx)
	pgi.ForEachPodInfo(func(p *framework.QueuedPodInfo) bool {
		prof := l.gens.acquire(p.Pod.Spec.SchedulerName)
		if prof == nil {
			logger.V(3).Info("No profile serves the pod any more, dropping it from the queue", "pod", klog.KObj(p.Pod), "schedulerName", p.Pod.Spec.SchedulerName)
			l.queue.Done(p.Pod.UID)
			return true
		}
		l.binder.handleSchedulingFailure(ctx, prof.fw, p, fwk.AsStatus(err), clearNominatedNode, time.Now())
		prof.release(logger)
		return true
	})
	if pgi.PodGroup != nil {
		l.updatePodGroupCondition(ctx, pgi.PodGroupInfo, &metav1.Condition{
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
func (l *profileLoop) validatePodGroup(pgi *framework.QueuedPodGroupInfo) (string, error) {
	return ValidatePodGroup(pgi, l.snapshot.PodGroupStates(), func(name string) bool { return l.gens.serving(name) != nil })
}

// ValidatePodGroup validates pgi against the pod-group states of a
// snapshot, as the pod-group cycle does before its algorithm runs (see
// Scheduler.validatePodGroup); serving says whether a profile serves a
// schedulerName. It returns the members' schedulerName.
func ValidatePodGroup(pgi *framework.QueuedPodGroupInfo, states fwk.PodGroupStateLister, serving func(string) bool) (string, error) {
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
func (l *profileLoop) skipPodGroupPodSchedule(ctx context.Context, fw framework.Framework, pgi *framework.QueuedPodGroupInfo) {
	for key, infos := range pgi.QueuedPodInfos {
		kept := make([]*framework.QueuedPodInfo, 0, len(infos))
		for _, p := range infos {
			if l.skipPodSchedule(ctx, fw, p.Pod) {
				l.queue.Done(p.Pod.UID)
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

// podGroupCycle runs the algorithm on the snapshot, the PodGroupPostFilter
// plugins when the group does not fit, and submits the result.
func (l *profileLoop) podGroupCycle(ctx context.Context, prof *liveProfile, cycleState *framework.CycleState, pgi *framework.QueuedPodGroupInfo, start time.Time) {
	fw := prof.fw
	handed := sets.New[types.UID]()
	if !l.gens.serves(prof) {
		ctx = context.WithValue(ctx, candidateKey{}, prof.stats)
		defer l.containPodGroupPanic(ctx, prof, pgi, handed, start)
	}
	result, rootStatus := runPodGroupAlgorithm(ctx, l, fw, cycleState, pgi)

	metrics.PodGroupSchedulingAlgorithmLatency.Observe(metrics.SinceInSeconds(start))

	runPodGroupPostFilter(ctx, l, fw, cycleState, pgi, result, rootStatus, fw.RunPodGroupPostFilterPlugins)
	l.submitPodGroupAlgorithmResult(ctx, prof, pgi, result, start, handed)
}

var _ podGroupPlacer = &profileLoop{}

func (l *profileLoop) podGroupStates() fwk.PodGroupStateLister { return l.snapshot.PodGroupStates() }

// submitPodGroupAlgorithmResult acts on the group's result: if it fits,
// every placed member is assumed, reserved and permitted in the cache and
// its binding cycle starts on the same profile generation; otherwise every
// member goes back to the queue with its status. The PodGroup gets its
// condition.
//
// handed gets the UID of each member whose binding cycle started.
func (l *profileLoop) submitPodGroupAlgorithmResult(ctx context.Context, prof *liveProfile, pgi *framework.QueuedPodGroupInfo, result *podGroupAlgorithmResult, start time.Time, handed sets.Set[types.UID]) {
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
	members := make([]ShadowMember, 0, len(infos))
	defer func() {
		l.gens.offerShadowGroup(prof, result.podGroupInfo.Namespace, result.podGroupInfo.Name, members)
	}()
	for i, p := range infos {
		podResult := result.podResults[i]
		member := ShadowMember{Pod: p.Pod}
		if result.status.IsSuccess() {
			member.ServingNode = podResult.scheduleResult.suggestedHost
		}
		members = append(members, member)
		podCtx := podResult.podCtx
		ctx := klog.NewContext(ctx, podCtx.logger)
		podStart := time.Now().Add(-podResult.schedulingDuration)

		if status, nominatingInfo := podGroupMemberFailure(result, i); status != nil {
			l.binder.handleSchedulingFailure(ctx, fw, p, status, nominatingInfo, podStart)
			if !result.status.IsError() {
				unschedulablePods++
			}
			continue
		}
		podCtx.state.SetPodGroupSchedulingCycle(nil)
		assumed, status := l.prepareForBindingCycle(ctx, podCtx.state, fw, p, podCtx.podsToActivate, podResult.scheduleResult)
		if lostRace(status) {
			l.retryLostRace(ctx, p, status)
			continue
		}
		if !status.IsSuccess() {
			l.binder.handleSchedulingFailure(ctx, fw, p, status, clearNominatedNode, podStart)
			unschedulablePods++
			continue
		}
		prof.addRef()
		handed.Insert(p.Pod.UID)
		candidate := !l.gens.serves(prof)
		l.running.Add(1)
		go func() {
			defer l.running.Done()
			defer prof.release(podCtx.logger)
			if candidate {
				defer l.binder.containBindingPanic(ctx, podCtx.state, prof, assumed, podStart)
			}
			l.binder.runBindingCycle(ctx, podCtx.state, fw, prof.check, podResult.scheduleResult, assumed, podStart, podCtx.podsToActivate)
		}()
		scheduledPods++
	}

	pgName := klog.KObj(result.podGroupInfo)
	condition := PodGroupCondition(result.status)
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
	l.updatePodGroupCondition(ctx, result.podGroupInfo, condition)
}

// PodGroupCondition is the PodGroupInitiallyScheduled condition the cycle
// writes for the group's status.
func PodGroupCondition(status *fwk.Status) *metav1.Condition {
	switch {
	case status.IsSuccess():
		return &metav1.Condition{Type: schedulingapi.PodGroupInitiallyScheduled, Status: metav1.ConditionTrue, Reason: "Scheduled", Message: status.Message()}
	case status.IsRejected():
		return &metav1.Condition{Type: schedulingapi.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse, Reason: schedulingapi.PodGroupReasonUnschedulable, Message: status.Message()}
	default:
		return &metav1.Condition{Type: schedulingapi.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse, Reason: schedulingapi.PodGroupReasonSchedulerError, Message: status.AsError().Error()}
	}
}

// containPodGroupPanic, deferred around a candidate's pod-group cycle,
// turns a panic of one of its plugins into the group's error, all or
// nothing: the members whose binding cycle started (handed) and wait at
// Permit are rejected there (their binding cycles undo them), every other
// member is forgotten if it was assumed and goes back to the queue with
// the error. The loop's snapshot forgets what the cycle assumed in it at
// its next update, as upstream's does.
func (l *profileLoop) containPodGroupPanic(ctx context.Context, prof *liveProfile, pgi *framework.QueuedPodGroupInfo, handed sets.Set[types.UID], start time.Time) {
	r := recover()
	if r == nil {
		return
	}
	err := panicError(r)
	klog.FromContext(ctx).Error(err, "A plugin of a rollout's candidate panicked in a pod-group cycle", "podGroup", klog.KObj(pgi))
	prof.stats.panicked()
	pgi.ForEachPodInfo(func(p *framework.QueuedPodInfo) bool {
		if handed.Has(p.Pod.UID) {
			if wp := prof.fw.GetWaitingPod(p.Pod.UID); wp != nil {
				wp.Reject("", err.Error())
			}
			return true
		}
		l.binder.forgetAfterPanic(ctx, framework.NewCycleState(), prof.fw, p.Pod)
		l.binder.handleSchedulingFailure(ctx, prof.fw, p, fwk.AsStatus(err), clearNominatedNode, start)
		return true
	})
}

// updatePodGroupCondition patches condition on the PodGroup; a group once
// scheduled does not go back to False.
func (l *profileLoop) updatePodGroupCondition(ctx context.Context, pgi *framework.PodGroupInfo, condition *metav1.Condition) {
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
	if err := util.PatchPodGroupStatus(ctx, l.binder.client, pgi.Name, pgi.Namespace, &pg.Status, newStatus); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to update PodGroup status", "podGroup", klog.KObj(pgi))
	}
}

// firstMember is the member that starts a pod group's cycle, whose labels
// a canary's selector judges for the whole group; nil when none waits.
func firstMember(pgi *framework.QueuedPodGroupInfo) *v1.Pod {
	if len(pgi.UnscheduledPods) > 0 {
		return pgi.UnscheduledPods[0]
	}
	return nil
}
