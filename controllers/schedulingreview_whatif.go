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

package controllers

import (
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// pendingQuestion is a what-if review (spec.pendingPods): where the
// pending pods of a schedulerName would go, in queue order.
type pendingQuestion struct{}

func (pendingQuestion) request(sr *v1alpha1.SchedulingReview, _ metav1.Time, req *review.Request) *Refusal {
	req.PendingPods, req.PendingSchedulerName = true, sr.Spec.SchedulerName
	return nil
}

func (pendingQuestion) answer(sr *v1alpha1.SchedulingReview, r *review.Answer, st *v1alpha1.SchedulingReviewStatus) string {
	st.WhatIf = whatIfResult(r.WhatIf, sr.Namespace)
	msg := strconv.Itoa(int(st.WhatIf.Placed)) + " of " + plural(int(st.WhatIf.PendingPods), "pending pod") + " would be placed"
	if st.WhatIf.PendingGroups > 0 {
		msg += ", " + strconv.Itoa(int(st.WhatIf.PlacedGroups)) + " of " + plural(int(st.WhatIf.PendingGroups), "pod group")
	}
	return msg
}

func (pendingQuestion) notFound(_ *v1alpha1.SchedulingReview, err error) string {
	return "spec.podName: " + err.Error()
}

// maxWhatIfPods bounds the pods listed in status.whatIf.pods.
const maxWhatIfPods = 500

// whatIfResult counts every pod and lists those of namespace (a review
// shows its own namespace's pods only), at most maxWhatIfPods.
func whatIfResult(pods []review.WhatIfPod, namespace string) *v1alpha1.WhatIfResult {
	out := &v1alpha1.WhatIfResult{PendingPods: int32(len(pods))}
	// A group is placed when its members are (all or none).
	groups := sets.New[string]()
	for _, p := range pods {
		if p.Node != "" {
			out.Placed++
		}
		if p.Group != "" {
			key := p.Namespace + "/" + p.Group
			if !groups.Has(key) {
				groups.Insert(key)
				out.PendingGroups++
				if p.Node != "" {
					out.PlacedGroups++
				}
			}
		}
		if p.Namespace != namespace || len(out.Pods) == maxWhatIfPods {
			continue
		}
		out.Pods = append(out.Pods, v1alpha1.WhatIfPod{Pod: p.Namespace + "/" + p.Name, Node: p.Node, Message: p.Message, PodGroup: p.Group})
	}
	return out
}
