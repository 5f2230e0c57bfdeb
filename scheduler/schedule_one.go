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
	"math/rand"
	"time"

	v1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// scheduleOnePod runs a pod's scheduling cycle on the framework serving its
// schedulerName now; on success it starts the binding cycle on the same
// framework.
func (l *profileLoop) scheduleOnePod(ctx context.Context, podInfo *framework.QueuedPodInfo) {
	logger := klog.FromContext(ctx)
	pod := podInfo.Pod
	logger = klog.LoggerWithValues(logger, "pod", klog.KObj(pod))
	ctx = klog.NewContext(ctx, logger)

	prof := l.gens.acquireFor(pod.Spec.SchedulerName, func() string { return rolloutKey(l.cache.PodGroups(), pod) })
	if prof == nil {
		// The profile went away after the pod was popped.
		logger.V(3).Info("No profile serves the pod any more, dropping it from the queue", "schedulerName", pod.Spec.SchedulerName)
		l.queue.Done(pod.UID)
		return
	}
	handedOver := false
	l.cycle = prof
	defer func() {
		l.cycle = nil
		if !handedOver {
			prof.release(logger)
		}
	}()
	fw := prof.fw
	if l.skipPodSchedule(ctx, fw, pod) {
		l.queue.Done(pod.UID)
		return
	}
	logger.V(3).Info("Attempting to schedule pod")

	start := time.Now()
	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(rand.Intn(100) < pluginMetricsSamplePercent)
	podsToActivate := framework.NewPodsToActivate()
	state.Write(framework.PodsToActivateKey, podsToActivate)
	if utilfeature.DefaultFeatureGate.Enabled(features.OpportunisticBatching) && podInfo.PodSignature == nil {
		podInfo.PodSignature = fw.SignPod(ctx, pod)
	}

	cycleCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	result, assumedPodInfo, status := l.runSchedulingCycle(cycleCtx, state, prof, podInfo, start, podsToActivate)
	if lostRace(status) {
		l.retryLostRace(cycleCtx, podInfo, status)
		return
	}
	if !status.IsSuccess() {
		if status.IsRejected() {
			l.gens.offerShadow(prof, pod, "")
		}
		l.binder.handleSchedulingFailure(cycleCtx, fw, assumedPodInfo, status, result.nominatingInfo, start)
		return
	}
	l.gens.offerShadow(prof, pod, result.suggestedHost)

	handedOver = true
	l.running.Add(1)
	candidate := !l.gens.serves(prof)
	go func() {
		defer l.running.Done()
		defer prof.release(logger)
		ctx := ctx
		if candidate {
			ctx = context.WithValue(ctx, candidateKey{}, prof.stats)
			defer l.binder.containBindingPanic(ctx, state, prof, assumedPodInfo, start)
		}
		l.binder.runBindingCycle(ctx, state, fw, prof.check, result, assumedPodInfo, start, podsToActivate)
	}()
}

// runSchedulingCycle runs schedulingCycle on prof. On a rollout's
// candidate, a panic of one of its plugins, in the cycle or in its
// parallel workers (recoverCandidatePanic), is the cycle's error: the
// pod goes back to the queue and the process goes on. The serving
// generation's panics crash the process, as upstream's do.
func (l *profileLoop) runSchedulingCycle(ctx context.Context, state fwk.CycleState, prof *liveProfile, podInfo *framework.QueuedPodInfo, start time.Time, podsToActivate *framework.PodsToActivate) (result scheduleResult, assumed *framework.QueuedPodInfo, status *fwk.Status) {
	if l.gens.serves(prof) {
		return l.schedulingCycle(ctx, state, prof.fw, podInfo, start, podsToActivate)
	}
	ctx = context.WithValue(ctx, candidateKey{}, prof.stats)
	defer func() {
		if r := recover(); r != nil {
			err := panicError(r)
			klog.FromContext(ctx).Error(err, "A plugin of a rollout's candidate panicked in its scheduling cycle")
			// Past the assume (Reserve, Permit) the pod holds its node's
			// room in the cache: give it back.
			l.binder.forgetAfterPanic(ctx, state, prof.fw, podInfo.Pod)
			result, assumed, status = scheduleResult{nominatingInfo: clearNominatedNode}, podInfo, fwk.AsStatus(err)
		}
	}()
	return l.schedulingCycle(ctx, state, prof.fw, podInfo, start, podsToActivate)
}

func (l *profileLoop) skipPodSchedule(ctx context.Context, fw framework.Framework, pod *v1.Pod) bool {
	logger := klog.FromContext(ctx)
	if pod.DeletionTimestamp != nil {
		fw.EventRecorder().WithLogger(logger).Eventf(pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", "skip schedule deleting pod: %v/%v", pod.Namespace, pod.Name)
		logger.V(3).Info("Skip schedule deleting pod")
		return true
	}
	// A pod updated while it was being assumed can come back to the queue.
	isAssumed, err := l.cache.IsAssumedPod(pod)
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to check whether pod is assumed")
		return false
	}
	return isAssumed
}

func (l *profileLoop) schedulingCycle(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, start time.Time, podsToActivate *framework.PodsToActivate) (scheduleResult, *framework.QueuedPodInfo, *fwk.Status) {
	logger := klog.FromContext(ctx)
	if err := l.updateSnapshot(logger); err != nil {
		return scheduleResult{nominatingInfo: clearNominatedNode}, podInfo, fwk.AsStatus(err)
	}
	result, status := l.schedulingAlgorithm(ctx, state, fw, podInfo, start)
	if !status.IsSuccess() {
		return result, podInfo, status
	}
	assumed, status := l.prepareForBindingCycle(ctx, state, fw, podInfo, podsToActivate, result)
	if !status.IsSuccess() {
		return scheduleResult{nominatingInfo: clearNominatedNode}, assumed, status
	}
	return result, assumed, nil
}

// prepareForBindingCycle applies a cycle's result in memory: assume,
// Reserve, Permit (a waiting pod is added to the framework's waiting
// pods), then activates the pods plugins asked for.
func (l *profileLoop) prepareForBindingCycle(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, podsToActivate *framework.PodsToActivate, result scheduleResult) (*framework.QueuedPodInfo, *fwk.Status) {
	logger := klog.FromContext(ctx)
	assumed, status := l.assumeAndReserve(ctx, state, fw, podInfo, result)
	if !status.IsSuccess() {
		return assumed, status
	}
	waitTime, permit := fw.RunPermitPlugins(ctx, state, assumed.Pod, result.suggestedHost)
	if permit.IsWait() {
		fw.AddWaitingPod(assumed.Pod, waitTime)
	} else if !permit.IsSuccess() {
		if err := l.unreserveAndForget(ctx, state, fw, assumed, result.suggestedHost); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "ForgetPod failed")
		}
		if permit.IsRejected() {
			return assumed, fwk.NewStatus(permit.Code()).WithError(singleNodeFitError(podInfo.Pod, result.suggestedHost, permit, true))
		}
		return assumed, permit
	}
	if len(podsToActivate.Map) != 0 {
		l.queue.Activate(logger, podsToActivate.Map)
		podsToActivate.Map = make(map[string]*v1.Pod)
	}
	return assumed, nil
}

// schedulingAlgorithm filters and scores, and runs PostFilter (preemption)
// when no node fits.
func (l *profileLoop) schedulingAlgorithm(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, start time.Time) (scheduleResult, *fwk.Status) {
	defer func() { metrics.SchedulingAlgorithmLatency.Observe(metrics.SinceInSeconds(start)) }()
	logger := klog.FromContext(ctx)
	pod := podInfo.Pod
	result, err := l.algorithm.schedulePod(ctx, fw, state, podInfo)
	if err == nil {
		return result, nil
	}
	if errors.Is(err, ErrNoNodesAvailable) {
		return scheduleResult{nominatingInfo: clearNominatedNode}, fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithError(err)
	}
	var fitError *framework.FitError
	if !errors.As(err, &fitError) {
		logger.Error(err, "Error selecting node for pod")
		return scheduleResult{nominatingInfo: clearNominatedNode}, fwk.AsStatus(err)
	}
	// A pod of a pod-group cycle gets no PostFilter: the group's
	// PodGroupPostFilter runs at the end of the cycle and may set the
	// nominating info then.
	if state.IsPodGroupSchedulingCycle() {
		return scheduleResult{nominatingInfo: nil}, fwk.NewStatus(fwk.Unschedulable).WithError(err)
	}
	if !fw.HasPostFilterPlugins() {
		logger.V(3).Info("No PostFilter plugins are registered, so no preemption will be performed")
		return scheduleResult{nominatingInfo: clearNominatedNode}, fwk.NewStatus(fwk.Unschedulable).WithError(err)
	}
	pfResult, status := fw.RunPostFilterPlugins(ctx, state, pod, fitError.Diagnosis.NodeToStatus)
	msg := status.Message()
	fitError.Diagnosis.PostFilterMsg = msg
	if status.Code() == fwk.Error {
		utilruntime.HandleErrorWithContext(ctx, nil, "Status after running PostFilter plugins for pod", "status", msg)
	} else {
		logger.V(5).Info("Status after running PostFilter plugins for pod", "status", msg)
	}
	var nominatingInfo *fwk.NominatingInfo
	if pfResult != nil {
		nominatingInfo = pfResult.NominatingInfo
	}
	return scheduleResult{nominatingInfo: nominatingInfo}, fwk.NewStatus(fwk.Unschedulable).WithError(err)
}

// assumeAndReserve assumes the pod on the chosen node in the cache, then
// runs Reserve; on a Reserve failure it unreserves and forgets.
func (l *profileLoop) assumeAndReserve(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, result scheduleResult) (*framework.QueuedPodInfo, *fwk.Status) {
	logger := klog.FromContext(ctx)
	assumed := podInfo.DeepCopy()
	assumed.Pod.Spec.NodeName = result.suggestedHost
	// In a pod-group cycle the pod is assumed in the cycle's snapshot
	// only, for the next members to see; the cache gets it once the whole
	// group fits.
	if state.IsPodGroupSchedulingCycle() {
		if err := l.snapshot.AssumePod(assumed.PodInfo); err != nil {
			logger.Error(err, "Scheduler snapshot AssumePod failed")
			return assumed, fwk.AsStatus(err)
		}
	} else if err := l.assumePod(ctx, assumed.Pod); err != nil {
		if errors.Is(err, errAssumeConflict) {
			return assumed, fwk.NewStatus(fwk.Unschedulable).WithError(err)
		}
		logger.Error(err, "Scheduler cache AssumePod failed")
		return assumed, fwk.AsStatus(err)
	}
	l.queue.DeleteNominatedPodIfExists(assumed.Pod)
	if st := fw.RunReservePluginsReserve(ctx, state, assumed.Pod, result.suggestedHost); !st.IsSuccess() {
		if err := l.unreserveAndForget(ctx, state, fw, assumed, result.suggestedHost); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "ForgetPod failed")
		}
		if st.IsRejected() {
			return assumed, fwk.NewStatus(st.Code()).WithError(singleNodeFitError(podInfo.Pod, result.suggestedHost, st, true))
		}
		return assumed, st
	}
	return assumed, nil
}

// unreserveAndForget unreserves a pod and forgets it: in the loop's
// snapshot in a pod-group cycle, in the cache otherwise.
func (l *profileLoop) unreserveAndForget(ctx context.Context, state fwk.CycleState, fw framework.Framework, assumed *framework.QueuedPodInfo, node string) error {
	if !state.IsPodGroupSchedulingCycle() {
		return l.binder.unreserveAndForgetInCache(ctx, state, fw, assumed, node)
	}
	logger := klog.FromContext(ctx)
	fw.RunReservePluginsUnreserve(ctx, state, assumed.Pod, node)
	if err := l.snapshot.ForgetPod(logger, assumed.Pod); err != nil {
		return err
	}
	if nnn := assumed.Pod.Status.NominatedNodeName; nnn != "" {
		// Assuming dropped the nomination; reverting the assumption
		// restores it.
		l.queue.AddNominatedPod(logger, assumed.PodInfo, &fwk.NominatingInfo{NominatedNodeName: nnn, NominatingMode: fwk.ModeOverride})
	}
	return nil
}
