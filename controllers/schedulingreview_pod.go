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
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/decode"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// podQuestion is a review of one pod (spec.podName) or pod template
// (spec.podTemplate): what one scheduling cycle would decide for it. A
// pending member of a PodGroup is answered for its group.
type podQuestion struct{}

func (podQuestion) request(sr *v1alpha1.SchedulingReview, now metav1.Time, req *review.Request) *Refusal {
	if sr.Spec.PodTemplate == nil {
		req.PodNamespace, req.PodName = sr.Namespace, sr.Spec.PodName
		return nil
	}
	pod, errs := templatePod(sr, now)
	if len(errs) > 0 {
		return &Refusal{Reason: v1alpha1.ReasonInvalidPodTemplate, Message: errs.ToAggregate().Error()}
	}
	req.Pod = pod
	return nil
}

func (podQuestion) answer(sr *v1alpha1.SchedulingReview, r *review.Answer, st *v1alpha1.SchedulingReviewStatus) string {
	if r.Group != nil {
		// A member: its group's answer, and its own outcome in it.
		msg := groupQuestion{}.answer(sr, r, st)
		st.Result = memberResult(sr.Namespace, sr.Spec.PodName, st.Group)
		return msg
	}
	st.Result = podResult(r.Pod, sr.Namespace, maxNodes(sr))
	switch {
	case st.Result.TiedNodes > 1:
		return "the pod would go to one of " + strconv.Itoa(int(st.Result.TiedNodes)) + " nodes with the best score, at random, such as " + st.Result.SelectedNode
	case st.Result.SelectedNode != "":
		return "the pod would go to " + st.Result.SelectedNode
	}
	return "no node fits"
}

func (podQuestion) notFound(sr *v1alpha1.SchedulingReview, err error) string {
	if errors.Is(err, review.ErrPodNotFound) {
		return fmt.Sprintf("spec.podName: no pod %q in namespace %q that is pending or running", sr.Spec.PodName, sr.Namespace)
	}
	return "spec.podName: " + err.Error()
}

// maxRejectionGroups bounds status.result.rejected: the smallest groups
// beyond it are counted in one last group (extenders may give every node a
// reason of its own).
const maxRejectionGroups = 20

// podResult bounds a pod's review for status: the first maxNodes feasible
// nodes in rank order, their scores a column per plugin, and rejected
// nodes grouped by plugin and reason, largest group first, each naming at
// most maxNodes nodes. Pods are named for a review of namespace: those
// of other namespaces (victims, an overcommitted node's pods) are
// counted.
func podResult(p *review.PodAnswer, namespace string, maxNodes int) *v1alpha1.PodReviewResult {
	out := &v1alpha1.PodReviewResult{
		Pod:           p.Pod.Namespace + "/" + p.Pod.Name,
		Route:         p.Pod.Annotations[v1alpha1.RouteAnnotation],
		SelectedNode:  p.SelectedNode,
		Message:       p.Message,
		FeasibleNodes: int32(len(p.Feasible)),
		TiedNodes:     int32(p.Tied),
		BoundNode:     p.BoundNode,
	}
	if o := p.Overcommitted; o != nil {
		out.Overcommitted = o.Describe(namespace)
	}
	listed := p.Feasible
	if len(listed) > maxNodes {
		listed = listed[:maxNodes]
		out.UnlistedFeasibleNodes = int32(len(p.Feasible) - maxNodes)
	}
	column := map[string]int{}
	for i, n := range listed {
		out.Nodes = append(out.Nodes, v1alpha1.NodeScore{Node: n.Name, Rank: int32(i + 1), TotalScore: n.Total, NotSampled: !n.Sampled})
		for _, sc := range n.Scores {
			c, ok := column[sc.Name]
			if !ok {
				c = len(out.Scores)
				column[sc.Name] = c
				ps := v1alpha1.PluginScores{Plugin: sc.Name, Extender: sc.Extender, Weight: sc.Weight, Weighted: make([]int64, len(listed))}
				if !sc.Extender {
					ps.Raw, ps.Normalized = make([]int64, len(listed)), make([]int64, len(listed))
				}
				out.Scores = append(out.Scores, ps)
			}
			ps := &out.Scores[c]
			ps.Weighted[i] = sc.Weighted
			if ps.Raw != nil {
				ps.Raw[i], ps.Normalized[i] = sc.Raw, sc.Normalized
			}
		}
	}
	out.Rejected = groupRejections(p.Rejected, maxNodes)
	if p.NumFeasibleNodesToFind > 0 {
		out.Sampling = &v1alpha1.Sampling{
			NumFeasibleNodesToFind: int32(p.NumFeasibleNodesToFind),
			StartNode:              p.StartNode,
			AllNodes:               p.NumFeasibleNodesToFind >= len(p.Feasible)+len(p.Rejected),
		}
	}
	out.Preemption = preemptionResult(p.Preemption, namespace)
	return out
}

// preemptionResult is preemption's dry run for a review of namespace:
// the victims of namespace by name, the others counted.
func preemptionResult(pr *review.Preemption, namespace string) *v1alpha1.PreemptionResult {
	if pr == nil {
		return nil
	}
	out := &v1alpha1.PreemptionResult{Node: pr.Node, Message: pr.Message, NotEvaluated: pr.NotEvaluated}
	for _, v := range pr.Victims {
		if strings.HasPrefix(v, namespace+"/") {
			out.Victims = append(out.Victims, v)
		} else {
			out.OtherNamespaceVictims++
		}
	}
	return out
}

func groupRejections(rejected []review.NodeRejection, maxNodes int) []v1alpha1.RejectedNodes {
	type key struct {
		plugin, reason string
		unresolvable   bool
	}
	groups := map[key]*v1alpha1.RejectedNodes{}
	var order []key
	for _, r := range rejected {
		k := key{r.Plugin, strings.Join(r.Reasons, "; "), r.Unresolvable}
		g := groups[k]
		if g == nil {
			g = &v1alpha1.RejectedNodes{Plugin: k.plugin, Reason: k.reason, Unresolvable: k.unresolvable}
			groups[k] = g
			order = append(order, k)
		}
		g.Count++
		if len(g.Nodes) < maxNodes {
			g.Nodes = append(g.Nodes, r.Node)
		}
	}
	out := make([]v1alpha1.RejectedNodes, 0, len(order))
	for _, k := range order {
		out = append(out, *groups[k])
	}
	slices.SortStableFunc(out, func(a, b v1alpha1.RejectedNodes) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Plugin, b.Plugin); c != 0 {
			return c
		}
		return cmp.Compare(a.Reason, b.Reason)
	})
	if len(out) > maxRejectionGroups {
		rest := v1alpha1.RejectedNodes{Reason: "(" + strconv.Itoa(len(out)-maxRejectionGroups+1) + " other reasons)"}
		for _, g := range out[maxRejectionGroups-1:] {
			rest.Count += g.Count
			for _, n := range g.Nodes {
				if len(rest.Nodes) < maxNodes {
					rest.Nodes = append(rest.Nodes, n)
				}
			}
		}
		out = append(out[:maxRejectionGroups-1], rest)
	}
	return out
}

// templatePod is spec.podTemplate as a pod created now in the review's
// namespace, with the defaults the API server would give it. A spec that
// does not decode as a PodSpec gives the errors, each naming its field.
func templatePod(sr *v1alpha1.SchedulingReview, now metav1.Time) (*corev1.Pod, field.ErrorList) {
	t := sr.Spec.PodTemplate
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         sr.Namespace,
			Name:              sr.Name,
			UID:               sr.UID,
			Labels:            t.Labels,
			Annotations:       t.Annotations,
			CreationTimestamp: now,
		},
	}
	if errs := decode.Strict(t.Spec.Raw, &pod.Spec, field.NewPath("spec", "podTemplate", "spec")); len(errs) > 0 {
		return nil, errs
	}
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = corev1.DefaultSchedulerName
	}
	return pod, nil
}
