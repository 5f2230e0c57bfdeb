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

package review

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"
)

// TestMemberOrder: members of equal priority go by queue time (a
// review's: creation time), then name, whatever order they are listed in.
func TestMemberOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	member := func(name string, created time.Time) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: metav1.NewTime(created)},
			Spec:       v1.PodSpec{SchedulingGroup: &v1.PodSchedulingGroup{PodGroupName: ptr.To("pg")}},
		}
	}
	for _, tc := range []struct {
		name    string
		members []*v1.Pod
		want    []string
	}{
		{name: "same second: by name", members: []*v1.Pod{member("c", t0), member("a", t0), member("b", t0)}, want: []string{"a", "b", "c"}},
		{name: "older first", members: []*v1.Pod{member("a", t0.Add(time.Second)), member("b", t0)}, want: []string{"b", "a"}},
		{
			name:    "time, then name",
			members: []*v1.Pod{member("z", t0), member("y", t0.Add(2*time.Second)), member("x", t0.Add(2*time.Second)), member("w", t0.Add(time.Second))},
			want:    []string{"z", "w", "x", "y"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			pgi := &framework.QueuedPodGroupInfo{PodGroupInfo: &framework.PodGroupInfo{
				Namespace: "ns", Name: "pg", Type: fwk.PodGroupKeyType,
				PodGroup: &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg"}},
			}}
			for _, p := range tc.members {
				g.Expect(addMember(pgi, p)).To(Succeed())
			}
			var got []string
			for _, p := range pgi.QueuedPodInfos[fwk.PodGroupKey(pgi.Namespace, pgi.Name)] {
				got = append(got, p.Pod.Name)
			}
			g.Expect(got).To(Equal(tc.want))
			var unscheduled []string
			for _, p := range pgi.GetUnscheduledPods() {
				unscheduled = append(unscheduled, p.Name)
			}
			g.Expect(unscheduled).To(Equal(tc.want), "the pods PlacementFeasible counts, in the same order")
		})
	}
}
