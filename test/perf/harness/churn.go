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
	"time"

	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// churn recreates a node (and the step's pod and service, if it has them,
// in namespace ns) every interval until ctx ends, then deletes the last.
func (r *Runner) churn(ctx context.Context, c *workloads.Case, s *workloads.Churn, vals map[string]int, ns, schedulerName string) error {
	ms, err := s.IntervalMillis.Value(vals)
	if err != nil {
		return err
	}
	nodes := r.CP.Core.CoreV1().Nodes()
	tick := time.NewTicker(time.Duration(ms) * time.Millisecond)
	defer tick.Stop()
	prev := ""
	defer func() {
		if prev != "" {
			_ = nodes.Delete(context.Background(), prev, metav1.DeleteOptions{})
		}
	}()
	others, err := r.churnOthers(c, s, vals, ns, schedulerName)
	if err != nil {
		return err
	}
	// Cleaning up what the churn left is best effort: the run's namespace
	// goes with the run anyway.
	defer func() { _ = others(context.Background(), -1) }()
	for i := 0; ; i++ {
		n, err := r.node(c, s.Template, s.Prefix, i, vals)
		if err != nil {
			return err
		}
		if _, err := nodes.Create(ctx, n, metav1.CreateOptions{}); err != nil {
			return checkContext(ctx, "churn")
		}
		if prev != "" {
			if err := nodes.Delete(ctx, prev, metav1.DeleteOptions{}); err != nil {
				return checkContext(ctx, "churn")
			}
		}
		prev = n.Name
		if err := others(ctx, i); err != nil {
			return checkContext(ctx, "churn")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// churnOthers returns what recreates the churn step's pod and service:
// called with i, it creates the i-th and deletes the previous; with -1, it
// deletes the last.
func (r *Runner) churnOthers(c *workloads.Case, s *workloads.Churn, vals map[string]int, ns, schedulerName string) (func(context.Context, int) error, error) {
	pods, services := r.CP.Core.CoreV1().Pods(ns), r.CP.Core.CoreV1().Services(ns)
	grace := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
	prevPod, prevSvc := "", ""
	return func(ctx context.Context, i int) error {
		d := workloads.TemplateData{Index: i, Name: workloads.Name(s.Prefix, i), Namespace: ns, SchedulerName: schedulerName, Params: vals}
		if s.PodTemplate != "" {
			if i >= 0 {
				p, err := renderPods(c, s.PodTemplate, s.Prefix, i, 1, ns, schedulerName, vals)
				if err != nil {
					return err
				}
				if _, err := pods.Create(ctx, p[0], metav1.CreateOptions{}); err != nil {
					return err
				}
			}
			if prevPod != "" {
				if err := pods.Delete(ctx, prevPod, grace); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			prevPod = d.Name
		}
		if s.ServiceTemplate != "" {
			if i >= 0 {
				svc, err := c.Service(s.ServiceTemplate, d)
				if err != nil {
					return err
				}
				svc.Namespace = ns
				if _, err := services.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
					return err
				}
			}
			if prevSvc != "" {
				if err := services.Delete(ctx, prevSvc, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			prevSvc = d.Name
		}
		return nil
	}, nil
}
