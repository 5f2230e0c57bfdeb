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

package review

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// podQuestion asks what one scheduling cycle would decide for one pod: a
// pod of the cluster (a bound one is evaluated as if pending again), or a
// pod template, as if created now.
type podQuestion struct {
	pod *v1.Pod
	// profile is the schedulerName asked for; empty: the pod's.
	profile string
	// scoredNodes bounds the feasible nodes listed with their scores.
	scoredNodes int
}

// podQuestion is the question of req.Pod, or of the pod
// req.PodNamespace/req.PodName the informer knows; a pending pod of a
// PodGroup asks its group's question.
func (rs *Reviews) podQuestion(req Request) (question, error) {
	pod := req.Pod
	if pod == nil {
		p, err := rs.host.Pods().Pods(req.PodNamespace).Get(req.PodName)
		if err != nil {
			return nil, fmt.Errorf("%w: %s/%s", ErrPodNotFound, req.PodNamespace, req.PodName)
		}
		pod = p
		if g := podGroupOf(pod); g != "" && pod.Spec.NodeName == "" && podGroupsOn() {
			name := req.SchedulerName
			if name == "" {
				name = pod.Spec.SchedulerName
			}
			return groupQuestion{namespace: req.PodNamespace, name: g, profile: name}, nil
		}
	}
	return podQuestion{pod: pod, profile: req.SchedulerName, scoredNodes: req.ScoredNodes}, nil
}

func (q podQuestion) schedulerName() string {
	if q.profile != "" {
		return q.profile
	}
	return q.pod.Spec.SchedulerName
}

func (q podQuestion) ask(ctx context.Context, rs *Reviews, rc *cycle, _ scheduler.Profile, out *Answer) error {
	rc.scoredNodes = q.scoredNodes
	pod := q.pod.DeepCopy()
	bound := pod.Spec.NodeName
	if bound != "" {
		// A bound pod is evaluated as if it were pending again, without
		// counting itself where it runs.
		if err := rc.removePod(klog.FromContext(ctx), pod); err != nil {
			return err
		}
		pod.Spec.NodeName = ""
	}
	var err error
	if out.Pod, err = rc.evaluate(ctx, pod); err != nil || bound == "" {
		return err
	}
	out.Pod.BoundNode = bound
	out.Pod.Overcommitted = rs.host.NodeOvercommit(bound)
	return nil
}
