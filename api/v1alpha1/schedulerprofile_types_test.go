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
