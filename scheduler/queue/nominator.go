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

package queue

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// nominator remembers which pods are nominated to which nodes, so that
// lower or equal priority pods treat them as already placed there.
//
// It stores its own copies of PodInfo and never mutates them, so readers may
// use them without a lock. Lock order: Queue.lock, then nominator.lock;
// the Queue's PodNominator methods take nominator.lock alone.
type nominator struct {
	lock      sync.RWMutex
	podLister listersv1.PodLister
	byNode    map[string][]fwk.PodInfo
	podToNode map[types.UID]string
}

func newNominator(podLister listersv1.PodLister) *nominator {
	return &nominator{
		podLister: podLister,
		byNode:    make(map[string][]fwk.PodInfo),
		podToNode: make(map[types.UID]string),
	}
}

func (n *nominator) add(logger klog.Logger, pi fwk.PodInfo, nominatingInfo *fwk.NominatingInfo) {
	n.lock.Lock()
	defer n.lock.Unlock()
	n.addLocked(logger, pi, nominatingInfo)
}

func (n *nominator) addLocked(logger klog.Logger, pi fwk.PodInfo, nominatingInfo *fwk.NominatingInfo) {
	pod := pi.GetPod()
	n.deleteLocked(pod)

	var nodeName string
	switch nominatingInfo.Mode() {
	case fwk.ModeOverride:
		nodeName = nominatingInfo.NominatedNodeName
	case fwk.ModeNoop:
		nodeName = pod.Status.NominatedNodeName
	}
	if nodeName == "" {
		return
	}
	if n.podLister != nil {
		// A pod that is gone or already bound is not nominated anywhere.
		current, err := n.podLister.Pods(pod.Namespace).Get(pod.Name)
		if err != nil {
			logger.V(4).Info("Pod doesn't exist in podLister, not nominating it", "pod", klog.KObj(pod))
			return
		}
		if current.Spec.NodeName != "" {
			logger.V(4).Info("Pod is already bound, not nominating it", "pod", klog.KObj(pod), "node", current.Spec.NodeName)
			return
		}
	}
	if p, ok := pi.(*framework.PodInfo); ok {
		pi = p.DeepCopy()
	}
	n.podToNode[pod.UID] = nodeName
	n.byNode[nodeName] = append(n.byNode[nodeName], pi)
}

func (n *nominator) update(logger klog.Logger, oldPod *v1.Pod, newPodInfo fwk.PodInfo) {
	n.lock.Lock()
	defer n.lock.Unlock()
	// An update that carries no nominated node name right after the
	// scheduler nominated one in memory keeps the in-memory nomination.
	var nominatingInfo *fwk.NominatingInfo
	if oldPod.Status.NominatedNodeName == "" && newPodInfo.GetPod().Status.NominatedNodeName == "" {
		if nnn, ok := n.podToNode[oldPod.UID]; ok {
			nominatingInfo = &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: nnn}
		}
	}
	n.deleteLocked(oldPod)
	n.addLocked(logger, newPodInfo, nominatingInfo)
}

func (n *nominator) delete(pod *v1.Pod) {
	n.lock.Lock()
	defer n.lock.Unlock()
	n.deleteLocked(pod)
}

func (n *nominator) deleteLocked(pod *v1.Pod) {
	nnn, ok := n.podToNode[pod.UID]
	if !ok {
		return
	}
	list := n.byNode[nnn]
	for i, pi := range list {
		if pi.GetPod().UID == pod.UID {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(n.byNode, nnn)
	} else {
		n.byNode[nnn] = list
	}
	delete(n.podToNode, pod.UID)
}

func (n *nominator) forNode(nodeName string) []fwk.PodInfo {
	n.lock.RLock()
	defer n.lock.RUnlock()
	list := n.byNode[nodeName]
	out := make([]fwk.PodInfo, len(list))
	copy(out, list)
	return out
}

// AddNominatedPod implements fwk.PodNominator.
func (q *Queue) AddNominatedPod(logger klog.Logger, pi fwk.PodInfo, nominatingInfo *fwk.NominatingInfo) {
	q.nominator.add(logger, pi, nominatingInfo)
}

// DeleteNominatedPodIfExists implements fwk.PodNominator.
func (q *Queue) DeleteNominatedPodIfExists(pod *v1.Pod) { q.nominator.delete(pod) }

// UpdateNominatedPod implements fwk.PodNominator.
func (q *Queue) UpdateNominatedPod(logger klog.Logger, oldPod *v1.Pod, newPodInfo fwk.PodInfo) {
	q.nominator.update(logger, oldPod, newPodInfo)
}

// NominatedPodsForNode implements fwk.PodNominator.
func (q *Queue) NominatedPodsForNode(nodeName string) []fwk.PodInfo {
	return q.nominator.forNode(nodeName)
}
