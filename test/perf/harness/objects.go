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
	"fmt"
	"time"

	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func (r *Runner) createNodes(ctx context.Context, c *workloads.Case, e *env, s *workloads.CreateNodes, vals map[string]int) error {
	n, err := s.Count.Value(vals)
	if err != nil {
		return err
	}
	nodes := make([]*corev1.Node, n)
	for i := range nodes {
		if nodes[i], err = r.node(c, s.Template, s.Prefix, i, vals); err != nil {
			return err
		}
		e.nodes[nodes[i].Name] = nodes[i].Labels
	}
	return r.parallel(ctx, n, func(ctx context.Context, i int) error {
		_, err := r.CP.Core.CoreV1().Nodes().Create(ctx, nodes[i], metav1.CreateOptions{})
		return err
	})
}

func (r *Runner) node(c *workloads.Case, tpl, prefix string, i int, vals map[string]int) (*corev1.Node, error) {
	node, err := c.Node(tpl, workloads.TemplateData{Index: i, Name: workloads.Name(prefix, i), Params: vals})
	if err != nil {
		return nil, err
	}
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	node.Labels[BenchLabel] = "true"
	node.Labels[StepLabel] = prefix
	return node, nil
}

// renderPods renders a step's pods for namespace ns and schedulerName.
func renderPods(c *workloads.Case, tpl, prefix string, from, n int, ns, scheduler string, vals map[string]int) ([]*corev1.Pod, error) {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		idx := from + i
		p, err := c.Pod(tpl, workloads.TemplateData{Index: idx, Name: workloads.Name(prefix, idx), Namespace: ns, SchedulerName: scheduler, Params: vals})
		if err != nil {
			return nil, err
		}
		p.Namespace = ns
		if p.Spec.NodeName == "" {
			p.Spec.SchedulerName = scheduler
		}
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[StepLabel] = prefix
		pods[i] = p
	}
	return pods, nil
}

func (r *Runner) createPods(ctx context.Context, pods []*corev1.Pod) error {
	return r.createPodsAt(ctx, pods, 0)
}

// createPodsAt creates the pods in order, pod i not before i/rate seconds
// from now; rate 0 creates them as fast as the workers can.
func (r *Runner) createPodsAt(ctx context.Context, pods []*corev1.Pod, rate float64) error {
	start := time.Now()
	return r.parallel(ctx, len(pods), func(ctx context.Context, i int) error {
		if rate > 0 {
			at := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			if d := time.Until(at); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-ctx.Done():
					t.Stop()
					return ctx.Err()
				case <-t.C:
				}
			}
		}
		_, err := r.CP.Core.CoreV1().Pods(pods[i].Namespace).Create(ctx, pods[i], metav1.CreateOptions{})
		return err
	})
}

// probe creates one pod and waits until it is bound, then deletes it: the
// scheduler is up and has synced its informers when this returns.
func (r *Runner) probe(ctx context.Context, e *env, scheduler string) error {
	return r.probeAs(ctx, e, scheduler, "probe")
}

// probeAs probes scheduler with a pod named name (also its step).
func (r *Runner) probeAs(ctx context.Context, e *env, scheduler, name string) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns, Labels: map[string]string{StepLabel: name}},
		Spec: corev1.PodSpec{
			SchedulerName:                 scheduler,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers:                    []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	if _, err := r.CP.Core.CoreV1().Pods(e.ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := e.rec.WaitBound(ctx, name, 1, 2*time.Minute, 2*time.Minute); err != nil {
		return fmt.Errorf("%s did not bind the probe pod: %w", scheduler, err)
	}
	return r.CP.Core.CoreV1().Pods(e.ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
}
