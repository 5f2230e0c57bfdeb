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
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

func (s *Scheduler) addPodAndNodeHandlers() error {
	s.watcher.mu.Lock()
	defer s.watcher.mu.Unlock()
	reg, err := s.informerFactory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    s.onPodAdd,
		UpdateFunc: s.onPodUpdate,
		DeleteFunc: s.onPodDelete,
	})
	if err != nil {
		return err
	}
	s.watcher.handlers = append(s.watcher.handlers, reg)
	reg, err = s.informerFactory.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    s.onNodeAdd,
		UpdateFunc: s.onNodeUpdate,
		DeleteFunc: s.onNodeDelete,
	})
	if err != nil {
		return err
	}
	s.watcher.handlers = append(s.watcher.handlers, reg)
	s.watcher.watched[fwk.Node] = true
	s.watcher.watched[fwk.Pod] = true
	if utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		reg, err = s.informerFactory.Scheduling().V1beta1().PodGroups().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    s.onPodGroupAdd,
			UpdateFunc: s.onPodGroupUpdate,
			DeleteFunc: s.onPodGroupDelete,
		})
		if err != nil {
			return err
		}
		s.watcher.handlers = append(s.watcher.handlers, reg)
		s.watcher.watched[fwk.PodGroup] = true
	}
	return nil
}

func (s *Scheduler) onPodGroupAdd(obj interface{}) {
	ctx := s.ctx
	logger := klog.FromContext(ctx)
	pg, ok := obj.(*schedulingv1beta1.PodGroup)
	if !ok {
		utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1beta1.PodGroup", "obj", obj)
		return
	}
	logger.V(3).Info("Add event for pod group", "podGroup", klog.KObj(pg))
	s.cache.AddPodGroup(pg)
	s.queue.AddPodGroup(ctx, pg.Namespace, pg.Name)
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, fwk.ClusterEvent{Resource: fwk.PodGroup, ActionType: fwk.Add}, nil, pg, nil)
}

func (s *Scheduler) onPodGroupUpdate(oldObj, newObj interface{}) {
	ctx := s.ctx
	logger := klog.FromContext(ctx)
	oldPG, ok1 := oldObj.(*schedulingv1beta1.PodGroup)
	newPG, ok2 := newObj.(*schedulingv1beta1.PodGroup)
	if !ok1 || !ok2 {
		utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1beta1.PodGroup", "oldObj", oldObj, "newObj", newObj)
		return
	}
	if oldPG.ResourceVersion == newPG.ResourceVersion {
		return
	}
	logger.V(4).Info("Update event for pod group", "podGroup", klog.KObj(newPG))
	s.cache.UpdatePodGroup(logger, oldPG, newPG)
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, fwk.ClusterEvent{Resource: fwk.PodGroup, ActionType: fwk.Update}, oldPG, newPG, nil)
}

func (s *Scheduler) onPodGroupDelete(obj interface{}) {
	ctx := s.ctx
	logger := klog.FromContext(ctx)
	var pg *schedulingv1beta1.PodGroup
	switch t := obj.(type) {
	case *schedulingv1beta1.PodGroup:
		pg = t
	case cache.DeletedFinalStateUnknown:
		p, ok := t.Obj.(*schedulingv1beta1.PodGroup)
		if !ok {
			utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1beta1.PodGroup", "obj", t.Obj)
			return
		}
		pg = p
	default:
		utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1beta1.PodGroup", "obj", fmt.Sprintf("%T", obj))
		return
	}
	logger.V(3).Info("Delete event for pod group", "podGroup", klog.KObj(pg))
	s.cache.RemovePodGroup(logger, pg)
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, fwk.ClusterEvent{Resource: fwk.PodGroup, ActionType: fwk.Delete}, pg, nil, nil)
}

func (s *Scheduler) onNodeAdd(obj interface{}) {
	ctx := s.ctx
	logger := klog.FromContext(ctx)
	node, ok := obj.(*v1.Node)
	if !ok {
		utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1.Node", "obj", obj)
		return
	}
	logger.V(3).Info("Add event for node", "node", klog.KObj(node))
	s.cache.AddNode(logger, node)
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add}, nil, node, nil)
}

func (s *Scheduler) onNodeUpdate(oldObj, newObj interface{}) {
	ctx := s.ctx
	logger := klog.FromContext(ctx)
	oldNode, ok1 := oldObj.(*v1.Node)
	newNode, ok2 := newObj.(*v1.Node)
	if !ok1 || !ok2 {
		utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1.Node", "oldObj", oldObj, "newObj", newObj)
		return
	}
	logger.V(4).Info("Update event for node", "node", klog.KObj(newNode))
	s.cache.UpdateNode(logger, oldNode, newNode)
	for _, evt := range framework.NodeSchedulingPropertiesChange(newNode, oldNode) {
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, evt, oldNode, newNode, nil)
	}
}

func (s *Scheduler) onNodeDelete(obj interface{}) {
	ctx := s.ctx
	logger := klog.FromContext(ctx)
	var node *v1.Node
	switch t := obj.(type) {
	case *v1.Node:
		node = t
	case cache.DeletedFinalStateUnknown:
		n, ok := t.Obj.(*v1.Node)
		if !ok {
			utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1.Node", "obj", t.Obj)
			return
		}
		node = n
	default:
		utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1.Node", "obj", t)
		return
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Delete}, node, nil, nil)
	logger.V(3).Info("Delete event for node", "node", klog.KObj(node))
	if err := s.cache.RemoveNode(logger, node); err != nil {
		utilruntime.HandleErrorWithLogger(logger, err, "Scheduler cache RemoveNode failed")
	}
}

func assigned(pod *v1.Pod) bool { return pod.Spec.NodeName != "" }

func (s *Scheduler) onPodAdd(obj interface{}) {
	ctx := s.ctx
	logger := klog.FromContext(ctx)
	pod, ok := obj.(*v1.Pod)
	if !ok {
		utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1.Pod", "obj", obj)
		return
	}
	if assigned(pod) {
		s.addAssignedPod(ctx, pod)
		return
	}
	// The queue ignores pods whose schedulerName no profile serves.
	if s.queue.Serves(pod.Spec.SchedulerName) {
		logger.V(3).Info("Add event for unscheduled pod", "pod", klog.KObj(pod))
		s.cache.AddPodGroupMember(pod)
		s.queue.Add(ctx, pod)
		if utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
			s.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventUnscheduledPodAdd, nil, pod, nil)
		}
	}
}

func (s *Scheduler) onPodUpdate(oldObj, newObj interface{}) {
	ctx := s.ctx
	logger := klog.FromContext(ctx)
	oldPod, ok1 := oldObj.(*v1.Pod)
	newPod, ok2 := newObj.(*v1.Pod)
	if !ok1 || !ok2 {
		utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1.Pod", "oldObj", oldObj, "newObj", newObj)
		return
	}
	switch {
	case assigned(oldPod):
		if err := s.cache.UpdatePod(logger, oldPod, newPod); err != nil {
			utilruntime.HandleErrorWithLogger(logger, err, "Scheduler cache UpdatePod failed", "pod", klog.KObj(oldPod))
		}
		for _, evt := range framework.PodSchedulingPropertiesChange(newPod, oldPod, false) {
			s.queue.MoveAllToActiveOrBackoffQueue(ctx, evt, oldPod, newPod, nil)
		}
	case assigned(newPod):
		// A binding: ours (the pod is assumed) or someone else's.
		s.addAssignedPod(ctx, newPod)
		s.queue.Delete(oldPod)
	case s.queue.Serves(oldPod.Spec.SchedulerName):
		s.updatePendingPod(ctx, oldPod, newPod)
	}
}

func (s *Scheduler) updatePendingPod(ctx context.Context, oldPod, newPod *v1.Pod) {
	logger := klog.FromContext(ctx)
	if oldPod.ResourceVersion == newPod.ResourceVersion {
		return
	}
	s.cache.UpdatePodGroupMember(logger, oldPod, newPod)
	isAssumed, err := s.cache.IsAssumedPod(newPod)
	if err != nil {
		utilruntime.HandleErrorWithLogger(logger, err, "Failed to check whether pod is assumed", "pod", klog.KObj(newPod))
	}
	if isAssumed {
		if newPod.DeletionTimestamp != nil && oldPod.DeletionTimestamp == nil {
			s.handleAssumedPodDeletion(ctx, newPod)
		}
		return
	}
	logger.V(4).Info("Update event for unscheduled pod", "pod", klog.KObj(newPod))
	s.queue.Update(ctx, oldPod, newPod)
	if oldPod.Status.NominatedNodeName != "" && oldPod.Status.NominatedNodeName != newPod.Status.NominatedNodeName {
		// Lower or equal priority pods treated the nominated pod as placed.
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, oldPod, nil, lowerOrEqualPriority(oldPod))
	}
}

func lowerOrEqualPriority(pod *v1.Pod) func(*v1.Pod) bool {
	p := corev1helpers.PodPriority(pod)
	return func(other *v1.Pod) bool { return corev1helpers.PodPriority(other) <= p }
}

func (s *Scheduler) onPodDelete(obj interface{}) {
	ctx := s.ctx
	logger := klog.FromContext(ctx)
	var pod *v1.Pod
	stale := false
	switch t := obj.(type) {
	case *v1.Pod:
		pod = t
	case cache.DeletedFinalStateUnknown:
		p, ok := t.Obj.(*v1.Pod)
		if !ok {
			utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1.Pod", "obj", t.Obj)
			return
		}
		pod, stale = p, true
	default:
		utilruntime.HandleErrorWithLogger(logger, nil, "Cannot convert to *v1.Pod", "obj", fmt.Sprintf("%T", obj))
		return
	}
	// A pod deleted while its bind was in flight holds no room.
	s.binds.release(pod.UID)
	if assigned(pod) || stale {
		s.removeAssignedPod(ctx, pod)
		if !stale {
			return
		}
	}
	if !s.queue.Serves(pod.Spec.SchedulerName) {
		return
	}
	logger.V(3).Info("Delete event for unscheduled pod", "pod", klog.KObj(pod))
	s.queue.Delete(pod)
	isAssumed, err := s.cache.IsAssumedPod(pod)
	if err != nil {
		utilruntime.HandleErrorWithLogger(logger, err, "Failed to check whether pod is assumed", "pod", klog.KObj(pod))
	}
	if isAssumed {
		s.handleAssumedPodDeletion(ctx, pod)
		return
	}
	s.cache.RemovePodGroupMember(pod)
	if pod.Status.NominatedNodeName != "" {
		s.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, pod, nil, lowerOrEqualPriority(pod))
	}
}

// handleAssumedPodDeletion frees what an assumed pod that is being deleted
// holds: a pod waiting on permit is rejected (its binding cycle cleans up),
// any other is removed from the cache.
func (s *Scheduler) handleAssumedPodDeletion(ctx context.Context, pod *v1.Pod) {
	logger := klog.FromContext(ctx)
	assumedPod, err := s.cache.GetPod(pod)
	if err != nil {
		logger.V(5).Info("Assumed pod was already forgotten", "pod", klog.KObj(pod))
		return
	}
	rejected := false
	if p := s.gens.acquire(assumedPod.Spec.SchedulerName); p != nil {
		rejected = p.fw.RejectWaitingPod(assumedPod.UID)
		p.release(logger)
	}
	if r := s.gens.rollout(assumedPod.Spec.SchedulerName); r != nil && !rejected && r.candidate.acquire() {
		rejected = r.candidate.fw.RejectWaitingPod(assumedPod.UID)
		r.candidate.release(logger)
	}
	if !rejected {
		if err := s.cache.RemoveAssumedPod(logger, assumedPod); err != nil {
			utilruntime.HandleErrorWithLogger(logger, err, "Scheduler cache RemoveAssumedPod failed", "pod", klog.KObj(assumedPod))
		}
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, assumedPod, nil, nil)
}

func (s *Scheduler) addAssignedPod(ctx context.Context, pod *v1.Pod) {
	logger := klog.FromContext(ctx)
	logger.V(3).Info("Add event for scheduled pod", "pod", klog.KObj(pod))
	if err := s.cache.AddPod(logger, pod); err != nil {
		utilruntime.HandleErrorWithLogger(logger, err, "Scheduler cache AddPod failed", "pod", klog.KObj(pod))
	}
	// The cache has the bind now: the arbiter's hold on its room ends.
	s.binds.release(pod.UID)
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodAdd, nil, pod, nil)
}

func (s *Scheduler) removeAssignedPod(ctx context.Context, pod *v1.Pod) {
	logger := klog.FromContext(ctx)
	logger.V(3).Info("Delete event for scheduled pod", "pod", klog.KObj(pod))
	if err := s.cache.RemovePod(logger, pod); err != nil {
		utilruntime.HandleErrorWithLogger(logger, err, "Scheduler cache RemovePod failed", "pod", klog.KObj(pod))
	}
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, pod, nil, nil)
}
