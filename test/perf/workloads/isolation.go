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

package workloads

import (
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Isolation makes a case measure how far the pods of one profile are kept
// from those of another served by the same process: upstream
// kube-scheduler runs one scheduling loop for all its profiles, ours one
// per profile. Its runs are of two kinds (harness.PartExtender and
// harness.PartProfiles):
//
//   - A slow extender beside a busy profile: profile A calls an HTTP
//     extender (served by the harness) whose filter answers after
//     DelayMillis; profile B calls none. A's SlowPods pods, which request
//     Resource (the one extended resource the extender manages, so that
//     upstream's extender, global to all profiles, is asked about A's pods
//     only), are created first; then B's Pods pods, created while the
//     scheduler is stopped (throughput run) or at Rate per second
//     (latency run). B's throughput and latency with A's pods and
//     without (A's profile served, no pod of it), with A's pods on B's
//     Nodes nodes (shared) and on SlowNodes nodes of their own (disjoint).
//   - Several profiles at once: Profiles profiles, PodsEach pods each, on
//     PoolNodes nodes per profile, created while the scheduler is
//     stopped; throughput and CPU of the whole.
//
// The case has no steps: every node and pod comes from the fields here.
type Isolation struct {
	// NodeTemplate is every node; it must advertise Resource.
	NodeTemplate string `json:"nodeTemplate"`
	// PodTemplate is B's pods and the several profiles' pods; it must not
	// request Resource.
	PodTemplate string `json:"podTemplate"`
	// SlowPodTemplate is A's pods; it must request Resource.
	SlowPodTemplate string `json:"slowPodTemplate"`
	// Resource is the extended resource A's pods request and the extender
	// manages (managedResources, ignoredByScheduler).
	Resource string `json:"resource"`
	// Nodes are B's nodes (A's too in the shared variant); SlowNodes are
	// A's own in the disjoint variant.
	Nodes     Count `json:"nodes"`
	SlowNodes Count `json:"slowNodes"`
	// SlowPods are A's pods, Pods B's.
	SlowPods Count `json:"slowPods"`
	Pods     Count `json:"pods"`
	// Rate is B's pods per second in a latency run.
	Rate Count `json:"rate"`
	// DelayMillis is how long the extender's filter takes to answer;
	// HTTPTimeoutMillis is the extender's httpTimeout, longer.
	DelayMillis       Count `json:"delayMillis"`
	HTTPTimeoutMillis Count `json:"httpTimeoutMillis"`
	// Profiles, PodsEach and PoolNodes size the several profiles' runs.
	Profiles  Count `json:"profiles"`
	PodsEach  Count `json:"podsEach"`
	PoolNodes Count `json:"poolNodes"`
	// OneLoop, when not 0, also runs ours with --profile-loops=false (one
	// loop for all profiles, as upstream), where the operator has the flag.
	OneLoop Count `json:"oneLoop"`
}

// IsolationValues are an isolation case's counts, resolved.
type IsolationValues struct {
	Nodes, SlowNodes, SlowPods, Pods, Rate int
	Delay, HTTPTimeout                     time.Duration
	Profiles, PodsEach, PoolNodes          int
	OneLoop                                bool
}

// Values resolves the counts against vals.
func (x *Isolation) Values(vals map[string]int) (IsolationValues, error) {
	var v IsolationValues
	var errs []error
	num := func(name string, n Count) int {
		i, err := n.Value(vals)
		if err != nil {
			errs = append(errs, fmt.Errorf("isolation.%s: %w", name, err))
		}
		return i
	}
	v.Nodes, v.SlowNodes = num("nodes", x.Nodes), num("slowNodes", x.SlowNodes)
	v.SlowPods, v.Pods, v.Rate = num("slowPods", x.SlowPods), num("pods", x.Pods), num("rate", x.Rate)
	v.Delay = time.Duration(num("delayMillis", x.DelayMillis)) * time.Millisecond
	v.HTTPTimeout = time.Duration(num("httpTimeoutMillis", x.HTTPTimeoutMillis)) * time.Millisecond
	v.Profiles, v.PodsEach, v.PoolNodes = num("profiles", x.Profiles), num("podsEach", x.PodsEach), num("poolNodes", x.PoolNodes)
	v.OneLoop = num("oneLoop", x.OneLoop) != 0
	return v, errors.Join(errs...)
}

func (c *Case) validateIsolation(vals map[string]int, d TemplateData) error {
	x := c.Isolation
	v, err := x.Values(vals)
	if err != nil {
		return err
	}
	if len(c.Steps) > 0 {
		return fmt.Errorf("an isolation case has no steps (its nodes and pods are isolation's), got %d", len(c.Steps))
	}
	for name, n := range map[string]int{"nodes": v.Nodes, "slowNodes": v.SlowNodes, "slowPods": v.SlowPods, "pods": v.Pods,
		"rate": v.Rate, "podsEach": v.PodsEach, "poolNodes": v.PoolNodes} {
		if n <= 0 {
			return fmt.Errorf("isolation.%s must be positive, got %d", name, n)
		}
	}
	switch {
	case v.Profiles < 2:
		return fmt.Errorf("isolation.profiles must be at least 2, got %d", v.Profiles)
	case v.Delay <= 0 || v.HTTPTimeout <= v.Delay:
		return fmt.Errorf("isolation: delayMillis must be positive and below httpTimeoutMillis (the extender must answer in time), got %s and %s", v.Delay, v.HTTPTimeout)
	}
	if x.Resource == "" {
		return errors.New("isolation.resource is required (the extended resource the extender manages)")
	}
	res := corev1.ResourceName(x.Resource)
	node, err := c.Node(x.NodeTemplate, d)
	if err != nil {
		return fmt.Errorf("isolation: nodeTemplate: %w", err)
	}
	if q, ok := node.Status.Allocatable[res]; !ok || q.IsZero() {
		return fmt.Errorf("isolation: nodeTemplate must advertise %s in allocatable", res)
	}
	for _, t := range []struct {
		name, tpl string
		slow      bool
	}{{"podTemplate", x.PodTemplate, false}, {"slowPodTemplate", x.SlowPodTemplate, true}} {
		pod, err := c.Pod(t.tpl, d)
		if err != nil {
			return fmt.Errorf("isolation: %s: %w", t.name, err)
		}
		if requests(pod, res) != t.slow {
			if t.slow {
				return fmt.Errorf("isolation: slowPodTemplate must request %s (the extender is asked about such pods only)", res)
			}
			return fmt.Errorf("isolation: podTemplate must not request %s (the extender would be asked about its pods)", res)
		}
	}
	return nil
}

// requests reports whether a container of pod requests res.
func requests(pod *corev1.Pod, res corev1.ResourceName) bool {
	for _, ctr := range append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		if _, ok := ctr.Resources.Requests[res]; ok {
			return true
		}
		if _, ok := ctr.Resources.Limits[res]; ok {
			return true
		}
	}
	return false
}
