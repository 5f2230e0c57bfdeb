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
	"runtime/pprof"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

var _ scheduler.ShadowJudge = &Reviews{}

// JudgeShadow judges pod with gen, a rollout's candidate, as explaining
// a pod does (Filter on every node, Score, on the reviews' snapshot, with
// the review framework attached to gen): the node it would pick, whether
// servingNode, where the serving generation placed the pod, passes its
// filters, and if not which plugin refused it. The pod is judged as if
// it were not on servingNode. Nothing live is touched. Its work carries
// the pprof label work=shadow. Shadows judge on a snapshot of their own,
// never one a review holds: a user's reviews never keep a rollout's
// shadow waiting.
func (rs *Reviews) JudgeShadow(ctx context.Context, gen *scheduler.Generation, pod *v1.Pod, servingNode string) (v scheduler.ShadowVerdict, err error) {
	pprof.Do(ctx, pprof.Labels("work", "shadow"), func(ctx context.Context) {
		v, err = rs.judgeShadow(ctx, gen, pod, servingNode)
	})
	return v, err
}

func (rs *Reviews) judgeShadow(ctx context.Context, gen *scheduler.Generation, pod *v1.Pod, servingNode string) (scheduler.ShadowVerdict, error) {
	var v scheduler.ShadowVerdict
	if !rs.host.HasSynced() {
		return v, ErrNotReady
	}
	rc, err := rs.startReviewCycle(ctx, rs.shadows, nil, gen)
	if err != nil {
		return v, err
	}
	defer rc.end()
	rc.scoredNodes = 1
	p := pod.DeepCopy()
	if servingNode != "" {
		// The serving generation's pod is on its node (assumed or bound)
		// in the snapshot: it is judged as if it were not.
		p.Spec.NodeName = servingNode
		if err := rc.removePod(klog.FromContext(ctx), p); err != nil {
			klog.FromContext(ctx).V(4).Info("The judged pod is not on its node in the snapshot", "pod", klog.KObj(pod), "node", servingNode, "err", err)
		}
	}
	p.Spec.NodeName = ""
	ans, err := rc.evaluate(ctx, p)
	if err != nil {
		return v, err
	}
	v.Node = ans.SelectedNode
	if servingNode == "" {
		return v, nil
	}
	for _, f := range ans.Feasible {
		if f.Name == servingNode {
			v.FeasibleOnServingNode = true
			return v, nil
		}
	}
	for _, r := range ans.Rejected {
		if r.Node == servingNode {
			v.RefusedBy = r.Plugin
			break
		}
	}
	return v, nil
}

// JudgeShadowGroup judges the members of the pod group namespace/name
// with gen, a rollout's candidate, all or nothing, as the pod-group cycle
// would (the pod-group algorithm on the shadows' snapshot, the members
// taken off the nodes the serving generation placed them on): whether it
// places every member, and how many where the serving generation did.
// Preemption is not run. Nothing live is touched.
func (rs *Reviews) JudgeShadowGroup(ctx context.Context, gen *scheduler.Generation, namespace, name string, members []scheduler.ShadowMember) (v scheduler.ShadowGroupVerdict, err error) {
	pprof.Do(ctx, pprof.Labels("work", "shadow"), func(ctx context.Context) {
		v, err = rs.judgeShadowGroup(ctx, gen, namespace, name, members)
	})
	return v, err
}

func (rs *Reviews) judgeShadowGroup(ctx context.Context, gen *scheduler.Generation, namespace, name string, members []scheduler.ShadowMember) (scheduler.ShadowGroupVerdict, error) {
	var v scheduler.ShadowGroupVerdict
	if !rs.host.HasSynced() {
		return v, ErrNotReady
	}
	rc, err := rs.startReviewCycle(ctx, rs.shadows, nil, gen)
	if err != nil {
		return v, err
	}
	defer rc.end()
	logger := klog.FromContext(ctx)
	pending := make([]*v1.Pod, 0, len(members))
	serving := make(map[string]string, len(members))
	for _, m := range members {
		p := m.Pod.DeepCopy()
		if m.ServingNode != "" {
			p.Spec.NodeName = m.ServingNode
			if err := rc.removePod(logger, p); err != nil {
				logger.V(4).Info("The judged member is not on its node in the snapshot", "pod", klog.KObj(p), "node", m.ServingNode, "err", err)
			}
		}
		p.Spec.NodeName = ""
		serving[p.Name] = m.ServingNode
		pending = append(pending, p)
	}
	placed, err := rs.placeGroup(ctx, rc, namespace, name, pending)
	if err != nil {
		return v, err
	}
	v.Placed = len(placed) == len(members)
	for _, p := range placed {
		if p.Node == "" {
			v.Placed = false
			if v.Message == "" {
				v.Message = p.Message
			}
			continue
		}
		if p.Node == serving[p.Name] {
			v.SameNodes++
		}
	}
	if !v.Placed {
		v.SameNodes = 0
	}
	return v, nil
}
