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
	"testing"
)

func TestExplainCase(t *testing.T) {
	c := embeddedCase(t, "explain")
	for _, tc := range []struct {
		scale string
		sizes []int
	}{{ScaleDefault, []int{500, 5000}}, {"small", []int{100, 1000}}} {
		vals, err := c.Values(tc.scale, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, n := range c.Explain.Sizes {
			v, err := n.Value(vals)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		if len(got) != len(tc.sizes) || got[0] != tc.sizes[0] || got[1] != tc.sizes[1] {
			t.Errorf("%s: sizes %v, want %v", tc.scale, got, tc.sizes)
		}
		if r, _ := c.Explain.Rate.Value(vals); r != 10 {
			t.Errorf("%s: %d reviews/s beside the throughput run, want 10", tc.scale, r)
		}
	}
}

func TestExplainValidation(t *testing.T) {
	base := "name: x\nparams: {rate: 5, nodes: 3}\nprofile: {}\ntimeoutSeconds: 10\nsteps:\n" +
		"- createNodes: {count: $nodes, prefix: node, template: node-default.yaml}\n" +
		"- createPods: {count: 1, prefix: m, template: pod-default.yaml, measure: true, rate: $rate}\n"
	for _, tc := range []struct{ explain, wantErr string }{
		{"explain: {sizes: [$nodes, 9], reviews: 2, rate: 1, podTemplate: pod-default.yaml}\n", ""},
		{"explain: {sizes: [], reviews: 2, rate: 1, podTemplate: pod-default.yaml}\n", "sizes needs at least one"},
		{"explain: {sizes: [$nodes, $big], reviews: 2, rate: 1, podTemplate: pod-default.yaml}\n", "explain.sizes[1]: unknown parameter $big"},
		{"explain: {sizes: [3], reviews: 0, rate: 1, podTemplate: pod-default.yaml}\n", "explain.reviews must be positive"},
		{"explain: {sizes: [3], reviews: 2, rate: 1, podTemplate: nope.yaml}\n", "explain: podTemplate: template nope.yaml not found"},
	} {
		expectLoad(t, base+tc.explain, tc.explain, tc.wantErr)
	}
}
