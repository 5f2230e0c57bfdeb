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
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// pendingQuestion asks where the pending pods of a schedulerName would go,
// placed in queue order, each assumed for the next (what-if).
type pendingQuestion struct {
	// profile is the schedulerName whose profile answers;
	// pendingSchedulerName the pods'. Empty: the answering profile's.
	profile, pendingSchedulerName string
}

func (q pendingQuestion) schedulerName() string { return q.profile }

func (q pendingQuestion) ask(ctx context.Context, rs *Reviews, rc *cycle, _ scheduler.Profile, out *Answer) error {
	name := q.pendingSchedulerName
	if name == "" {
		name = out.SchedulerName
	}
	var err error
	out.WhatIf, err = rs.whatIf(ctx, rc, name)
	return err
}

// whatIf places every pending pod of schedulerName in queue order on the
// review's snapshot, each placed pod assumed there for the next. Gated
// pods are not pending for the queue and are left out.
func (rs *Reviews) whatIf(ctx context.Context, rc *cycle, schedulerName string) ([]WhatIfPod, error) {
	pending, err := rs.pendingPods(rc, schedulerName)
	if err != nil {
		return nil, err
	}
	// A pending pod group is placed whole, with the group cycle, when its
	// first member comes up.
	return rc.place(ctx, pending, func(ctx context.Context, namespace, name string) ([]WhatIfPod, error) {
		return rs.whatIfGroup(ctx, rc, namespace, name)
	})
}

// pendingPods are the pending pods of schedulerName in queue order.
func (rs *Reviews) pendingPods(rc *cycle, schedulerName string) ([]*framework.QueuedPodInfo, error) {
	all, err := rs.host.Pods().List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var pending []*framework.QueuedPodInfo
	for _, pod := range all {
		if pod.Spec.SchedulerName != schedulerName || pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil ||
			len(pod.Spec.SchedulingGates) > 0 || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		if rs.host.IsAssumed(pod) {
			// Already placed in the snapshot.
			continue
		}
		pi, err := framework.NewPodInfo(pod)
		if err != nil {
			return nil, err
		}
		pending = append(pending, &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: pod.CreationTimestamp.Time}})
	}
	// The profile's queue sort with each pod's creation time as its queue
	// time, and where it ties, the order the queue takes pods that arrive
	// together in (queue.ComparePending): the same pods in the same order
	// for every review of the same state.
	rc.sortPending(pending)
	return pending, nil
}

// sortPending orders pods as the queue takes them: the profile's queue
// sort, and where it ties, queue.ComparePending.
func (rc *cycle) sortPending(pending []*framework.QueuedPodInfo) {
	less := rc.fw.QueueSortFunc()
	slices.SortFunc(pending, func(a, b *framework.QueuedPodInfo) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return queue.ComparePending(a.Pod, b.Pod)
	})
}

// place places pending pods in the order given on the review's snapshot,
// each placed pod assumed there for the next. What-if and scenarios
// (scenario.go) place all their pending work through it. With
// placeGroup set, a member of a pod group is not placed alone: the first
// member to come up has its whole group placed by placeGroup, and the
// others are skipped (scenarios settle their template groups themselves).
func (rc *cycle) place(ctx context.Context, pending []*framework.QueuedPodInfo, placeGroup func(ctx context.Context, namespace, name string) ([]WhatIfPod, error)) ([]WhatIfPod, error) {
	logger := klog.FromContext(ctx)
	// Only the node each pod goes to is reported (or why none): no
	// node's scores are listed but the first one's, no rejected node.
	rc.scoredNodes, rc.placing = 1, true
	out := make([]WhatIfPod, 0, len(pending))
	// A group is placed when its first member comes up in queue order,
	// as the queue pops the group then.
	groupsDone := map[string]bool{}
	for _, qp := range pending {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if g := podGroupOf(qp.Pod); g != "" && placeGroup != nil && podGroupsOn() {
			key := qp.Pod.Namespace + "/" + g
			if !groupsDone[key] {
				groupsDone[key] = true
				pods, err := placeGroup(ctx, qp.Pod.Namespace, g)
				if err != nil {
					return nil, err
				}
				out = append(out, pods...)
			}
			continue
		}
		pod := shallowCopy(qp.Pod)
		res := WhatIfPod{Namespace: pod.Namespace, Name: pod.Name}
		r, err := rc.evaluate(ctx, pod)
		switch {
		case err != nil:
			res.Message = err.Error()
		case r.SelectedNode == "":
			res.Message = r.Message
		default:
			res.Node, res.Tied = r.SelectedNode, r.Tied
			pod.Spec.NodeName = r.SelectedNode
			pi, err := framework.NewPodInfo(pod)
			if err != nil {
				return nil, err
			}
			if err := rc.assume(pi); err != nil {
				return nil, fmt.Errorf("assuming %s on the review's snapshot: %w", klog.KObj(pod), err)
			}
			logger.V(5).Info("What-if placed pod", "pod", klog.KObj(pod), "node", r.SelectedNode)
		}
		out = append(out, res)
	}
	return out, nil
}
