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
	"fmt"
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/decode"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// scenarioQuestion is a capacity review (spec.scenario): what fits if the
// cluster changes, the pending pods included when spec.pendingPods is
// set.
type scenarioQuestion struct{}

func (scenarioQuestion) request(sr *v1alpha1.SchedulingReview, now metav1.Time, req *review.Request) *Refusal {
	if sr.Spec.Profile == "" && sr.Spec.ProfileSpec == nil {
		return &Refusal{Reason: v1alpha1.ReasonInvalidReview, Message: "spec.scenario needs spec.profile or spec.profileSpec"}
	}
	sc, errs := scenarioRequest(sr, now)
	if len(errs) > 0 {
		return &Refusal{Reason: v1alpha1.ReasonInvalidScenario, Message: errs.ToAggregate().Error()}
	}
	req.Scenario = sc
	req.PendingPods, req.PendingSchedulerName = sr.Spec.PendingPods, sr.Spec.SchedulerName
	return nil
}

func (scenarioQuestion) answer(sr *v1alpha1.SchedulingReview, r *review.Answer, st *v1alpha1.SchedulingReviewStatus) string {
	st.Scenario = scenarioResult(r.Scenario, sr.Namespace, sr.Spec.Scenario.ReportBy)
	return scenarioMessage(st.Scenario)
}

func (scenarioQuestion) notFound(_ *v1alpha1.SchedulingReview, err error) string {
	return "spec.podName: " + err.Error()
}

// scenarioPath is the path of spec.scenario.
var scenarioPath = field.NewPath("spec", "scenario")

// scenarioRequest is spec.scenario as the scheduler runs it: templates
// decoded strictly, the selector parsed. What does not decode or parse
// gives the errors, each naming its field. Counts are checked against the
// operator's limits by the scheduler, before anything is expanded.
func scenarioRequest(sr *v1alpha1.SchedulingReview, now metav1.Time) (*review.Scenario, field.ErrorList) {
	in := sr.Spec.Scenario
	out := &review.Scenario{ReportBy: in.ReportBy, Now: now.Time}
	var errs field.ErrorList
	if in.ReportBy != "" {
		for _, msg := range validation.IsQualifiedName(in.ReportBy) {
			errs = append(errs, field.Invalid(scenarioPath.Child("reportBy"), in.ReportBy, msg))
		}
	}
	for i, a := range in.AddNodes {
		shape, shapeErrs := nodeShape(a.NodeShape, scenarioPath.Child("addNodes").Index(i))
		errs = append(errs, shapeErrs...)
		shape.Count = int(a.Count)
		out.AddNodes = append(out.AddNodes, shape)
	}
	if rm := in.RemoveNodes; rm != nil {
		out.RemoveNodes = rm.Names
		if rm.Selector != nil {
			sel, err := metav1.LabelSelectorAsSelector(rm.Selector.AsMeta())
			if err != nil {
				errs = append(errs, field.Invalid(scenarioPath.Child("removeNodes", "selector"), rm.Selector, err.Error()))
			}
			out.RemoveSelector = sel
		}
	}
	for i, p := range in.Pods {
		path := scenarioPath.Child("pods").Index(i)
		tmpl, minCount := p.PodTemplate, 0
		switch {
		case p.PodTemplate != nil && p.PodGroupTemplate != nil:
			errs = append(errs, field.Invalid(path, "", "set exactly one of podTemplate and podGroupTemplate"))
			continue
		case p.PodGroupTemplate != nil:
			tmpl, minCount = &p.PodGroupTemplate.PodTemplate, int(p.PodGroupTemplate.MinCount)
			path = path.Child("podGroupTemplate")
		case p.PodTemplate == nil:
			errs = append(errs, field.Required(path, "set one of podTemplate and podGroupTemplate"))
			continue
		}
		name := fmt.Sprintf("%s-pods-%d", sr.Name, i)
		pod, podErrs := scenarioPod(sr, tmpl, name, types.UID(fmt.Sprintf("%s-pods-%d", sr.UID, i)), now, path.Child("podTemplate"))
		errs = append(errs, podErrs...)
		out.Pods = append(out.Pods, review.ScenarioPods{Template: pod, Replicas: int(p.Replicas), MinCount: minCount})
	}
	if m := in.Minimize; m != nil {
		shape, shapeErrs := nodeShape(m.NodeShape, scenarioPath.Child("minimize"))
		errs = append(errs, shapeErrs...)
		out.Minimize = &review.Minimize{Shape: shape, Max: int(m.Max)}
	}
	return out, errs
}

// nodeShape decodes a shape's template strictly into a Node.
func nodeShape(in v1alpha1.NodeShape, path *field.Path) (review.NodeShape, field.ErrorList) {
	out := review.NodeShape{FromNode: in.FromNode}
	if in.Template == nil {
		return out, nil
	}
	node := &corev1.Node{}
	if errs := decode.Strict(in.Template.Raw, node, path.Child("template")); len(errs) > 0 {
		return out, errs
	}
	out.Template = node
	return out, nil
}

// scenarioPod is a pod template of the scenario as a pod created now in
// the review's namespace, as templatePod makes spec.podTemplate's.
func scenarioPod(sr *v1alpha1.SchedulingReview, t *v1alpha1.ReviewPodTemplate, name string, uid types.UID, now metav1.Time, path *field.Path) (*corev1.Pod, field.ErrorList) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         sr.Namespace,
			Name:              name,
			UID:               uid,
			Labels:            t.Labels,
			Annotations:       t.Annotations,
			CreationTimestamp: now,
		},
	}
	if errs := decode.Strict(t.Spec.Raw, &pod.Spec, path.Child("spec")); len(errs) > 0 {
		return nil, errs
	}
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = corev1.DefaultSchedulerName
	}
	return pod, nil
}

// scenarioFailure is the failure of a scenario the scheduler refused.
func scenarioFailure(err *review.ScenarioError) reviewOutcome {
	reason := v1alpha1.ReasonInvalidScenario
	if err.TooLarge {
		reason = v1alpha1.ReasonScenarioTooLarge
	}
	return failed(reason, scenarioPath.String()+"."+err.Error())
}

// scenarioResult bounds a scenario's answer for status: every pod
// counted, the pods and groups of the review's namespace listed (unplaced
// first, at most maxWhatIfPods of each); no pod of another namespace is
// named.
func scenarioResult(r *review.ScenarioAnswer, namespace, reportBy string) *v1alpha1.ScenarioResult {
	out := &v1alpha1.ScenarioResult{
		Pods:         int32(len(r.Pods)),
		NotMoved:     int32(r.NotMoved),
		AddedNodes:   int32(r.AddedNodes),
		RemovedNodes: int32(r.RemovedNodes),
		ReportBy:     reportBy,
	}
	for _, p := range r.Pods {
		if p.Source == review.SourceEvicted {
			out.Evicted++
		}
		if p.Node != "" {
			out.Placed++
		}
		if p.Namespace != namespace {
			continue
		}
		sp := v1alpha1.ScenarioPod{Pod: p.Namespace + "/" + p.Name, Source: string(p.Source), FromNode: p.FromNode, Node: p.Node, TiedNodes: int32(p.Tied), Message: p.Message}
		switch {
		case p.Node == "" && len(out.Unplaced) < maxWhatIfPods:
			out.Unplaced = append(out.Unplaced, sp)
		case p.Node != "" && len(out.PlacedPods) < maxWhatIfPods:
			out.PlacedPods = append(out.PlacedPods, sp)
		}
	}
	for _, g := range r.Groups {
		if g.Namespace != namespace {
			continue
		}
		out.Groups = append(out.Groups, v1alpha1.ScenarioGroup{Group: g.Namespace + "/" + g.Name, MinCount: int32(g.MinCount), Members: int32(g.Members), Placed: int32(g.Placed), Message: g.Message})
	}
	for _, p := range r.Pools {
		out.Utilization = append(out.Utilization, v1alpha1.PoolUtilization{Pool: p.Value, Before: shares(p.Before), After: shares(p.After)})
	}
	if m := r.Minimize; m != nil {
		out.Minimize = &v1alpha1.MinimizeResult{Found: m.Count >= 0, Max: int32(m.Max)}
		if m.Count >= 0 {
			out.Minimize.Count = int32(m.Count)
		}
		for _, t := range m.Tried {
			out.Minimize.Tried = append(out.Minimize.Tried, v1alpha1.MinimizeTrial{Count: int32(t.Count), Unplaced: int32(t.Unplaced)})
		}
	}
	return out
}

func shares(u review.Usage) v1alpha1.ResourceShares {
	return v1alpha1.ResourceShares{Nodes: int32(u.Nodes), CPU: percent(u.MilliCPU), Memory: percent(u.Memory), Pods: percent(u.Pods)}
}

func percent(r review.ResourceUsage) int32 {
	if r.Allocatable <= 0 {
		return 0
	}
	return int32(math.Round(100 * float64(r.Requested) / float64(r.Allocatable)))
}

// scenarioMessage is the Complete condition's words on a scenario.
func scenarioMessage(st *v1alpha1.ScenarioResult) string {
	msg := strconv.Itoa(int(st.Placed)) + " of " + plural(int(st.Pods), "pod") + " would be placed"
	if m := st.Minimize; m != nil {
		switch {
		case m.Found:
			msg += "; the smallest count of nodes that places them all is " + strconv.Itoa(int(m.Count))
		default:
			msg += "; no count up to " + strconv.Itoa(int(m.Max)) + " places them all"
		}
	}
	return msg
}
