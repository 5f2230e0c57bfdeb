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
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// binder is what a loop's cycles and the binding goroutines they start
// share to bind a pod or to give it back to the queue: the client, the
// cache, the queue and the pod informer, the generations serving now
// (whose counts it records), the assume ledger (a nomination counts as
// an assume) and what the bind check knows of bind timing. It outlives
// every loop: a binding goes on after its loop stopped.
type binder struct {
	client    kubernetes.Interface
	cache     internalcache.Cache
	queue     *queue.Queue
	podLister listersv1.PodLister
	gens      *generations
	assumes   *assumeLedger
	timing    *bindTiming
	// opts are the scheduler's: bindCheck and bindArbiter set how the
	// bind check runs (checkBeforeBind).
	opts *options
}

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
func (b *binder) runBindingCycle(ctx context.Context, state fwk.CycleState, fw framework.Framework, check *bindCheck, result scheduleResult, assumed *framework.QueuedPodInfo, start time.Time, podsToActivate *framework.PodsToActivate) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	metrics.Goroutines.WithLabelValues(metrics.Binding).Inc()
	defer metrics.Goroutines.WithLabelValues(metrics.Binding).Dec()

	status := b.bindingCycle(ctx, state, fw, check, result, assumed, start, podsToActivate)
	if status.IsSuccess() {
		return
	}
	if errors.Is(status.AsError(), errNodeFilledUp) && assumed.ConsecutiveErrorsCount == 0 {
		// Deferred: after the pod is back in the queue.
		defer b.queue.Activate(klog.FromContext(ctx), map[string]*v1.Pod{assumed.Pod.Namespace + "/" + assumed.Pod.Name: assumed.Pod})
	}
	if err := b.unreserveAndForgetInCache(ctx, state, fw, assumed, result.suggestedHost); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "ForgetPod failed")
	} else {
		// The forgotten pod held resources: other pods may fit now. The pod
		// itself is not moved by this event when it was rejected.
		if status.IsRejected() {
			uid := assumed.Pod.UID
			defer b.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, assumed.Pod, nil, func(p *v1.Pod) bool { return p.UID != uid })
		} else {
			b.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, assumed.Pod, nil, nil)
		}
	}
	b.handleSchedulingFailure(ctx, fw, assumed, status, clearNominatedNode, start)
}

func (b *binder) bindingCycle(ctx context.Context, state fwk.CycleState, fw framework.Framework, check *bindCheck, result scheduleResult, assumedInfo *framework.QueuedPodInfo, start time.Time, podsToActivate *framework.PodsToActivate) *fwk.Status {
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
			if err := updatePod(ctx, b.client, assumed, nil, &fwk.NominatingInfo{NominatedNodeName: result.suggestedHost, NominatingMode: fwk.ModeOverride}); err != nil {
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
	b.queue.Done(assumed.UID)

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
	if st := b.checkBeforeBind(ctx, check, assumed, result.suggestedHost); !st.IsSuccess() {
		return st
	}
	if st := b.bind(ctx, fw, assumed, result.suggestedHost, state); !st.IsSuccess() {
		return st
	}
	logger.V(2).Info("Successfully bound pod to node", "node", result.suggestedHost, "evaluatedNodes", result.evaluatedNodes, "feasibleNodes", result.feasibleNodes)
	metrics.PodScheduled(fw.ProfileName(), metrics.SinceInSeconds(start))
	latency := time.Since(start)
	if assumedInfo.InitialAttemptTimestamp != nil {
		latency = time.Since(*assumedInfo.InitialAttemptTimestamp)
	}
	b.gens.statsOf(fw).record(outcomeBound, latency)
	metrics.PodSchedulingAttempts.Observe(float64(assumedInfo.Attempts))
	if assumedInfo.InitialAttemptTimestamp != nil {
		metrics.PodSchedulingSLIDuration.WithLabelValues(attemptsLabel(assumedInfo)).Observe(metrics.SinceInSeconds(*assumedInfo.InitialAttemptTimestamp))
	}
	b.runPostBindPlugins(ctx, fw, state, assumed, result.suggestedHost)
	if len(podsToActivate.Map) != 0 {
		b.queue.Activate(logger, podsToActivate.Map)
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
func (b *binder) bind(ctx context.Context, fw framework.Framework, assumed *v1.Pod, node string, state fwk.CycleState) (status *fwk.Status) {
	logger := klog.FromContext(ctx)
	start := time.Now()
	defer func() {
		if !status.IsSuccess() {
			logger.V(1).Info("Failed to bind pod", "status", status.Message())
			return
		}
		b.timing.roundTrip.observe(time.Since(start))
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
func (b *binder) handleSchedulingFailure(ctx context.Context, fw framework.Framework, podInfo *framework.QueuedPodInfo, status *fwk.Status, nominatingInfo *fwk.NominatingInfo, start time.Time) {
	podInfo = podInfo.DeepCopy()
	calledDone := false
	defer func() {
		if !calledDone {
			b.queue.Done(podInfo.Pod.UID)
		}
	}()
	logger := klog.FromContext(ctx)
	reason := v1.PodReasonSchedulerError
	if status.IsRejected() {
		reason = v1.PodReasonUnschedulable
		metrics.PodUnschedulable(fw.ProfileName(), metrics.SinceInSeconds(start))
		if !errors.Is(status.AsError(), errNodeFilledUp) {
			b.gens.statsOf(fw).record(outcomeUnschedulable, 0)
		}
	} else {
		metrics.PodScheduleError(fw.ProfileName(), metrics.SinceInSeconds(start))
		b.gens.statsOf(fw).record(outcomeError, 0)
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
	cached, e := b.podLister.Pods(pod.Namespace).Get(pod.Name)
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
		if err := b.queue.AddUnschedulableIfNotPresent(ctx, podInfo); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Requeueing pod failed")
		}
		calledDone = true
	}

	b.queue.AddNominatedPod(logger, nominated, nominatingInfo)
	if nominatingInfo.Mode() == fwk.ModeOverride && nominatingInfo.NominatedNodeName != "" {
		b.assumes.noteNomination(nominatingInfo.NominatedNodeName)
	}
	if err == nil {
		return
	}
	msg := FailedSchedulingMessage(status)
	fw.EventRecorder().WithLogger(logger).Eventf(pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	if err := updatePod(ctx, b.client, pod, &v1.PodCondition{
		Type:               v1.PodScheduled,
		ObservedGeneration: podutil.CalculatePodConditionObservedGeneration(&pod.Status, pod.Generation, v1.PodScheduled),
		Status:             v1.ConditionFalse,
		Reason:             reason,
		Message:            errMsg,
	}, nominatingInfo); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Error updating pod")
	}
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

// forgetAfterPanic undoes what a candidate's cycle that panicked did to
// pod in the cache: if pod is assumed there, its Reserve is undone (a
// panic of Unreserve is contained too) and it is forgotten, so that its
// node's room is not lost for every profile.
func (b *binder) forgetAfterPanic(ctx context.Context, state fwk.CycleState, fw framework.Framework, pod *v1.Pod) {
	logger := klog.FromContext(ctx)
	if assumed, err := b.cache.IsAssumedPod(pod); err != nil || !assumed {
		return
	}
	cached, err := b.cache.GetPod(pod)
	if err != nil || cached.Spec.NodeName == "" {
		return
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				logger.Error(panicError(r), "Unreserve of a rollout's candidate panicked while undoing a panicked cycle", "pod", klog.KObj(pod))
			}
		}()
		fw.RunReservePluginsUnreserve(ctx, state, cached, cached.Spec.NodeName)
	}()
	if err := b.cache.ForgetPod(logger, cached); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "ForgetPod failed after a candidate's panic", "pod", klog.KObj(pod))
		return
	}
	// The forgotten pod held room: other pods may fit now.
	b.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, cached, nil, func(p *v1.Pod) bool { return p.UID != pod.UID })
}

// containBindingPanic, deferred around a candidate's binding cycle, turns
// a panic of one of its plugins into a failed binding: the pod is
// forgotten and goes back to the queue with the error, the candidate
// counts an error, and the process goes on.
func (b *binder) containBindingPanic(ctx context.Context, state fwk.CycleState, prof *liveProfile, assumed *framework.QueuedPodInfo, start time.Time) {
	r := recover()
	if r == nil {
		return
	}
	err := panicError(r)
	klog.FromContext(ctx).Error(err, "A plugin of a rollout's candidate panicked in its binding cycle", "pod", klog.KObj(assumed.Pod))
	prof.stats.panicked()
	b.forgetAfterPanic(ctx, state, prof.fw, assumed.Pod)
	b.handleSchedulingFailure(ctx, prof.fw, assumed, fwk.AsStatus(err), clearNominatedNode, start)
}

// runPostBindPlugins runs fw's PostBind plugins. A panic of a candidate's
// is logged and counted against it: the pod is bound, nothing is undone.
func (b *binder) runPostBindPlugins(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, node string) {
	if !b.gens.servesFramework(fw) {
		defer func() {
			if r := recover(); r != nil {
				klog.FromContext(ctx).Error(panicError(r), "A PostBind plugin of a rollout's candidate panicked; the pod is bound", "pod", klog.KObj(pod))
				if g := b.gens.statsOf(fw); g != nil {
					g.panicked()
				}
			}
		}()
	}
	fw.RunPostBindPlugins(ctx, state, pod, node)
}

// checkBeforeBind runs c (nil: no check): nil when pod, assumed on
// nodeName, still fits there as the cache sees it now, an Unschedulable
// status wrapping errNodeFilledUp when it does not. An error of a plugin
// is logged and lets the bind go on: only a plugin's verdict refuses.
func (b *binder) checkBeforeBind(ctx context.Context, c *bindCheck, pod *v1.Pod, nodeName string) *fwk.Status {
	if c == nil || !b.opts.bindCheck {
		return nil
	}
	start := time.Now()
	var fromAPI podsOnNode
	if b.timing.otherActive() && !b.opts.bindArbiter {
		fromAPI = b.podsOnNodeFromAPI
	}
	st, lastRoom := c.run(ctx, b.cache, fromAPI, pod, nodeName)
	if settle := b.timing.settle(); st.IsSuccess() && lastRoom && settle > 0 {
		bindCheckSettles.WithLabelValues(c.profile).Inc()
		select {
		case <-ctx.Done():
			return fwk.AsStatus(context.Cause(ctx))
		case <-time.After(settle):
		}
		st, _ = c.run(ctx, b.cache, fromAPI, pod, nodeName)
	}
	bindCheckDuration.WithLabelValues(c.profile).Observe(time.Since(start).Seconds())
	if st.IsSuccess() {
		return nil
	}
	logger := klog.FromContext(ctx)
	if !st.IsRejected() {
		logger.Error(st.AsError(), "Bind check failed; binding anyway", "node", nodeName)
		return nil
	}
	bindChecksRefused.WithLabelValues(c.profile, st.Plugin()).Inc()
	err := fmt.Errorf("%w: node %q: %s (pods bound since this pod's scheduling cycle took the room); the pod is scheduled again", errNodeFilledUp, nodeName, st.Message())
	logger.V(2).Info("Bind check refused the pod; scheduling it again", "node", nodeName, "plugin", st.Plugin(), "reason", st.Message())
	return fwk.NewStatus(fwk.Unschedulable).WithError(err).WithPlugin(st.Plugin())
}

// podsOnNodeFromAPI lists the pods bound to nodeName with a consistent
// read (the API server's current state, not a cache's).
func (b *binder) podsOnNodeFromAPI(ctx context.Context, nodeName string) ([]v1.Pod, error) {
	list, err := b.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", nodeName).String(),
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// unreserveAndForgetInCache unreserves a pod assumed in the cache and
// forgets it there.
func (b *binder) unreserveAndForgetInCache(ctx context.Context, state fwk.CycleState, fw framework.Framework, assumed *framework.QueuedPodInfo, node string) error {
	fw.RunReservePluginsUnreserve(ctx, state, assumed.Pod, node)
	return b.cache.ForgetPod(klog.FromContext(ctx), assumed.Pod)
}
