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
