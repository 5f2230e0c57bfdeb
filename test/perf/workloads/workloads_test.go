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
		"preemption", "unschedulable-churn", "placement", "swap", "explain"}
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
		fsys := fstest.MapFS{"x.yaml": {Data: []byte(base + tc.step)}}
		for _, f := range []string{"templates/node-default.yaml", "templates/pod-default.yaml"} {
			b, err := fs.ReadFile(Embedded, f)
			if err != nil {
				t.Fatal(err)
			}
			fsys[f] = &fstest.MapFile{Data: b}
		}
		_, err := Load(fsys)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.step, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", tc.step, err, tc.wantErr)
		}
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
	cases, err := Load(Embedded)
	if err != nil {
		t.Fatal(err)
	}
	var c *Case
	for _, x := range cases {
		if x.Name == "placement" {
			c = x
		}
	}
	if c == nil {
		t.Fatal("no placement case")
	}
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
