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

package decode

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestStrict(t *testing.T) {
	path := field.NewPath("spec", "podTemplate", "spec")
	for _, tc := range []struct {
		name, in string
		want     []string // the errors, as field.Error.Error() prints them
	}{
		{name: "valid", in: `{"containers":[{"name":"c","resources":{"requests":{"cpu":"2"}}}]}`},
		{name: "a list given as a string", in: `{"containers":"not-a-list"}`,
			want: []string{`spec.podTemplate.spec.containers: Invalid value: "not-a-list": must be of type array`}},
		{name: "a quantity that does not parse", in: `{"containers":[{"name":"c"},{"name":"d","resources":{"requests":{"memory":"1Gi","cpu":"two"}}}]}`,
			want: []string{`spec.podTemplate.spec.containers[1].resources.requests[cpu]: Invalid value: "two": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`}},
		{name: "a number given as a string", in: `{"containers":[{"name":"c","ports":[{"containerPort":"x"}]}]}`,
			want: []string{`spec.podTemplate.spec.containers[0].ports[0].containerPort: Invalid value: "x": must be of type integer (int32)`}},
		{name: "a fraction for an integer", in: `{"priority":1.5}`,
			want: []string{`spec.podTemplate.spec.priority: Invalid value: "1.5": must be of type integer (int32)`}},
		{name: "an object given as a list", in: `{"affinity":[1]}`,
			want: []string{`spec.podTemplate.spec.affinity: Invalid value: "array": must be of type object`}},
		{name: "a string given as an object", in: `{"schedulerName":{"a":1}}`,
			want: []string{`spec.podTemplate.spec.schedulerName: Invalid value: "object": must be of type string`}},
		{name: "a map of the wrong type", in: `{"nodeSelector":{"zone":3}}`,
			want: []string{`spec.podTemplate.spec.nodeSelector[zone]: Invalid value: "3": must be of type string`}},
		{name: "unknown fields", in: `{"containers":[{"name":"c","resourcez":{}}],"nodeSelektor":{}}`,
			want: []string{
				`spec.podTemplate.spec.containers[0].resourcez: Invalid value: unknown field`,
				`spec.podTemplate.spec.nodeSelektor: Invalid value: unknown field`,
			}},
		{name: "a duplicate field", in: `{"schedulerName":"a","schedulerName":"b"}`,
			want: []string{`spec.podTemplate.spec.schedulerName: Invalid value: duplicate field`}},
		{name: "the whole value of the wrong type", in: `"spec"`,
			want: []string{`spec.podTemplate.spec: Invalid value: "spec": must be of type object`}},
		{name: "not JSON", in: `{"containers":`,
			want: []string{`spec.podTemplate.spec: Invalid value: null: not valid JSON: unexpected EOF`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			into := corev1.PodSpec{SchedulerName: "untouched"}
			errs := Strict([]byte(tc.in), &into, path)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			g.Expect(got).To(ConsistOf(tcWant(tc.want)...))
			if len(tc.want) > 0 {
				g.Expect(into.SchedulerName).To(Equal("untouched"), "a refused document changes nothing")
			}
		})
	}
}

func tcWant(want []string) []any {
	out := make([]any, len(want))
	for i, w := range want {
		out[i] = w
	}
	return out
}

func TestStrictDecodes(t *testing.T) {
	g := NewWithT(t)
	var spec corev1.PodSpec
	g.Expect(Strict([]byte(`{"containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]}`), &spec, field.NewPath("spec"))).To(BeEmpty())
	g.Expect(spec.Containers[0].Resources.Requests[corev1.ResourceCPU]).To(Equal(resource.MustParse("500m")))

	g.Expect(Strict([]byte(`{}`), spec, nil)).To(HaveLen(1), "a non-pointer is an internal error, not a panic")
}

func FuzzStrict(f *testing.F) {
	for _, s := range []string{`{"containers":"x"}`, `{"containers":[{"resources":{"limits":{"cpu":"q"}}}]}`, `[]`, `null`, `{"overhead":{"cpu":1e400}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var spec corev1.PodSpec
		_ = Strict(data, &spec, field.NewPath("spec"))
	})
}
