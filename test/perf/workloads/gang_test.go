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
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// gangFS is a case file with the embedded node and pod templates.
func gangFS(t *testing.T, body string) fs.FS {
	t.Helper()
	fsys := fstest.MapFS{"x.yaml": {Data: []byte(body)}}
	for _, f := range []string{"templates/node-default.yaml", "templates/pod-default.yaml"} {
		b, err := fs.ReadFile(Embedded, f)
		if err != nil {
			t.Fatal(err)
		}
		fsys[f] = &fstest.MapFile{Data: b}
	}
	return fsys
}

const gangHead = "name: x\nparams: {g8: 3, g32: 1, rate: 5}\nprofile: {}\ntimeoutSeconds: 10\n"
const gangNodes = "steps:\n- createNodes: {count: 1, prefix: node, template: node-default.yaml}\n"

// Groups of two sets alternate, one of each in turn, members consecutive;
// minCount defaults to the size; the step's pods are the members.
func TestGroupLayout(t *testing.T) {
	cases, err := Load(gangFS(t, gangHead+"featureGates: {GenericWorkload: true}\n"+gangNodes+
		"- createPods:\n    prefix: m\n    template: pod-default.yaml\n    measure: true\n    rate: $rate\n"+
		"    groups:\n    - {count: $g8, size: 8}\n    - {count: $g32, size: 32, minCount: 30}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := cases[0].Steps[1].CreatePods
	vals, err := cases[0].Values(ScaleDefault, map[string]int{"g8": 3, "g32": 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Layout(vals)
	if err != nil {
		t.Fatal(err)
	}
	want := []Group{
		{Name: "m-g0", First: 0, Size: 8, MinCount: 8},
		{Name: "m-g1", First: 8, Size: 32, MinCount: 30},
		{Name: "m-g2", First: 40, Size: 8, MinCount: 8},
		{Name: "m-g3", First: 48, Size: 32, MinCount: 30},
		{Name: "m-g4", First: 80, Size: 8, MinCount: 8},
	}
	if len(got) != len(want) {
		t.Fatalf("layout = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("group %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if n, err := s.Pods(vals); err != nil || n != 88 {
		t.Errorf("Pods = %d, %v; want 88", n, err)
	}
	if f := cases[0].FeatureGatesFlag(); f != "--feature-gates=GenericWorkload=true" {
		t.Errorf("FeatureGatesFlag = %q", f)
	}
	if !cases[0].PodGroups() {
		t.Error("PodGroups() false with GenericWorkload on")
	}
	// A step without groups has no layout and counts its pods as before.
	plain := &CreatePods{Prefix: "p", Count: Count{literal: 4}}
	if l, err := plain.Layout(vals); err != nil || l != nil {
		t.Errorf("plain Layout = %v, %v", l, err)
	}
	if n, err := plain.Pods(vals); err != nil || n != 4 {
		t.Errorf("plain Pods = %d, %v", n, err)
	}
}

// Bad group steps are refused at load, naming what is wrong.
func TestGroupValidation(t *testing.T) {
	gate := "featureGates: {GenericWorkload: true}\n"
	measured := "- createPods: {count: 1, prefix: m, template: pod-default.yaml, measure: true, rate: $rate}\n"
	for _, tc := range []struct{ name, body, wantErr string }{
		{"no gate", gangHead + gangNodes +
			"- createPods: {prefix: m, template: pod-default.yaml, measure: true, rate: $rate, groups: [{count: 1, size: 8}]}\n",
			"groups need featureGates: {GenericWorkload: true}"},
		{"count and groups", gangHead + gate + gangNodes +
			"- createPods: {count: 8, prefix: m, template: pod-default.yaml, measure: true, rate: $rate, groups: [{count: 1, size: 8}]}\n",
			"leave count out"},
		{"size 0", gangHead + gate + gangNodes +
			"- createPods: {prefix: m, template: pod-default.yaml, measure: true, rate: $rate, groups: [{count: 1, size: 0}]}\n",
			"groups[0]: want count >= 0 and size >= 1"},
		{"unknown param", gangHead + gate + gangNodes +
			"- createPods: {prefix: m, template: pod-default.yaml, measure: true, rate: $rate, groups: [{count: $g16, size: 16}]}\n",
			"groups[0].count: unknown parameter $g16"},
		{"no group", gangHead + gate + gangNodes +
			"- createPods: {prefix: m, template: pod-default.yaml, measure: true, rate: $rate, groups: [{count: 0, size: 8}]}\n",
			"no group"},
		{"pending without groups", gangHead + gate + gangNodes +
			"- createPods: {count: 2, prefix: p, template: pod-default.yaml, expectPending: true}\n" + measured,
			"expectPending counts groups"},
		{"measured pending", gangHead + gate + gangNodes +
			"- createPods: {prefix: m, template: pod-default.yaml, measure: true, rate: $rate, expectPending: true, groups: [{count: 1, size: 8}]}\n",
			"a measured step waits for its pods"},
		{"unknown field", gangHead + gate + gangNodes +
			"- createPods: {prefix: m, template: pod-default.yaml, measure: true, rate: $rate, groups: [{count: 1, members: 8}]}\n",
			"unknown field"},
	} {
		_, err := Load(gangFS(t, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.wantErr)
		}
	}
}

// The gang case: groups of 8 and 32 with minCount their size, measured;
// groups that cannot fit (members bigger than a node, or fewer members
// than minCount) expected pending; at both scales.
func TestGangCase(t *testing.T) {
	c := embeddedCase(t, "gang")
	if !c.PodGroups() {
		t.Fatal("gang case without the GenericWorkload gate")
	}
	for _, scale := range []string{ScaleDefault, ScaleSmall} {
		vals, err := c.Values(scale, nil)
		if err != nil {
			t.Fatal(err)
		}
		nodes, _ := c.Steps[0].CreateNodes.Count.Value(vals)
		sizes, pending := map[int]int{}, 0
		for _, st := range c.Steps[1:] {
			s := st.CreatePods
			groups, err := s.Layout(vals)
			if err != nil {
				t.Fatal(err)
			}
			pod, err := c.Pod(s.Template, TemplateData{Name: "p-0", Namespace: "ns", SchedulerName: "s", Params: vals})
			if err != nil {
				t.Fatal(err)
			}
			cpu := pod.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
			for _, g := range groups {
				fits := cpu <= 4000 && g.MinCount <= g.Size
				if s.ExpectPending == fits {
					t.Errorf("%s: group %s (size %d, minCount %d, %dm each): expectPending %v", scale, g.Name, g.Size, g.MinCount, cpu, s.ExpectPending)
				}
				if s.ExpectPending {
					pending++
					continue
				}
				if g.MinCount != g.Size {
					t.Errorf("%s: measured group %s has minCount %d, size %d", scale, g.Name, g.MinCount, g.Size)
				}
				sizes[g.Size]++
			}
			if s.Measure {
				n, _ := s.Pods(vals)
				// Room for every measured pod by CPU (4 CPU a node).
				if int64(n)*cpu > int64(nodes)*4000 {
					t.Errorf("%s: %d measured pods of %dm on %d nodes do not fit", scale, n, cpu, nodes)
				}
			}
		}
		if sizes[8] == 0 || sizes[32] == 0 || len(sizes) != 2 || pending == 0 {
			t.Errorf("%s: measured group sizes %v, %d expected pending: want groups of 8 and of 32 and some pending", scale, sizes, pending)
		}
	}
}
