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

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func TestScenarioFlags(t *testing.T) {
	dir := t.TempDir()
	nodeFile := filepath.Join(dir, "gpu-node.yaml")
	if err := os.WriteFile(nodeFile, []byte(`apiVersion: v1
kind: Node
metadata:
  name: gpu
  labels: {pool: gpu}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	podFile := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(podFile, []byte(`apiVersion: v1
kind: Pod
metadata: {name: job, labels: {app: job}}
spec:
  containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	badPod := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badPod, []byte("apiVersion: v1\nkind: Pod\nspec: {containerz: []}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	deployment := filepath.Join(dir, "deployment.yaml")
	if err := os.WriteFile(deployment, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("every flag", func(t *testing.T) {
		g := NewWithT(t)
		o := &scenarioOptions{addNodes: []string{"node-a=3", nodeFile + "=2"}, drain: "pool=old,zone notin (z1)", pods: podFile, replicas: 40, minNodes: nodeFile, max: 50, reportBy: "pool"}
		sc, err := o.scenario(nil)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(sc.ReportBy).To(Equal("pool"))
		g.Expect(sc.AddNodes).To(HaveLen(2))
		g.Expect(sc.AddNodes[0]).To(Equal(v1alpha1.ScenarioNodes{NodeShape: v1alpha1.NodeShape{FromNode: "node-a"}, Count: 3}))
		g.Expect(sc.AddNodes[1].Count).To(BeEquivalentTo(2))
		node := &corev1.Node{}
		g.Expect(json.Unmarshal(sc.AddNodes[1].Template.Raw, node)).To(Succeed())
		g.Expect(node.Name).To(Equal("gpu"))
		g.Expect(node.Status.Allocatable.Cpu().String()).To(Equal("8"))
		g.Expect(sc.RemoveNodes.Selector.MatchLabels).To(Equal(map[string]string{"pool": "old"}))
		g.Expect(sc.RemoveNodes.Selector.MatchExpressions).To(HaveLen(1))
		g.Expect(sc.Pods).To(HaveLen(1))
		g.Expect(sc.Pods[0].Replicas).To(BeEquivalentTo(40))
		g.Expect(sc.Pods[0].PodTemplate.Labels).To(Equal(map[string]string{"app": "job"}))
		g.Expect(string(sc.Pods[0].PodTemplate.Spec.Raw)).To(ContainSubstring(`"cpu":"1"`))
		g.Expect(sc.Minimize.Max).To(BeEquivalentTo(50))
		g.Expect(sc.Minimize.Template).NotTo(BeNil())
	})
	t.Run("none", func(t *testing.T) {
		g := NewWithT(t)
		sc, err := (&scenarioOptions{}).scenario(nil)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(sc).To(BeNil())
	})
	for _, tc := range []struct {
		name string
		o    scenarioOptions
		want string
	}{
		{"no count", scenarioOptions{addNodes: []string{"node-a"}}, `--add-nodes "node-a": want NODE=COUNT`},
		{"count not a number", scenarioOptions{addNodes: []string{"node-a=many"}}, `--add-nodes "node-a=many"`},
		{"bad selector", scenarioOptions{drain: "pool in (a"}, `--drain "pool in (a"`},
		{"missing file", scenarioOptions{minNodes: filepath.Join(dir, "nope.yaml")}, "--min-nodes: open"},
		{"unknown field", scenarioOptions{pods: badPod, replicas: 1}, `unknown field "spec.containerz"`},
		{"not a pod", scenarioOptions{pods: nodeFile, replicas: 1}, "want kind Pod of apiVersion v1, not kind Node of apiVersion v1"},
		{"a deployment", scenarioOptions{pods: deployment, replicas: 1}, "want kind Pod of apiVersion v1, not kind Deployment of apiVersion apps/v1"},
		{"a pod for a node", scenarioOptions{addNodes: []string{podFile + "=1"}}, "want kind Node of apiVersion v1, not kind Pod of apiVersion v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := tc.o.scenario(nil)
			g.Expect(err).To(MatchError(ContainSubstring(tc.want)))
		})
	}
}

func TestRenderScenario(t *testing.T) {
	sr := &v1alpha1.SchedulingReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "what-if-x"},
		Status: v1alpha1.SchedulingReviewStatus{
			Profile: "bin-packing", ProfileGeneration: 2, SchedulerName: "bin-packing", SnapshotNodes: 7,
			Scenario: &v1alpha1.ScenarioResult{
				Pods: 6, Placed: 4, Evicted: 6, RemovedNodes: 2, AddedNodes: 1, ReportBy: "pool",
				Unplaced: []v1alpha1.ScenarioPod{{Pod: "batch/lo-d", Source: "Evicted", FromNode: "old-2", Message: "0/5 nodes are available: 2 Insufficient cpu."}},
				Utilization: []v1alpha1.PoolUtilization{
					{Pool: "new", Before: v1alpha1.ResourceShares{Nodes: 2, CPU: 17, Memory: 6, Pods: 1}, After: v1alpha1.ResourceShares{Nodes: 3, CPU: 90, Memory: 25, Pods: 4}},
					{Pool: "old", Before: v1alpha1.ResourceShares{Nodes: 2, CPU: 44, Memory: 19, Pods: 3}},
				},
				Minimize: &v1alpha1.MinimizeResult{Found: true, Count: 1, Max: 4, Tried: []v1alpha1.MinimizeTrial{{Count: 0, Unplaced: 3}, {Count: 4}, {Count: 2}, {Count: 1}}},
			},
		},
	}
	var out bytes.Buffer
	if err := renderScenario(&out, sr, false); err != nil {
		t.Fatal(err)
	}
	want := `4 of 6 pods would be placed (6 evicted, 2 nodes removed, 1 added; bin-packing (generation 2, schedulerName bin-packing), 7 nodes)
Smallest count that places every pod: 1 (tried count:unplaced 0:3 4:0 2:0 1:0)

POOL   NODES   CPU         MEMORY     PODS
new    2 → 3   17% → 90%   6% → 25%   1% → 4%
old    2 → 0   44% → 0%    19% → 0%   3% → 0%

UNPLACED POD   SOURCE    REASON
batch/lo-d     Evicted   0/5 nodes are available: 2 Insufficient cpu.
(1 unplaced pod of other namespaces, or beyond the first 1, not listed)
`
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, strings.ReplaceAll(want, "\t", "→TAB"))
	}

	// -o wide: where evicted pods come from, and where the placed go.
	sr.Status.Scenario.PlacedPods = []v1alpha1.ScenarioPod{{Pod: "batch/lo-a", Source: "Evicted", FromNode: "old-1", Node: "new-1"}, {Pod: "batch/job-0", Source: "Added", Node: "new-1"}}
	out.Reset()
	if err := renderScenario(&out, sr, true); err != nil {
		t.Fatal(err)
	}
	wide := `UNPLACED POD   SOURCE    FROM NODE   REASON
batch/lo-d     Evicted   old-2       0/5 nodes are available: 2 Insufficient cpu.

PLACED POD    SOURCE    FROM NODE   NODE
batch/lo-a    Evicted   old-1       new-1
batch/job-0   Added     <none>      new-1
`
	if got := out.String(); !strings.Contains(got, wide) {
		t.Errorf("-o wide: got\n%s\nwant it to contain\n%s", got, wide)
	}
}

// TestScenarioFlagsNeedTheirFlag: a flag that only qualifies another is
// refused without it, in kubectl's words.
func TestScenarioFlagsNeedTheirFlag(t *testing.T) {
	for _, tc := range []struct {
		set  []string
		want string
	}{
		{[]string{"replicas"}, "--replicas requires --pods"},
		{[]string{"max"}, "--max requires --min-nodes"},
		{[]string{"replicas", "pods"}, ""},
		{[]string{"max", "min-nodes"}, ""},
		{nil, ""},
	} {
		changed := func(f string) bool { return slices.Contains(tc.set, f) }
		err := (&scenarioOptions{}).validate(changed)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: unexpected error %v", tc.set, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%v: got %v, want %q", tc.set, err, tc.want)
		}
	}
}

func TestDrainWarning(t *testing.T) {
	answered := func(removed int32) *v1alpha1.SchedulingReview {
		return &v1alpha1.SchedulingReview{Status: v1alpha1.SchedulingReviewStatus{Scenario: &v1alpha1.ScenarioResult{RemovedNodes: removed}}}
	}
	if got, want := drainWarning("pool=gone", answered(0)), `Warning: --drain "pool=gone" matches no node: nothing is drained`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := drainWarning("pool=old", answered(2)); got != "" {
		t.Errorf("a drain that removed nodes warned: %q", got)
	}
	if got := drainWarning("", answered(0)); got != "" {
		t.Errorf("no drain asked, warned: %q", got)
	}
}
