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

package pluginargs

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// sampleArgs are the typed args of the test plugin "Sample", registered
// with Register in init.
type sampleArgs struct {
	metav1.TypeMeta `json:",inline"`
	Tier            string `json:"tier"`
}

func (a *sampleArgs) DeepCopyObject() runtime.Object { c := *a; return &c }

type otherSampleArgs struct {
	metav1.TypeMeta `json:",inline"`
}

func (a *otherSampleArgs) DeepCopyObject() runtime.Object { c := *a; return &c }

const sampleName = "Sample"

func init() {
	if err := Register(sampleName, &sampleArgs{}, nil); err != nil {
		panic(err)
	}
}

func TestRegister(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
		as   string
		err  string
	}{
		{name: "the same type again", obj: &sampleArgs{}, as: sampleName},
		{name: "another type under a registered name", obj: &otherSampleArgs{}, as: sampleName, err: `kind SampleArgs is already registered as *pluginargs.sampleArgs`},
		{name: "an in-tree plugin's name", obj: &otherSampleArgs{}, as: "NodeResourcesFit", err: `plugin args for "NodeResourcesFit": an in-tree plugin has that name`},
		{name: "an empty name", obj: &otherSampleArgs{}, as: "", err: "empty plugin name"},
		{name: "a nil type", obj: nil, as: "Nil", err: "nil args type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := Register(tt.as, tt.obj, nil)
			if tt.err == "" {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tt.err)))
		})
	}
}

func TestInTree(t *testing.T) {
	g := NewWithT(t)
	g.Expect(InTree("NodeResourcesFit")).To(BeTrue())
	g.Expect(InTree(sampleName)).To(BeFalse())
}
