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
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
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

	prof := l.gens.acquireFor(pod.Spec.SchedulerName, pod, func() string { return rolloutKey(l.cache.PodGroups(), pod) })
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
	logger := klog.FromContext(ctx)
	fw.RunReservePluginsUnreserve(ctx, state, assumed.Pod, node)
	if !state.IsPodGroupSchedulingCycle() {
		return l.cache.ForgetPod(logger, assumed.Pod)
	}
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

// assumePod assumes pod (its node set) in the cache. When a pod was
// assumed on its node since this loop's snapshot, by another loop, the
// pod is first checked against the cache's copy of its node with the bind
// check of the cycle's generation, its fit-judging plugins (none
// enabled: nothing to check); a pod that no longer fits gets an error
// wrapping errAssumeConflict and is not assumed. Assumes of every loop
// take turns (assumeLedger.mu), so of two pods that fit only one at a
// time, the second is checked with the first in the cache; the lock is
// held for the check and the assume alone, and loops filling nodes of
// their own never check. The one loop of every profile never checks: its
// snapshot holds every pod assumed before it, as upstream's does.
func (l *profileLoop) assumePod(ctx context.Context, pod *v1.Pod) error {
	logger := klog.FromContext(ctx)
	node := pod.Spec.NodeName
	return l.assumes.assume(node, func(changedSince func(seen int64) bool) error {
		if l.name != "" && changedSince(l.seen) && l.cycle != nil && l.cycle.check != nil {
			var nominated podsOnNode
			if pods := l.nominatedByOthers(pod); len(pods) > 0 {
				nominated = func(context.Context, string) ([]v1.Pod, error) { return pods, nil }
			}
			if st, _ := l.cycle.check.run(ctx, l.cache, nominated, pod, node); st.IsRejected() {
				return fmt.Errorf("%w: node %q: %s", errAssumeConflict, node, st.Message())
			}
		}
		return l.cache.AssumePod(logger, pod)
	})
}

// nominatedByOthers returns the pods other loops' profiles nominated to
// pod's node, of pod's priority or higher (those upstream's Filter counts
// as if they ran there, RunFilterPluginsWithNominatedPods): the room a
// preemption freed for them is not another loop's to take.
func (l *profileLoop) nominatedByOthers(pod *v1.Pod) []v1.Pod {
	var out []v1.Pod
	priority := corev1helpers.PodPriority(pod)
	for _, pi := range l.queue.NominatedPodsForNode(pod.Spec.NodeName) {
		p := pi.GetPod()
		if p.UID == pod.UID || p.Spec.SchedulerName == pod.Spec.SchedulerName || corev1helpers.PodPriority(p) < priority {
			continue
		}
		out = append(out, *p)
	}
	return out
}

// updateSnapshot brings the loop's snapshot up to date with the cache at
// the start of a cycle.
func (l *profileLoop) updateSnapshot(logger klog.Logger) error {
	l.seen = l.assumes.count()
	return l.cache.UpdateSnapshot(logger, l.snapshot)
}

// retryLostRace puts back a pod that lost its node to another loop at
// assume, for a cycle at once (queue.Retry), unless it was deleted,
// recreated or bound meanwhile.
func (l *profileLoop) retryLostRace(ctx context.Context, podInfo *framework.QueuedPodInfo, status *fwk.Status) {
	pod := podInfo.Pod
	klog.FromContext(ctx).V(3).Info("Pod lost its node to another profile's loop; scheduling it again at once", "reason", status.Message())
	loopAssumeConflicts.WithLabelValues(pod.Spec.SchedulerName).Inc()
	l.stats.conflicts.Add(1)
	cached, err := l.binder.podLister.Pods(pod.Namespace).Get(pod.Name)
	if err != nil || cached.UID != pod.UID || cached.Spec.NodeName != "" {
		l.queue.Done(pod.UID)
		return
	}
	podInfo.PodInfo, _ = framework.NewPodInfo(cached.DeepCopy())
	l.queue.Retry(ctx, podInfo)
}

// lostRace reports whether status is that of a pod that lost its node to
// another loop at assume.
func lostRace(status *fwk.Status) bool {
	return status != nil && errors.Is(status.AsError(), errAssumeConflict)
}
