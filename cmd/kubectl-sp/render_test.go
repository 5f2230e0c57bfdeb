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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// scores is one plugin's column of weight-1 scores, raw and normalized
// equal to weighted.
func scores(plugin string, weighted ...int64) v1alpha1.PluginScores {
	return v1alpha1.PluginScores{Plugin: plugin, Raw: weighted, Normalized: weighted, Weight: 1, Weighted: weighted}
}

func TestRenderExplain(t *testing.T) {
	sr := &v1alpha1.SchedulingReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "explain-x"},
		Status: v1alpha1.SchedulingReviewStatus{
			Profile: "bin-packing", ProfileGeneration: 3, SchedulerName: "bin-packing", SnapshotNodes: 6,
			Result: &v1alpha1.PodReviewResult{
				Pod: "default/web", SelectedNode: "node-2", FeasibleNodes: 3, UnlistedFeasibleNodes: 1,
				Nodes: []v1alpha1.NodeScore{
					{Node: "node-2", Rank: 1, TotalScore: 150},
					{Node: "node-1", Rank: 2, TotalScore: 90},
				},
				Scores: []v1alpha1.PluginScores{scores("NodeResourcesFit", 100, 40), scores("TaintToleration", 50, 50)},
				Rejected: []v1alpha1.RejectedNodes{
					{Plugin: "NodeResourcesFit", Reason: "Insufficient cpu", Count: 3, Nodes: []string{"node-4", "node-5"}},
				},
				Sampling: &v1alpha1.Sampling{NumFeasibleNodesToFind: 6, AllNodes: true},
			},
		},
	}
	var out bytes.Buffer
	if err := renderExplain(&out, sr, false); err != nil {
		t.Fatal(err)
	}
	want := `Pod:       default/web
Profile:   bin-packing (generation 3, schedulerName bin-packing)
Nodes:     6 in the snapshot, 3 feasible
Result:    node-2

NODE       FILTER                               NodeResourcesFit   TaintToleration   TOTAL
node-2 *   passed                               100                50                150
node-1     passed                               40                 50                90
(1 more)   passed                               -                  -                 -
node-4     NodeResourcesFit: Insufficient cpu   -                  -                 -
node-5     NodeResourcesFit: Insufficient cpu   -                  -                 -
(1 more)   NodeResourcesFit: Insufficient cpu   -                  -                 -
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestRenderExplainWide(t *testing.T) {
	fit := v1alpha1.PluginScores{Plugin: "NodeResourcesFit", Weight: 2, Raw: []int64{35, 12}, Normalized: []int64{50, 20}, Weighted: []int64{100, 40}}
	ext := v1alpha1.PluginScores{Plugin: "http://gpu/scheduler", Extender: true, Weight: 5, Weighted: []int64{50, 50}}
	sr := &v1alpha1.SchedulingReview{Status: v1alpha1.SchedulingReviewStatus{
		Profile: "bin-packing", ProfileGeneration: 1, SchedulerName: "bin-packing", SnapshotNodes: 2,
		Result: &v1alpha1.PodReviewResult{
			Pod: "default/web", SelectedNode: "node-2", FeasibleNodes: 2,
			Nodes:  []v1alpha1.NodeScore{{Node: "node-2", Rank: 1, TotalScore: 150}, {Node: "node-1", Rank: 2, TotalScore: 90}},
			Scores: []v1alpha1.PluginScores{fit, ext},
		},
	}}
	var out bytes.Buffer
	if err := renderExplain(&out, sr, true); err != nil {
		t.Fatal(err)
	}
	want := `NODE       FILTER   NodeResourcesFit (RAW)   http://gpu/scheduler   TOTAL
node-2 *   passed   100 (35)                 50                     150
node-1     passed   40 (12)                  50                     90
`
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", out.String(), want)
	}
}

func TestRenderExplainUnschedulable(t *testing.T) {
	sr := &v1alpha1.SchedulingReview{Status: v1alpha1.SchedulingReviewStatus{
		Draft: true, SchedulerName: "draft", SnapshotNodes: 2,
		Result: &v1alpha1.PodReviewResult{
			Pod:           "ns/big",
			Route:         "batch",
			BoundNode:     "n1",
			Overcommitted: "cpu 5 > 4; bound pods: ns/big (bench), ns/web (default-scheduler), 1 pod of other namespaces",
			Message:       "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 3 victims",
			Rejected:      []v1alpha1.RejectedNodes{{Plugin: "NodeResourcesFit", Reason: "Insufficient cpu", Count: 2, Nodes: []string{"n1", "n2"}}},
			Preemption:    &v1alpha1.PreemptionResult{Node: "n1", Victims: []string{"ns/low"}, OtherNamespaceVictims: 2},
			Sampling:      &v1alpha1.Sampling{NumFeasibleNodesToFind: 2, AllNodes: true},
		},
	}}
	var out bytes.Buffer
	if err := renderExplain(&out, sr, false); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"Pod:       ns/big",
		"Route:     batch (ProfileRoute that gave the pod its schedulerName)",
		"Bound to:  n1 (evaluated below as if pending again)",
		"WARNING:   node n1 is overcommitted, its pods request more than it has: cpu 5 > 4; bound pods: ns/big (bench), ns/web (default-scheduler), 1 pod of other namespaces",
		"Profile:   draft (schedulerName draft)",
		"Result:    unschedulable: 0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 3 victims",
		"Preemption: would nominate n1, evicting ns/low, 2 pods of other namespaces",
		"NODE   FILTER                               TOTAL",
		"n2     NodeResourcesFit: Insufficient cpu   -",
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("missing line %q in\n%s", line, out.String())
		}
	}
}

func TestRenderExplainTie(t *testing.T) {
	sr := &v1alpha1.SchedulingReview{Status: v1alpha1.SchedulingReviewStatus{
		SchedulerName: "s", SnapshotNodes: 4,
		Result: &v1alpha1.PodReviewResult{
			Pod: "ns/web", SelectedNode: "a", FeasibleNodes: 4, TiedNodes: 3, UnlistedFeasibleNodes: 2,
			Nodes: []v1alpha1.NodeScore{
				{Node: "a", Rank: 1, TotalScore: 7},
				{Node: "b", Rank: 2, TotalScore: 7},
			},
			Scores: []v1alpha1.PluginScores{scores("P", 7, 7)},
		},
	}}
	var out bytes.Buffer
	if err := renderExplain(&out, sr, false); err != nil {
		t.Fatal(err)
	}
	if want := "Result:    a, tied with b, 1 more: the scheduler picks one of them at random\n"; !strings.Contains(out.String(), want) {
		t.Errorf("missing %q in\n%s", want, out.String())
	}
}

func TestRenderWhatIf(t *testing.T) {
	sr := &v1alpha1.SchedulingReview{Status: v1alpha1.SchedulingReviewStatus{
		Draft: true, SchedulerName: "bin-packing", SnapshotNodes: 6,
		WhatIf: &v1alpha1.WhatIfResult{PendingPods: 4, Placed: 2, Pods: []v1alpha1.WhatIfPod{
			{Pod: "ns/a", Node: "node-1"},
			{Pod: "ns/b", Message: "0/6 nodes are available: 6 Insufficient cpu."},
		}},
	}}
	var out bytes.Buffer
	if err := renderWhatIf(&out, sr, false); err != nil {
		t.Fatal(err)
	}
	want := `2 of 4 pending pods would be placed (draft (schedulerName bin-packing), 6 nodes)

POD    NODE     REASON
ns/a   node-1   
ns/b   <none>   0/6 nodes are available: 6 Insufficient cpu.
(2 pending pods of other namespaces, or beyond the first 2, not listed)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestRenderWhatIfWide(t *testing.T) {
	sr := &v1alpha1.SchedulingReview{Status: v1alpha1.SchedulingReviewStatus{
		Profile: "batch", ProfileGeneration: 1, SchedulerName: "batch", SnapshotNodes: 6,
		WhatIf: &v1alpha1.WhatIfResult{PendingPods: 2, Placed: 2, PendingGroups: 1, PlacedGroups: 1, Pods: []v1alpha1.WhatIfPod{
			{Pod: "ns/w-0", Node: "node-1", PodGroup: "workers"},
			{Pod: "ns/solo", Node: "node-2"},
		}},
	}}
	var out bytes.Buffer
	if err := renderWhatIf(&out, sr, true); err != nil {
		t.Fatal(err)
	}
	want := `POD       NODE     PODGROUP   REASON
ns/w-0    node-1   workers    
ns/solo   node-2   <none>     
`
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", out.String(), want)
	}
}

func TestRenderWhatIfOne(t *testing.T) {
	sr := &v1alpha1.SchedulingReview{Status: v1alpha1.SchedulingReviewStatus{
		Profile: "batch", ProfileGeneration: 1, SchedulerName: "batch", SnapshotNodes: 1,
		WhatIf: &v1alpha1.WhatIfResult{PendingPods: 1, PendingGroups: 1},
	}}
	var out bytes.Buffer
	if err := renderWhatIf(&out, sr, false); err != nil {
		t.Fatal(err)
	}
	want := "0 of 1 pending pod and 0 of 1 pod group (all or nothing) would be placed (batch (generation 1, schedulerName batch), 1 node)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestFlagsAndExitErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain"}, "explain takes exactly one pod name"},
		{[]string{"explain", "web", "-o", "wat"}, `--output must be table, wide or one of json, yaml, kyaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file, not "wat"`},
		{[]string{"explain", "web", "-o", "name"}, "-o name names the review, which is deleted once answered: add --keep"},
		{[]string{"what-if", "--profile", "spread", "-o", "name"}, "-o name names the review, which is deleted once answered: add --keep"},
		{[]string{"explain", "web", "-o", "jsonpath={.status"}, "--output jsonpath={.status: error parsing jsonpath"},
		{[]string{"explain", "a", "b"}, "explain takes exactly one pod name: accepts 1 arg(s), received 2"},
		{[]string{"what-if", "pod"}, `unknown command "pod"`},
		{[]string{"explain", "web", "--profile", "a", "-f", "x.yaml"}, "--profile and --filename: give at most one"},
		{[]string{"what-if"}, "what-if needs a draft profile (-f) or --profile"},
		{[]string{"what-if", "-f", "/does/not/exist.yaml"}, "reading the draft profile"},
	} {
		var stdout, stderr bytes.Buffer
		cmd := newRootCommand(streamsFor(&stdout, &stderr))
		cmd.SetArgs(tc.args)
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got error %v, want one containing %q", tc.args, err, tc.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: wrote to stdout: %q", tc.args, stdout.String())
		}
	}
}

func TestRenderGroup(t *testing.T) {
	msg := "pod group is unschedulable, minCount (4) cannot be satisfied: 3 scheduled, 0 remaining, pod group preemption: no victims found"
	sr := &v1alpha1.SchedulingReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "explain-x"},
		Spec:       v1alpha1.SchedulingReviewSpec{PodName: "train-3"},
		Status: v1alpha1.SchedulingReviewStatus{
			Profile: "gang", ProfileGeneration: 1, SchedulerName: "gang", SnapshotNodes: 2,
			Result: &v1alpha1.PodReviewResult{Pod: "ml/train-3", Message: "0/2 nodes are available: 2 Insufficient cpu."},
			Group: &v1alpha1.GroupReviewResult{
				PodGroup: "ml/train", MinCount: 4, Verdict: "Unschedulable", Message: msg, Pending: 4,
				Members: []v1alpha1.GroupMemberResult{
					{Pod: "train-0", Node: "gr-2", Message: "pod group is unschedulable"},
					{Pod: "train-1", Node: "gr-2", Message: "pod group is unschedulable"},
					{Pod: "train-2", Node: "gr-1", Message: "pod group is unschedulable"},
					{Pod: "train-3", Message: "0/2 nodes are available: 2 Insufficient cpu."},
				},
				Nodes:      []v1alpha1.GroupNodeResult{{Node: "gr-2", Pods: []string{"train-0", "train-1"}}, {Node: "gr-1", Pods: []string{"train-2"}}},
				Preemption: &v1alpha1.PreemptionResult{Message: "pod group preemption: no victims found"},
			},
		},
	}
	var out bytes.Buffer
	if err := renderExplain(&out, sr, false); err != nil {
		t.Fatal(err)
	}
	want := `Pod:       ml/train-3 belongs to pod group ml/train: the pod-group cycle places it with its group
Pod group: ml/train (minCount 4)
Profile:   gang (generation 1, schedulerName gang)
Nodes:     2 in the snapshot
Result:    Unschedulable: ` + msg + `
Placed:    none of 4 pending members (all or nothing)
Preemption: no victims found

MEMBER    NODE               REASON
train-0   gr-2 (not bound)   pod group is unschedulable
train-1   gr-2 (not bound)   pod group is unschedulable
train-2   gr-1 (not bound)   pod group is unschedulable
train-3   <none>             0/2 nodes are available: 2 Insufficient cpu.

NODE   MEMBERS
gr-2   train-0, train-1
gr-1   train-2
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestExplainTarget(t *testing.T) {
	for _, tc := range []struct {
		arg, pod, group, err string
	}{
		{arg: "web", pod: "web"},
		{arg: "pod/web", pod: "web"},
		{arg: "podgroup/train", group: "train"},
		{arg: "pg/train", group: "train"},
		{arg: "deployment/web", err: `explain answers for a pod or a podgroup, not "deployment"`},
		{arg: "podgroup/", err: `"podgroup/" names nothing: give POD or podgroup/NAME`},
	} {
		var spec v1alpha1.SchedulingReviewSpec
		err := explainTarget(tc.arg, &spec)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: got error %v, want %s", tc.arg, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.arg, err)
		case spec.PodName != tc.pod || spec.PodGroupName != tc.group:
			t.Errorf("%s: got pod %q group %q, want %q %q", tc.arg, spec.PodName, spec.PodGroupName, tc.pod, tc.group)
		}
	}
}

// TestRootHelpNamesEveryCommand: `kubectl sp -h` says what each command
// is for, not only the ones its description was first written with.
func TestRootHelpNamesEveryCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	root := newRootCommand(streamsFor(&stdout, &stderr))
	for _, cmd := range root.Commands() {
		if !strings.Contains(root.Long, cmd.Name()) {
			t.Errorf("kubectl sp -h does not say what %q is for:\n%s", cmd.Name(), root.Long)
		}
	}
}
