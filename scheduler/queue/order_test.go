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

package queue

import (
	"context"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

func TestComparePending(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(ns, name string, prio int32, created time.Time) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(created)},
			Spec:       v1.PodSpec{Priority: ptr.To(prio)},
		}
	}
	pods := []*v1.Pod{
		pod("b", "late", 0, t0.Add(time.Second)),
		pod("b", "x", 0, t0),
		pod("a", "y", 0, t0),
		pod("a", "x", 0, t0),
		pod("z", "high", 10, t0.Add(time.Hour)),
	}
	slices.SortFunc(pods, ComparePending)
	var got []string
	for _, p := range pods {
		got = append(got, p.Namespace+"/"+p.Name)
	}
	g.Expect(got).To(Equal([]string{"z/high", "a/x", "a/y", "b/x", "b/late"}))
}

// Pods added one after another pop in the order added when their priority
// ties, even where the clock does not move between them (a profile that
// goes live queues its waiting pods in one burst).
func TestPodsAddedTogetherPopInTheOrderAdded(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := newQueue(t, clk, "p")
	names := []string{"e", "b", "h", "a", "g", "c", "f", "d"}
	for _, n := range names {
		g.Expect(q.Add(context.Background(), pod(n, "p", 0))).To(BeTrue())
	}
	var got []string
	for range names {
		p := popNow(t, q)
		g.Expect(p).NotTo(BeNil())
		got = append(got, p.Pod.Name)
	}
	g.Expect(got).To(Equal(names))
}
