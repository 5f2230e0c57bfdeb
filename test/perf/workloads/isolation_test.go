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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestIsolationCase(t *testing.T) {
	c := embeddedCase(t, "isolation")
	res := corev1.ResourceName(c.Isolation.Resource)
	for _, scale := range []string{ScaleDefault, ScaleSmall} {
		vals, err := c.Values(scale, nil)
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.Isolation.Values(vals)
		if err != nil {
			t.Fatal(err)
		}
		if v.Delay != 2*time.Second || v.HTTPTimeout != 5*time.Second || v.Profiles != 4 || v.OneLoop {
			t.Errorf("%s: delay %s, httpTimeout %s, %d profiles, one loop %t; want 2s, 5s, 4, off", scale, v.Delay, v.HTTPTimeout, v.Profiles, v.OneLoop)
		}
		// A's pods keep the extender busy for longer than B's pods take
		// alone (at 200 pods/s or more here).
		if busy, drain := time.Duration(v.SlowPods)*v.Delay, time.Duration(v.Pods)*time.Second/200; busy <= drain {
			t.Errorf("%s: A's %d pods keep the extender busy %s, B's %d pods take about %s: A must outlast B", scale, v.SlowPods, busy, v.Pods, drain)
		}
		// The pods fit their nodes: 40 pods of 100m on a 4-CPU node.
		if v.Pods+v.SlowPods > 40*v.Nodes || v.PodsEach > 40*v.PoolNodes || v.SlowPods > 40*v.SlowNodes {
			t.Errorf("%s: pods do not fit: %d+%d on %d nodes, %d on %d, %d on %d", scale, v.Pods, v.SlowPods, v.Nodes, v.PodsEach, v.PoolNodes, v.SlowPods, v.SlowNodes)
		}
		d := TemplateData{Name: "p-0", Namespace: "ns", SchedulerName: "s", Params: vals}
		slow, err := c.Pod(c.Isolation.SlowPodTemplate, d)
		if err != nil {
			t.Fatal(err)
		}
		if q := slow.Spec.Containers[0].Resources.Limits[res]; q.Value() != 1 {
			t.Errorf("A's pod asks for %s of %s in its limits, want 1 (an extended resource's limit is its request)", q.String(), res)
		}
	}
	if vals, _ := c.Values(ScaleSmall, nil); vals["pods"] != 200 {
		t.Errorf("small: %d of B's pods, want 200", vals["pods"])
	}
}

func TestIsolationValidation(t *testing.T) {
	base := "name: x\nparams: {delay: 2000}\nprofile: {}\ntimeoutSeconds: 10\nsteps: []\nisolation:\n" +
		"  nodeTemplate: node-isolation.yaml\n  podTemplate: pod-default.yaml\n  slowPodTemplate: pod-isolation-slow.yaml\n" +
		"  resource: example.com/slow\n  nodes: 5\n  slowNodes: 2\n  slowPods: 4\n  pods: 20\n  rate: 10\n" +
		"  delayMillis: $delay\n  httpTimeoutMillis: 5000\n  podsEach: 10\n  poolNodes: 2\n  oneLoop: 0\n"
	for _, tc := range []struct{ doc, wantErr string }{
		{base + "  profiles: 4\n", ""},
		{base + "  profiles: 1\n", "isolation.profiles must be at least 2"},
		{base + "  profiles: $profiles\n", "isolation.profiles: unknown parameter $profiles"},
		{strings.Replace(base, "$delay", "5000", 1) + "  profiles: 4\n", "below httpTimeoutMillis"},
		{strings.Replace(base, "pods: 20", "pods: 0", 1) + "  profiles: 4\n", "isolation.pods must be positive"},
		{strings.Replace(base, "steps: []", "steps:\n- createNodes: {count: 1, prefix: n, template: node-default.yaml}", 1) + "  profiles: 4\n", "has no steps"},
		{strings.Replace(base, "nodeTemplate: node-isolation.yaml", "nodeTemplate: node-default.yaml", 1) + "  profiles: 4\n", "must advertise example.com/slow"},
		{strings.Replace(base, "slowPodTemplate: pod-isolation-slow.yaml", "slowPodTemplate: pod-default.yaml", 1) + "  profiles: 4\n", "slowPodTemplate must request example.com/slow"},
		{strings.Replace(base, "podTemplate: pod-default.yaml", "podTemplate: pod-isolation-slow.yaml", 1) + "  profiles: 4\n", "podTemplate must not request example.com/slow"},
		{strings.Replace(base, "  resource: example.com/slow\n", "", 1) + "  profiles: 4\n", "isolation.resource is required"},
		{base + "  profiles: 4\nroutes: {count: 1, pods: 1, podTemplate: pod-default.yaml}\n", "at most one of"},
	} {
		expectLoad(t, tc.doc, tc.wantErr, tc.wantErr)
	}
}
