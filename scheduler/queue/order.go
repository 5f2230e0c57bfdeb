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
	"cmp"
	"strings"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// ComparePending orders pending pods that reach a profile together (the
// pods waiting for a profile that just went live) and the pods a what-if
// review places: higher priority first, then the older creation time, then
// namespace and name. Adding such pods to the queue in this order gives the
// queue sort (PrioritySort: priority, then the time a pod was queued) the
// same order, so a what-if names the same pods as the queue places.
func ComparePending(a, b *v1.Pod) int {
	if pa, pb := corev1helpers.PodPriority(a), corev1helpers.PodPriority(b); pa != pb {
		return cmp.Compare(pb, pa)
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}
