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

package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Node returns a node named name, labelled with its hostname, whose
// capacity and allocatable are capacity, reporting Ready=True. Create it
// with CreateReadyNode.
func Node(name string, capacity corev1.ResourceList) *corev1.Node {
	now := metav1.Now()
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Capacity:    capacity.DeepCopy(),
			Allocatable: capacity.DeepCopy(),
			Phase:       corev1.NodeRunning,
			Conditions: []corev1.NodeCondition{{
				Type:               corev1.NodeReady,
				Status:             corev1.ConditionTrue,
				Reason:             "KubeletReady",
				LastHeartbeatTime:  now,
				LastTransitionTime: now,
			}},
		},
	}
}

// CreateReadyNode creates node and makes it schedulable, as a kubelet and
// the node lifecycle controller would on a real cluster: it writes
// node.Status through the status subresource, then lifts the not-ready
// taint the API server's TaintNodesByCondition admission puts on every new
// node. node holds the object as last written. A node that exists already
// is the API server's AlreadyExists error (apierrors.IsAlreadyExists).
func CreateReadyNode(ctx context.Context, c client.Client, node *corev1.Node) error {
	status := *node.Status.DeepCopy()
	if err := c.Create(ctx, node); err != nil {
		return fmt.Errorf("creating node %s: %w", node.Name, err)
	}
	node.Status = status
	if err := c.Status().Update(ctx, node); err != nil {
		return fmt.Errorf("writing the status of node %s: %w", node.Name, err)
	}
	if err := liftNotReadyTaint(ctx, c, node); err != nil {
		return fmt.Errorf("lifting the not-ready taint of node %s: %w", node.Name, err)
	}
	return nil
}

// liftNotReadyTaint removes the node.kubernetes.io/not-ready taint from
// node, if it has it, with a merge patch: no conflict with other writers.
func liftNotReadyTaint(ctx context.Context, c client.Client, node *corev1.Node) error {
	base := node.DeepCopy()
	var taints []corev1.Taint
	for _, t := range node.Spec.Taints {
		if t.Key != corev1.TaintNodeNotReady {
			taints = append(taints, t)
		}
	}
	if len(taints) == len(base.Spec.Taints) {
		return nil
	}
	node.Spec.Taints = taints
	return c.Patch(ctx, node, client.MergeFrom(base))
}

// Resources is a node's capacity: cpu, memory and pods.
func Resources(cpu, memory, pods string) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods:   resource.MustParse(pods),
	}
}
