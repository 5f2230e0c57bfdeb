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

package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ScenarioLatency is capacity scenarios answered one at a time on the
// answer-time cluster of one size: a drain of every tenth node, and a
// minimize search for the nodes 50 one-CPU pods of a new pool need.
type ScenarioLatency struct {
	Drain    ReviewTimes `json:"drain"`
	Minimize ReviewTimes `json:"minimize"`
}

// ReviewTimes is what became of reviews made one at a time, and their
// create→finished times.
type ReviewTimes struct {
	Reviews ReviewCounts  `json:"reviews"`
	Millis  stats.Summary `json:"millis"`
}

// scenarioPool labels the nodes a minimize search adds, and the pods it
// places there.
const scenarioPool = "bench.profilescheduler.io/pool"

// scenarioLatency times n drain scenarios, then n minimize searches, on
// e's nodes, each review created once the previous one finished.
func (r *Runner) scenarioLatency(ctx context.Context, c *workloads.Case, vals map[string]int, e *env, schedulerName string, n int, timeout time.Duration) (*ScenarioLatency, error) {
	minimize, err := r.minimizeScenario(c, vals, e.ns, schedulerName)
	if err != nil {
		return nil, err
	}
	out := &ScenarioLatency{}
	for _, k := range []struct {
		what     string
		scenario *v1alpha1.ReviewScenario
		times    *ReviewTimes
	}{
		{"drain", drainScenario(e), &out.Drain},
		{"minimize", minimize, &out.Minimize},
	} {
		rw, err := watchReviews(ctx, r.CP.Client, e.ns)
		if err != nil {
			return nil, err
		}
		for i := range n {
			sr := &v1alpha1.SchedulingReview{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", k.what, i), Namespace: e.ns},
				Spec:       v1alpha1.SchedulingReviewSpec{Profile: schedulerName, Scenario: k.scenario},
			}
			rw.created(sr.Name, time.Now())
			if err := r.CP.Client.Create(ctx, sr); err != nil {
				rw.stop()
				return nil, fmt.Errorf("creating review %s: %w", sr.Name, err)
			}
			if !rw.wait(ctx, sr.Name, timeout) {
				break
			}
		}
		k.times.Reviews, k.times.Millis = rw.result()
		rw.stop()
		if err := rw.Err(); err != nil {
			return nil, err
		}
		r.logf("explain: %d nodes: %d %s scenarios, %d complete, %d failed, create→Complete p50 %.0f ms, p99 %.0f ms",
			len(e.nodes), k.times.Reviews.Created, k.what, k.times.Reviews.Complete, k.times.Reviews.Failed, k.times.Millis.P50, k.times.Millis.P99)
		if k.times.Reviews.Failed > 0 || k.times.Reviews.Unanswered > 0 {
			return out, fmt.Errorf("%s scenarios: %d failed, %d not answered within %s", k.what, k.times.Reviews.Failed, k.times.Reviews.Unanswered, timeout)
		}
	}
	return out, nil
}

// drainScenario drains every tenth of e's nodes, by name: their pods are
// placed again on the others. The answer gives shares by zone.
func drainScenario(e *env) *v1alpha1.ReviewScenario {
	names := slices.Sorted(maps.Keys(e.nodes))
	var drained []string
	for i := 0; i < len(names); i += 10 {
		drained = append(drained, names[i])
	}
	return &v1alpha1.ReviewScenario{RemoveNodes: &v1alpha1.ScenarioNodeSelection{Names: drained}, ReportBy: corev1.LabelTopologyZone}
}

// minimizeScenario asks for the fewest nodes of the case's node template,
// labelled a pool of their own, that place 50 pods of one CPU which only
// that pool takes.
func (r *Runner) minimizeScenario(c *workloads.Case, vals map[string]int, ns, schedulerName string) (*v1alpha1.ReviewScenario, error) {
	var tpl string
	for _, s := range c.Steps {
		if s.CreateNodes != nil {
			tpl = s.CreateNodes.Template
			break
		}
	}
	node, err := r.node(c, tpl, "scenario", 0, vals)
	if err != nil {
		return nil, err
	}
	node.Labels[scenarioPool] = "new"
	rawNode, err := json.Marshal(node)
	if err != nil {
		return nil, err
	}
	pods, err := renderPods(c, c.Explain.PodTemplate, "scenario", 0, 1, ns, schedulerName, vals)
	if err != nil {
		return nil, err
	}
	spec := pods[0].Spec
	spec.NodeSelector = map[string]string{scenarioPool: "new"}
	for i := range spec.Containers {
		spec.Containers[i].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	}
	return &v1alpha1.ReviewScenario{
		Pods: []v1alpha1.ScenarioPods{{
			PodTemplate: &v1alpha1.ReviewPodTemplate{Labels: pods[0].Labels, Spec: v1alpha1.PodSpecTemplate(spec)},
			Replicas:    50,
		}},
		Minimize: &v1alpha1.ScenarioMinimize{NodeShape: v1alpha1.NodeShape{Template: &runtime.RawExtension{Raw: rawNode}}, Max: 100},
	}, nil
}
