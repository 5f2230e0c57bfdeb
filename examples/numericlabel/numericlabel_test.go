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

package numericlabel

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

func nodeInfo(name string, labels map[string]string) fwk.NodeInfo {
	ni := framework.NewNodeInfo()
	ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
	return ni
}

// scores runs Score on every node, then NormalizeScore, as the framework
// does, and returns the final score per node.
func scores(t *testing.T, args *NumericLabelArgs, nodes map[string]map[string]string) map[string]int64 {
	t.Helper()
	g := NewWithT(t)
	p, err := New(context.Background(), args, nil)
	g.Expect(err).NotTo(HaveOccurred())
	pl := p.(*NumericLabel)
	var list fwk.NodeScoreList
	for name, labels := range nodes {
		s, st := pl.Score(context.Background(), nil, &v1.Pod{}, nodeInfo(name, labels))
		g.Expect(st.IsSuccess()).To(BeTrue(), st.Message())
		list = append(list, fwk.NodeScore{Name: name, Score: s})
	}
	g.Expect(pl.ScoreExtensions().NormalizeScore(context.Background(), nil, &v1.Pod{}, list).IsSuccess()).To(BeTrue())
	out := map[string]int64{}
	for _, s := range list {
		g.Expect(s.Score).To(BeNumerically(">=", fwk.MinScore))
		g.Expect(s.Score).To(BeNumerically("<=", fwk.MaxScore))
		out[s.Name] = s.Score
	}
	return out
}

func TestScores(t *testing.T) {
	const key = "example.com/cost"
	cost := func(v string) map[string]string { return map[string]string{key: v} }
	tests := []struct {
		name  string
		args  NumericLabelArgs
		nodes map[string]map[string]string
		want  map[string]int64
	}{{
		name:  "highest value first by default, linear in between",
		args:  NumericLabelArgs{LabelKey: key},
		nodes: map[string]map[string]string{"a": cost("1"), "b": cost("5"), "c": cost("9")},
		want:  map[string]int64{"a": 0, "b": 50, "c": 100},
	}, {
		name:  "preferLow turns it round",
		args:  NumericLabelArgs{LabelKey: key, PreferLow: true},
		nodes: map[string]map[string]string{"a": cost("1"), "b": cost("5"), "c": cost("9")},
		want:  map[string]int64{"a": 100, "b": 50, "c": 0},
	}, {
		name:  "negative values",
		args:  NumericLabelArgs{LabelKey: key, PreferLow: true},
		nodes: map[string]map[string]string{"a": cost("-10"), "b": cost("10")},
		want:  map[string]int64{"a": 100, "b": 0},
	}, {
		name: "a node without the label, or with a value that is no integer, comes last either way",
		args: NumericLabelArgs{LabelKey: key, PreferLow: true},
		nodes: map[string]map[string]string{
			"a": cost("3"), "b": cost("7"), "none": {"other": "1"}, "text": cost("cheap"), "float": cost("1.5"),
		},
		want: map[string]int64{"a": 100, "b": 0, "none": 0, "text": 0, "float": 0},
	}, {
		name:  "equal values score the same, the highest",
		args:  NumericLabelArgs{LabelKey: key},
		nodes: map[string]map[string]string{"a": cost("4"), "b": cost("4"), "none": nil},
		want:  map[string]int64{"a": 100, "b": 100, "none": 0},
	}, {
		name:  "no node has the label: no preference",
		args:  NumericLabelArgs{LabelKey: key},
		nodes: map[string]map[string]string{"a": nil, "b": nil},
		want:  map[string]int64{"a": 0, "b": 0},
	}, {
		name:  "extreme values do not overflow",
		args:  NumericLabelArgs{LabelKey: key},
		nodes: map[string]map[string]string{"a": cost("-9223372036854775807"), "b": cost("9223372036854775807"), "c": cost("0")},
		want:  map[string]int64{"a": 0, "b": 100, "c": 50},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(scores(t, &tt.args, tt.nodes)).To(Equal(tt.want))
		})
	}
}

func TestSetDefaults(t *testing.T) {
	g := NewWithT(t)
	a := &NumericLabelArgs{}
	SetDefaults(a)
	g.Expect(a).To(Equal(&NumericLabelArgs{LabelKey: DefaultLabelKey}))
	a = &NumericLabelArgs{LabelKey: "x.io/y", PreferLow: true}
	SetDefaults(a)
	g.Expect(a).To(Equal(&NumericLabelArgs{LabelKey: "x.io/y", PreferLow: true}))
}

func TestValidateArgs(t *testing.T) {
	path := field.NewPath("spec", "pluginConfig").Index(0).Child("args")
	tests := []struct {
		key  string
		want string
	}{
		{key: "example.com/cost"},
		{key: "rank"},
		{key: "", want: "spec.pluginConfig[0].args.labelKey: Invalid value"},
		{key: "not a key", want: "spec.pluginConfig[0].args.labelKey: Invalid value: \"not a key\""},
		{key: "a/b/c", want: "spec.pluginConfig[0].args.labelKey"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			g := NewWithT(t)
			err := ValidateArgs(path, &NumericLabelArgs{LabelKey: tt.key})
			if tt.want == "" {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tt.want)))
		})
	}
}

func TestNewRefusesBadArgs(t *testing.T) {
	g := NewWithT(t)
	_, err := New(context.Background(), &runtime.Unknown{Raw: []byte(`{"labelKey":"x"}`)}, nil)
	g.Expect(err).To(MatchError(ContainSubstring("want args of type NumericLabelArgs")))
	_, err = New(context.Background(), &NumericLabelArgs{LabelKey: "bad key"}, nil)
	g.Expect(err).To(MatchError(ContainSubstring("args.labelKey")))
}
