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
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util"
)

// runBindingCycle binds an assumed pod on the framework its scheduling
// cycle used (check is that profile's bind check), and cleans up on
// failure.
//
// A pod the bind check refused is unreserved and forgotten as on a failed
// bind, and scheduled again at once: the cache that refused it is the one
// the next cycle's snapshot is taken from, so that cycle sees what took the
// room and places the pod elsewhere or finds it unschedulable. Only the
// first of consecutive failures is retried at once; a pod refused again
// before any other outcome waits out its back-off, so it never spins.
func (s *Scheduler) runBindingCycle(ctx context.Context, state fwk.CycleState, fw framework.Framework, check *bindCheck, result scheduleResult, assumed *framework.QueuedPodInfo, start time.Time, podsToActivate *framework.PodsToActivate) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	metrics.Goroutines.WithLabelValues(metrics.Binding).Inc()
	defer metrics.Goroutines.WithLabelValues(metrics.Binding).Dec()

	status := s.bindingCycle(ctx, state, fw, check, result, assumed, start, podsToActivate)
	if status.IsSuccess() {
		return
	}
	if errors.Is(status.AsError(), errNodeFilledUp) && assumed.ConsecutiveErrorsCount == 0 {
		// Deferred: after the pod is back in the queue.
		defer s.queue.Activate(klog.FromContext(ctx), map[string]*v1.Pod{assumed.Pod.Namespace + "/" + assumed.Pod.Name: assumed.Pod})
	}
	if err := s.unreserveAndForgetInCache(ctx, state, fw, assumed, result.suggestedHost); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "ForgetPod failed")
	} else {
		// The forgotten pod held resources: other pods may fit now. The pod
		// itself is not moved by this event when it was rejected.
		if status.IsRejected() {
			uid := assumed.Pod.UID
			defer s.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, assumed.Pod, nil, func(p *v1.Pod) bool { return p.UID != uid })
		} else {
			s.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, assumed.Pod, nil, nil)
		}
	}
	s.handleSchedulingFailure(ctx, fw, assumed, status, clearNominatedNode, start)
}

func (s *Scheduler) bindingCycle(ctx context.Context, state fwk.CycleState, fw framework.Framework, check *bindCheck, result scheduleResult, assumedInfo *framework.QueuedPodInfo, start time.Time, podsToActivate *framework.PodsToActivate) *fwk.Status {
	logger := klog.FromContext(ctx)
	assumed := assumedInfo.Pod

	var preFlight *fwk.Status
	if utilfeature.DefaultFeatureGate.Enabled(features.NominatedNodeNameForExpectation) {
		preFlight = fw.RunPreBindPreFlights(ctx, state, assumed, result.suggestedHost)
		if preFlight.Code() == fwk.Error || preFlight.IsRejected() {
			return preFlight
		}
		if preFlight.IsSuccess() || fw.WillWaitOnPermit(ctx, assumed) {
			// Tell other components (the cluster autoscaler) where the pod
			// is going while it waits or pre-binds.
			if err := updatePod(ctx, s.client, assumed, nil, &fwk.NominatingInfo{NominatedNodeName: result.suggestedHost, NominatingMode: fwk.ModeOverride}); err != nil {
				logger.Error(err, "Failed to update the nominated node name in the binding cycle", "nominatedNodeName", result.suggestedHost)
			}
		}
	}

	if st := fw.WaitOnPermit(ctx, assumed); !st.IsSuccess() {
		if st.IsRejected() {
			return fwk.NewStatus(st.Code()).WithError(singleNodeFitError(assumed, result.suggestedHost, st, false))
		}
		return st
	}
	// Past Permit a failure is an error, not unschedulable: the pod is
	// retried after back-off.
	s.queue.Done(assumed.UID)

	if preFlight.IsSuccess() {
		var cancelPreBind context.CancelCauseFunc
		ctx, cancelPreBind = context.WithCancelCause(ctx)
		defer cancelPreBind(nil)
		defer fw.RemovePodInPreBind(assumed.UID)
		fw.AddPodInPreBind(assumed.UID, cancelPreBind)
	}
	if st := fw.RunPreBindPlugins(ctx, state, assumed, result.suggestedHost); !st.IsSuccess() {
		return st
	}
	// The pod may have been preempted while pre-binding.
	if b := fw.GetPodInPreBind(assumed.UID); b != nil && !b.MarkPrebound() {
		return fwk.AsStatus(context.Cause(ctx))
	}
	// The node as the cache sees it now, with the pods any scheduler bound
	// since this cycle's snapshot.
	if st := s.checkBeforeBind(ctx, check, assumed, result.suggestedHost); !st.IsSuccess() {
		return st
	}
	if st := s.bind(ctx, fw, assumed, result.suggestedHost, state); !st.IsSuccess() {
		return st
	}
	logger.V(2).Info("Successfully bound pod to node", "node", result.suggestedHost, "evaluatedNodes", result.evaluatedNodes, "feasibleNodes", result.feasibleNodes)
	metrics.PodScheduled(fw.ProfileName(), metrics.SinceInSeconds(start))
	latency := time.Since(start)
	if assumedInfo.InitialAttemptTimestamp != nil {
		latency = time.Since(*assumedInfo.InitialAttemptTimestamp)
	}
	s.statsOf(fw).record(outcomeBound, latency)
	metrics.PodSchedulingAttempts.Observe(float64(assumedInfo.Attempts))
	if assumedInfo.InitialAttemptTimestamp != nil {
		metrics.PodSchedulingSLIDuration.WithLabelValues(attemptsLabel(assumedInfo)).Observe(metrics.SinceInSeconds(*assumedInfo.InitialAttemptTimestamp))
	}
	s.runPostBindPlugins(ctx, fw, state, assumed, result.suggestedHost)
	if len(podsToActivate.Map) != 0 {
		s.queue.Activate(logger, podsToActivate.Map)
	}
	return nil
}

func attemptsLabel(p *framework.QueuedPodInfo) string {
	if p.Attempts >= 15 {
		return "15+"
	}
	return strconv.Itoa(p.Attempts)
}

// bind binds through the first interested binder extender, else the bind
// plugins, then finishes the binding in the cache.
func (s *Scheduler) bind(ctx context.Context, fw framework.Framework, assumed *v1.Pod, node string, state fwk.CycleState) (status *fwk.Status) {
	logger := klog.FromContext(ctx)
	start := time.Now()
	defer func() {
		if !status.IsSuccess() {
			logger.V(1).Info("Failed to bind pod", "status", status.Message())
			return
		}
		s.bindTiming.roundTrip.observe(time.Since(start))
		fw.EventRecorder().WithLogger(logger).Eventf(assumed, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully assigned %v/%v to %v", assumed.Namespace, assumed.Name, node)
	}()
	for _, e := range fw.Extenders() {
		if !e.IsBinder() || !e.IsInterested(assumed) {
			continue
		}
		err := e.Bind(&v1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: assumed.Namespace, Name: assumed.Name, UID: assumed.UID},
			Target:     v1.ObjectReference{Kind: "Node", Name: node},
		})
		if err != nil && e.IsIgnorable() {
			logger.Info("Skipping extender in bind as it returned error and has ignorable flag set", "extender", e.Name(), "err", err)
			continue
		}
		return fwk.AsStatus(err)
	}
	return fw.RunBindPlugins(ctx, state, assumed, node)
}

// handleSchedulingFailure records the failure: the pod goes back to the
// queue (unless it is gone or bound), gets a FailedScheduling event and the
// PodScheduled=False condition, and its nominated node is updated.
func (s *Scheduler) handleSchedulingFailure(ctx context.Context, fw framework.Framework, podInfo *framework.QueuedPodInfo, status *fwk.Status, nominatingInfo *fwk.NominatingInfo, start time.Time) {
	podInfo = podInfo.DeepCopy()
	calledDone := false
	defer func() {
		if !calledDone {
			s.queue.Done(podInfo.Pod.UID)
		}
	}()
	logger := klog.FromContext(ctx)
	reason := v1.PodReasonSchedulerError
	if status.IsRejected() {
		reason = v1.PodReasonUnschedulable
		metrics.PodUnschedulable(fw.ProfileName(), metrics.SinceInSeconds(start))
		if !errors.Is(status.AsError(), errNodeFilledUp) {
			s.statsOf(fw).record(outcomeUnschedulable, 0)
		}
	} else {
		metrics.PodScheduleError(fw.ProfileName(), metrics.SinceInSeconds(start))
		s.statsOf(fw).record(outcomeError, 0)
	}
	pod := podInfo.Pod
	err := status.AsError()
	errMsg := status.Message()
	podInfo.ClearRejectorPlugins()

	var fitError *framework.FitError
	switch {
	case errors.Is(err, ErrNoNodesAvailable):
		logger.V(2).Info("Unable to schedule pod; no nodes are registered to the cluster; waiting")
	case errors.As(err, &fitError):
		podInfo.UnschedulablePlugins = fitError.Diagnosis.UnschedulablePlugins
		podInfo.PendingPlugins = fitError.Diagnosis.PendingPlugins
		logger.V(2).Info("Unable to schedule pod; no fit; waiting", "err", errMsg)
	case errors.Is(err, errNodeFilledUp):
		logger.V(2).Info("Pod not bound: its node filled up since its scheduling cycle; scheduling it again", "err", errMsg)
	case errors.Is(err, errPodGroupUnschedulable):
		logger.V(2).Info("Unable to schedule pod belonging to a pod group; waiting", "err", errMsg)
	default:
		utilruntime.HandleErrorWithContext(ctx, err, "Error scheduling pod; retrying")
	}

	// Once podInfo is handed to the queue, informer updates may change it;
	// the nominator gets its own copy.
	nominated := podInfo.PodInfo
	cached, e := s.podLister.Pods(pod.Namespace).Get(pod.Name)
	switch {
	case e != nil:
		logger.Info("Pod doesn't exist in informer cache", "err", e)
	case cached.Spec.NodeName != "":
		// An extender may have bound it and timed out answering.
		logger.Info("Pod has been assigned to node. Abort adding it back to queue.", "node", cached.Spec.NodeName)
	case cached.UID != pod.UID:
		logger.V(2).Info("Pod was recreated while handling scheduling failure. Skip requeueing and status updates.", "oldUID", pod.UID, "newUID", cached.UID)
		return
	default:
		podInfo.PodInfo, _ = framework.NewPodInfo(cached.DeepCopy())
		pod = podInfo.Pod
		nominated = podInfo.PodInfo.DeepCopy()
		if err := s.queue.AddUnschedulableIfNotPresent(ctx, podInfo); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Requeueing pod failed")
		}
		calledDone = true
	}

	s.queue.AddNominatedPod(logger, nominated, nominatingInfo)
	if nominatingInfo.Mode() == fwk.ModeOverride && nominatingInfo.NominatedNodeName != "" {
		s.noteNomination(nominatingInfo.NominatedNodeName)
	}
	if err == nil {
		return
	}
	msg := FailedSchedulingMessage(status)
	fw.EventRecorder().WithLogger(logger).Eventf(pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	if err := updatePod(ctx, s.client, pod, &v1.PodCondition{
		Type:               v1.PodScheduled,
		ObservedGeneration: podutil.CalculatePodConditionObservedGeneration(&pod.Status, pod.Generation, v1.PodScheduled),
		Status:             v1.ConditionFalse,
		Reason:             reason,
		Message:            errMsg,
	}, nominatingInfo); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Error updating pod")
	}
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

// updatePod patches the pod's status with condition and the nominated node
// name, when either changes.
func updatePod(ctx context.Context, client kubernetes.Interface, pod *v1.Pod, condition *v1.PodCondition, nominatingInfo *fwk.NominatingInfo) error {
	logger := klog.FromContext(ctx)
	statusCopy := pod.Status.DeepCopy()
	nnnChanged := nominatingInfo.Mode() == fwk.ModeOverride && pod.Status.NominatedNodeName != nominatingInfo.NominatedNodeName
	condChanged := condition != nil && podutil.UpdatePodCondition(statusCopy, condition)
	if !condChanged && !nnnChanged {
		return nil
	}
	if nnnChanged {
		statusCopy.NominatedNodeName = nominatingInfo.NominatedNodeName
	}
	logger.V(3).Info("Updating pod condition and nominated node name", "pod", klog.KObj(pod))
	return util.PatchPodStatus(ctx, client, pod.Name, pod.Namespace, &pod.Status, statusCopy)
}
