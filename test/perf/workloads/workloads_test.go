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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

func TestLoadEmbedded(t *testing.T) {
	cases, err := Load(Embedded)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
		for _, scale := range []string{ScaleDefault, "small"} {
			if _, err := c.Values(scale, nil); err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
		}
	}
	want := []string{"basic", "node-affinity", "pod-anti-affinity", "topology-spreading",
		"preemption", "unschedulable-churn", "mixed-churn", "placement", "gang", "swap", "explain",
		"rollout", "routes", "coexist", "coexist-memory", "isolation"}
	if len(names) != len(want) {
		t.Fatalf("cases = %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("cases = %v, want %v", names, want)
		}
	}
}

// A measured step says how fast its latency run creates pods.
func TestMeasuredStepNeedsRate(t *testing.T) {
	base := "name: x\nparams: {rate: 5}\nprofile: {}\ntimeoutSeconds: 10\nsteps:\n" +
		"- createNodes: {count: 1, prefix: node, template: node-default.yaml}\n"
	for _, tc := range []struct{ step, wantErr string }{
		{"- createPods: {count: 1, prefix: m, template: pod-default.yaml, measure: true, rate: $rate}\n", ""},
		{"- createPods: {count: 1, prefix: m, template: pod-default.yaml, measure: true}\n", "needs rate"},
		{"- createPods: {count: 1, prefix: m, template: pod-default.yaml, measure: true, rate: $speed}\n", "unknown parameter $speed"},
	} {
		expectLoad(t, base+tc.step, tc.step, tc.wantErr)
	}
}

func TestCount(t *testing.T) {
	c := &Case{Name: "x", Params: map[string]int{"nodes": 5}, Scales: map[string]map[string]int{"small": {"nodes": 2}}}
	v, err := c.Values("small", map[string]int{})
	if err != nil || v["nodes"] != 2 {
		t.Fatalf("Values(small) = %v, %v", v, err)
	}
	v, err = c.Values(ScaleDefault, map[string]int{"nodes": 9})
	if err != nil || v["nodes"] != 9 {
		t.Fatalf("override = %v, %v", v, err)
	}
	if _, err := c.Values(ScaleDefault, map[string]int{"pods": 1}); err == nil {
		t.Errorf("unknown override accepted")
	}
	if _, err := c.Values("huge", nil); err == nil {
		t.Errorf("unknown scale accepted")
	}
	var n Count
	if err := n.UnmarshalJSON([]byte(`"$nodes"`)); err != nil {
		t.Fatal(err)
	}
	if x, err := n.Value(v); err != nil || x != 9 {
		t.Errorf("$nodes = %d, %v", x, err)
	}
	if err := n.UnmarshalJSON([]byte(`"nodes"`)); err == nil {
		t.Errorf("a bare word was accepted as a count")
	}
}

// TestPlacementUniqueBest checks what the placement case claims: for every
// measured pod, at both scales, node affinity alone makes one node better
// than every other by a margin the resource scores of small pods cannot
// close.
func TestPlacementUniqueBest(t *testing.T) {
	c := embeddedCase(t, "placement")
	for _, scale := range []string{ScaleDefault, "small"} {
		vals, err := c.Values(scale, nil)
		if err != nil {
			t.Fatal(err)
		}
		nodeStep, podStep := c.Steps[0].CreateNodes, c.Steps[1].CreatePods
		nn, _ := nodeStep.Count.Value(vals)
		np, _ := podStep.Count.Value(vals)
		nodes := make([]*corev1.Node, nn)
		for i := range nodes {
			if nodes[i], err = c.Node(nodeStep.Template, TemplateData{Index: i, Name: Name(nodeStep.Prefix, i), Params: vals}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range np {
			pod, err := c.Pod(podStep.Template, TemplateData{Index: i, Name: Name(podStep.Prefix, i), Namespace: "ns", SchedulerName: "s", Params: vals})
			if err != nil {
				t.Fatal(err)
			}
			terms := pod.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
			pref, err := nodeaffinity.NewPreferredSchedulingTerms(terms)
			if err != nil {
				t.Fatal(err)
			}
			best, second, bestNode := int64(-1), int64(-1), ""
			for _, n := range nodes {
				s := pref.Score(n)
				switch {
				case s > best:
					second, best, bestNode = best, s, n.Name
				case s > second:
					second = s
				}
			}
			// Normalised to 100 and weighted 2 by the NodeAffinity plugin.
			margin := 200 * (best - second) / best
			if margin < 60 {
				t.Fatalf("%s/%s: best node %s leads by %d points, want >= 60", scale, pod.Name, bestNode, margin)
			}
		}
	}
}

// The scale set runs the cases upstream's scheduler_perf sizes at 5000
// nodes, at those sizes (performance-config.yaml of misc, affinity,
// topology_spreading and default_preemption).
func TestScaleSet(t *testing.T) {
	cases, err := Load(Embedded)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int{
		"basic":               {"nodes": 5000, "initPods": 1000, "measuredPods": 10000},
		"node-affinity":       {"nodes": 5000, "initPods": 5000, "measuredPods": 10000},
		"pod-anti-affinity":   {"nodes": 5000, "initPods": 1000, "measuredPods": 2000},
		"topology-spreading":  {"nodes": 5000, "initPods": 5000, "measuredPods": 5000},
		"unschedulable-churn": {"nodes": 5000, "parkedPods": 200, "measuredPods": 10000},
		"mixed-churn":         {"nodes": 5000, "measuredPods": 10000, "churnIntervalMillis": 1000},
	}
	for _, c := range cases {
		w, sized := want[c.Name]
		if c.HasScale(ScaleLarge) != sized {
			t.Errorf("%s: HasScale(%s) = %v, want %v", c.Name, ScaleLarge, !sized, sized)
		}
		if !c.HasScale(ScaleDefault) || !c.HasScale(ScaleSmall) {
			t.Errorf("%s: every case has the default and the small set", c.Name)
		}
		if !sized {
			if _, err := c.Values(ScaleLarge, nil); err == nil {
				t.Errorf("%s: Values(%s) succeeded for a case without that set", c.Name, ScaleLarge)
			}
			continue
		}
		delete(want, c.Name)
		vals, err := c.Values(ScaleLarge, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for k, v := range w {
			if vals[k] != v {
				t.Errorf("%s: %s = %d at %s, want %d", c.Name, k, vals[k], ScaleLarge, v)
			}
		}
		// The latency run creates the measured pods at rate: it must last
		// the 10 s a measured step needs too.
		if vals["measuredPods"] < 10*vals["rate"] {
			t.Errorf("%s: %d measured pods at %d/s last under 10 s", c.Name, vals["measuredPods"], vals["rate"])
		}
		// Overrides still apply on top of the set.
		o, err := c.Values(ScaleLarge, map[string]int{"measuredPods": 7})
		if err != nil || o["measuredPods"] != 7 || o["nodes"] != 5000 {
			t.Errorf("%s: override on %s = %v, %v", c.Name, ScaleLarge, o, err)
		}
		// Every step's first and last object renders with these values.
		for i, s := range c.Steps {
			var count Count
			var tpl, prefix string
			pod := false
			switch {
			case s.CreateNodes != nil:
				count, tpl, prefix = s.CreateNodes.Count, s.CreateNodes.Template, s.CreateNodes.Prefix
			case s.CreatePods != nil:
				count, tpl, prefix, pod = s.CreatePods.Count, s.CreatePods.Template, s.CreatePods.Prefix, true
			default:
				continue
			}
			n, err := count.Value(vals)
			if err != nil || n <= 0 {
				t.Fatalf("%s step %d: count %d, %v", c.Name, i, n, err)
			}
			for _, idx := range []int{0, n - 1} {
				d := TemplateData{Index: idx, Name: Name(prefix, idx), Namespace: "ns", SchedulerName: "s", Params: vals}
				if pod {
					_, err = c.Pod(tpl, d)
				} else {
					_, err = c.Node(tpl, d)
				}
				if err != nil {
					t.Errorf("%s step %d index %d: %v", c.Name, i, idx, err)
				}
			}
		}
	}
	for name := range want {
		t.Errorf("case %s not found", name)
	}
	// One anti-affine pod per node: the pods must fit the nodes.
	for _, c := range cases {
		if c.Name == "pod-anti-affinity" {
			v, _ := c.Values(ScaleLarge, nil)
			if v["initPods"]+v["measuredPods"] > v["nodes"] {
				t.Errorf("pod-anti-affinity at %s: %d pods for %d nodes", ScaleLarge, v["initPods"]+v["measuredPods"], v["nodes"])
			}
		}
	}
}

// A scale set may only set parameters the case has.
func TestScaleSetNamesParameters(t *testing.T) {
	base := "name: x\nparams: {nodes: 5, rate: 5}\nprofile: {}\ntimeoutSeconds: 10\n" +
		"steps:\n- createNodes: {count: $nodes, prefix: node, template: node-default.yaml}\n" +
		"- createPods: {count: 1, prefix: m, template: pod-default.yaml, measure: true, rate: $rate}\n"
	for _, tc := range []struct{ scales, wantErr string }{
		{"scales:\n  scale: {nodes: 5000}\n", ""},
		{"scales:\n  scale: {node: 5000}\n", `scale scale sets "node", which is not a parameter`},
		{"scales:\n  scale: {nodes: many}\n", "x.yaml"},
	} {
		fsys := fstest.MapFS{"x.yaml": {Data: []byte(base + tc.scales)}}
		for _, f := range []string{"templates/node-default.yaml", "templates/pod-default.yaml"} {
			b, err := fs.ReadFile(Embedded, f)
			if err != nil {
				t.Fatal(err)
			}
			fsys[f] = &fstest.MapFile{Data: b}
		}
		cases, err := Load(fsys)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.scales, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: error %v, want one saying %q", tc.scales, err, tc.wantErr)
		case tc.wantErr == "":
			v, err := cases[0].Values(ScaleLarge, nil)
			if err != nil || v["nodes"] != 5000 || v["rate"] != 5 {
				t.Errorf("%q: Values = %v, %v", tc.scales, v, err)
			}
		}
	}
}

// A churn step's pod and service templates are rendered when the case
// loads: a missing one or one of the wrong kind is an error naming it.
func TestChurnTemplates(t *testing.T) {
	base := "name: x\nparams: {rate: 5}\nprofile: {}\ntimeoutSeconds: 10\nsteps:\n" +
		"- createNodes: {count: 1, prefix: node, template: node-default.yaml}\n" +
		"- createPods: {count: 1, prefix: m, template: pod-default.yaml, measure: true, rate: $rate}\n"
	for _, tc := range []struct{ churn, wantErr string }{
		{"{prefix: c, template: node-churn.yaml, podTemplate: pod-churn-high-priority-large-cpu.yaml, serviceTemplate: service-churn.yaml, intervalMillis: 1000}", ""},
		{"{prefix: c, template: node-churn.yaml, intervalMillis: 1000}", ""},
		{"{prefix: c, template: node-churn.yaml, podTemplate: pod-nope.yaml, intervalMillis: 1000}", "churn podTemplate: template pod-nope.yaml not found"},
		{"{prefix: c, template: node-churn.yaml, serviceTemplate: pod-default.yaml, intervalMillis: 1000}", "churn serviceTemplate"},
	} {
		fsys := fstest.MapFS{"x.yaml": {Data: []byte(base + "- churn: " + tc.churn + "\n")}}
		files, err := fs.Glob(Embedded, "templates/*.yaml")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := fs.ReadFile(Embedded, f)
			if err != nil {
				t.Fatal(err)
			}
			fsys[f] = &fstest.MapFile{Data: b}
		}
		_, err = Load(fsys)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.churn, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", tc.churn, err, tc.wantErr)
		}
	}
	cases, err := Load(Embedded)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Name != "mixed-churn" {
			continue
		}
		d := TemplateData{Index: 3, Name: Name("churn", 3), Namespace: "ns", SchedulerName: "s", Params: c.Params}
		svc, err := c.Service("service-churn.yaml", d)
		if err != nil || svc.Name != "churn-3" || len(svc.Spec.Ports) != 1 {
			t.Errorf("churn service = %+v, %v", svc, err)
		}
		pod, err := c.Pod("pod-churn-high-priority-large-cpu.yaml", d)
		if err != nil || pod.Spec.PriorityClassName != "bench-churn-high" || pod.Spec.Containers[0].Resources.Requests.Cpu().Value() != 9 {
			t.Errorf("churn pod = %+v, %v", pod, err)
		}
		if len(c.PriorityClasses) != 1 || c.PriorityClasses[0].Name != "bench-churn-high" {
			t.Errorf("mixed-churn priority classes = %v", c.PriorityClasses)
		}
	}
}

// embeddedCase is the built-in case named name.
func embeddedCase(t *testing.T, name string) *Case {
	t.Helper()
	cases, err := Load(Embedded)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s case", name)
	return nil
}

// expectLoad loads doc as the one workload of a directory with the
// built-in templates, and checks that it loads (wantErr empty) or fails
// with an error saying wantErr; what names the case in a failure.
func expectLoad(t *testing.T, doc, what, wantErr string) {
	t.Helper()
	fsys := fstest.MapFS{"x.yaml": {Data: []byte(doc)}}
	files, err := fs.Glob(Embedded, "templates/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := fs.ReadFile(Embedded, f)
		if err != nil {
			t.Fatal(err)
		}
		fsys[f] = &fstest.MapFile{Data: b}
	}
	_, err = Load(fsys)
	switch {
	case wantErr == "" && err != nil:
		t.Errorf("%s: %v", what, err)
	case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
		t.Errorf("%s: error %v, want one saying %q", what, err, wantErr)
	}
}
