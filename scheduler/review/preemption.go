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
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
)

// dryRunPreemption answers what DefaultPreemption's PostFilter would do,
// with the steps of upstream's Evaluator.Preempt up to the choice of the
// candidate (eligibility, candidates by dry-run on a copy of the state,
// preempting extenders, SelectCandidate) and none of its actuation: no
// victim is evicted, no nominated node is written. Message is the text
// PostFilter would add to the FailedScheduling message.
func (rc *cycle) dryRunPreemption(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m *framework.NodeToStatus) *Preemption {
	if rc.preemption == nil {
		return &Preemption{NotEvaluated: rc.notPreempting}
	}
	out := &Preemption{}
	if rc.draPostFilter && len(pod.Spec.ResourceClaims) > 0 {
		out.NotEvaluated = "DynamicResources' PostFilter (which may deallocate a claim of the pod first) is not run in a review"
	}
	msg := rc.preempt(ctx, state, pod, m, out)
	if msg != "" {
		out.Message = "preemption: " + msg
	}
	return out
}

// preempt returns the message of the status Evaluator.Preempt would return.
func (rc *cycle) preempt(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m *framework.NodeToStatus, out *Preemption) string {
	logger := klog.FromContext(ctx)
	ev := rc.preemption.Evaluator
	if ok, msg := ev.PodEligibleToPreemptOthers(ctx, pod, m.Get(pod.Status.NominatedNodeName)); !ok {
		return msg
	}
	nodeLister := rc.fw.MutableSnapshotSharedLister().NodeInfos()
	allNodes, err := nodeLister.List()
	if err != nil {
		return err.Error()
	}
	if len(allNodes) == 0 {
		return "no nodes available"
	}
	potential, err := m.NodesForStatusCode(nodeLister, fwk.Unschedulable)
	if err != nil {
		return err.Error()
	}
	var candidates []preemption.Candidate
	nodeToStatus := framework.NewDefaultNodeToStatus()
	if len(potential) > 0 {
		pdbs, err := ev.PdbLister.List(labels.Everything())
		if err != nil {
			return err.Error()
		}
		offset, num := ev.GetOffsetAndNumCandidates(int32(len(potential)))
		candidates, nodeToStatus, err = ev.DryRunPreemption(ctx, state, pod, potential, pdbs, offset, num)
		if err != nil && len(candidates) == 0 {
			return err.Error()
		}
	}
	if len(candidates) == 0 {
		fitError := &framework.FitError{Pod: pod, NumAllNodes: len(allNodes), Diagnosis: framework.Diagnosis{NodeToStatus: nodeToStatus}}
		fitError.Diagnosis.NodeToStatus.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "Preemption is not helpful for scheduling"))
		return fitError.Error()
	}
	candidates, err = rc.preemptingExtenders(logger, pod, candidates, nodeLister)
	if err != nil {
		return err.Error()
	}
	best := ev.SelectCandidate(ctx, candidates)
	if best == nil || best.Name() == "" {
		return "no candidate node for preemption"
	}
	out.Node = best.Name()
	for _, v := range best.Victims().Pods {
		out.Victims = append(out.Victims, v.Namespace+"/"+v.Name)
	}
	return fmt.Sprintf("found a potential placement for pod on node %v, preempting %d victims", best.Name(), len(best.Victims().Pods))
}

// preemptingExtenders lets the extenders that support preemption narrow
// the candidates, as upstream's Evaluator does before SelectCandidate.
func (rc *cycle) preemptingExtenders(logger klog.Logger, pod *v1.Pod, candidates []preemption.Candidate, nodeLister fwk.NodeInfoLister) ([]preemption.Candidate, error) {
	extenders := rc.fw.Extenders()
	if len(extenders) == 0 {
		return candidates, nil
	}
	victims := rc.preemption.Evaluator.CandidatesToVictimsMap(candidates)
	if len(victims) == 0 {
		return candidates, nil
	}
	for _, e := range extenders {
		if !e.SupportsPreemption() || !e.IsInterested(pod) {
			continue
		}
		got, err := e.ProcessPreemption(pod, victims, nodeLister)
		if err != nil {
			if e.IsIgnorable() {
				logger.V(2).Info("Skipped extender as it returned error and has ignorable flag set", "extender", e.Name(), "err", err)
				continue
			}
			return nil, err
		}
		for node, v := range got {
			if v == nil || len(v.Pods) == 0 {
				if e.IsIgnorable() {
					delete(got, node)
					continue
				}
				return nil, fmt.Errorf("expected at least one victim pod on node %q", node)
			}
		}
		victims = got
		if len(victims) == 0 {
			break
		}
	}
	out := make([]preemption.Candidate, 0, len(victims))
	for node, v := range victims {
		out = append(out, &candidate{name: node, victims: v})
	}
	return out, nil
}

type candidate struct {
	name    string
	victims *extenderv1.Victims
}

func (c *candidate) Name() string                 { return c.name }
func (c *candidate) Victims() *extenderv1.Victims { return c.victims }

// NumPodGroupDisruptions is 0: extenders answer per pod, as upstream's
// candidates rebuilt from an extender's answer.
func (c *candidate) NumPodGroupDisruptions() int { return 0 }
