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

package v1alpha1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestEffectiveSchedulerName(t *testing.T) {
	tests := []struct {
		name string
		spec *string
		want string
	}{
		{name: "unset defaults to metadata.name", spec: nil, want: "bin-packing"},
		{name: "empty defaults to metadata.name", spec: ptr.To(""), want: "bin-packing"},
		{name: "set wins", spec: ptr.To("gpu-aware"), want: "gpu-aware"},
		{name: "set to the same name", spec: ptr.To("bin-packing"), want: "bin-packing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &SchedulerProfile{
				ObjectMeta: metav1.ObjectMeta{Name: "bin-packing"},
				Spec:       SchedulerProfileSpec{SchedulerName: tt.spec},
			}
			if got := p.EffectiveSchedulerName(); got != tt.want {
				t.Fatalf("EffectiveSchedulerName() = %q, want %q", got, tt.want)
			}
		})
	}
}
