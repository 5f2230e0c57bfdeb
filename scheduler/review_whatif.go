package scheduler

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// whatIf places every pending pod of schedulerName in queue order on the
// review's snapshot, each placed pod assumed there for the next. Gated
// pods are not pending for the queue and are left out.
func (s *Scheduler) whatIf(ctx context.Context, rc *reviewCycle, schedulerName string) ([]WhatIfPod, error) {
	logger := klog.FromContext(ctx)
	all, err := s.podLister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var pending []*framework.QueuedPodInfo
	for _, pod := range all {
		if pod.Spec.SchedulerName != schedulerName || pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil ||
			len(pod.Spec.SchedulingGates) > 0 || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		if assumed, _ := s.cache.IsAssumedPod(pod); assumed {
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
	// Only the node each pod goes to is reported: no node's scores are
	// listed but the first one's.
	rc.scoredNodes = 1
	out := make([]WhatIfPod, 0, len(pending))
	// --- pod groups: a group is placed when its first member comes up
	// in queue order, as the queue pops the group then.
	groupsDone := map[string]bool{}
	// --- end pod groups
	for _, qp := range pending {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// --- pod groups
		if g := podGroupOf(qp.Pod); g != "" && podGroupsOn() {
			key := qp.Pod.Namespace + "/" + g
			if !groupsDone[key] {
				groupsDone[key] = true
				pods, err := s.whatIfGroup(ctx, rc, qp.Pod.Namespace, g)
				if err != nil {
					return nil, err
				}
				out = append(out, pods...)
			}
			continue
		}
		// --- end pod groups
		pod := qp.Pod.DeepCopy()
		res := WhatIfPod{Namespace: pod.Namespace, Name: pod.Name}
		r, err := rc.evaluate(ctx, pod)
		switch {
		case err != nil:
			res.Message = err.Error()
		case r.SelectedNode == "":
			res.Message = r.Message
		default:
			res.Node = r.SelectedNode
			pod.Spec.NodeName = r.SelectedNode
			pi, err := framework.NewPodInfo(pod)
			if err != nil {
				return nil, err
			}
			if err := rc.snapshot.AssumePod(pi); err != nil {
				return nil, fmt.Errorf("assuming %s on the review's snapshot: %w", klog.KObj(pod), err)
			}
			logger.V(5).Info("What-if placed pod", "pod", klog.KObj(pod), "node", r.SelectedNode)
		}
		out = append(out, res)
	}
	return out, nil
}
