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

package controllers

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func TestNameOwner(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sp := func(name string, created time.Time, deleting bool) v1alpha1.SchedulerProfile {
		p := v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}}
		if deleting {
			p.DeletionTimestamp = ptr.To(metav1.NewTime(created.Add(time.Hour)))
		}
		return p
	}
	tests := []struct {
		name     string
		claimers []v1alpha1.SchedulerProfile
		want     string
	}{
		{"none", nil, ""},
		{"oldest wins", []v1alpha1.SchedulerProfile{sp("new", t0.Add(time.Second), false), sp("old", t0, false)}, "old"},
		{"same second: name decides", []v1alpha1.SchedulerProfile{sp("b", t0, false), sp("a", t0, false)}, "a"},
		{"deleting claims nothing", []v1alpha1.SchedulerProfile{sp("new", t0.Add(time.Second), false), sp("old", t0, true)}, "new"},
		{"all deleting", []v1alpha1.SchedulerProfile{sp("old", t0, true)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := nameOwner(tt.claimers)
			if tt.want == "" {
				g.Expect(got).To(BeNil())
				return
			}
			g.Expect(got).NotTo(BeNil())
			g.Expect(got.Name).To(Equal(tt.want))
		})
	}
}

func TestServedNames(t *testing.T) {
	g := NewWithT(t)
	s := newServedNames()
	old, displaced := s.set("x", servedProfile{SchedulerName: "a", Generation: 1})
	g.Expect(old).To(BeEmpty())
	g.Expect(displaced).To(BeEmpty())

	// x renames a -> b: a is to be removed.
	old, displaced = s.set("x", servedProfile{SchedulerName: "b", Generation: 2})
	g.Expect(old).To(Equal("a"))
	g.Expect(displaced).To(BeEmpty())

	// y takes b over from x.
	old, displaced = s.set("y", servedProfile{SchedulerName: "b", Generation: 1})
	g.Expect(old).To(BeEmpty())
	g.Expect(displaced).To(Equal("x"))
	_, ok := s.get("x")
	g.Expect(ok).To(BeFalse())

	// x, deleted later, must not remove b, which y serves.
	_, ok = s.release("x")
	g.Expect(ok).To(BeFalse())
	name, ok := s.release("y")
	g.Expect(ok).To(BeTrue())
	g.Expect(name).To(Equal("b"))
}

func TestServedNamesKeepsBothMapsInStep(t *testing.T) {
	g := NewWithT(t)
	s := newServedNames()
	s.set("x", servedProfile{SchedulerName: "a", Generation: 1})
	s.set("y", servedProfile{SchedulerName: "b", Generation: 1})
	// y renames b -> a, taking a over from x: x serves nothing, b is free.
	old, displaced := s.set("y", servedProfile{SchedulerName: "a", Generation: 2})
	g.Expect(old).To(Equal("b"))
	g.Expect(displaced).To(Equal("x"))
	g.Expect(s.byName).To(Equal(map[string]string{"a": "y"}))
	g.Expect(s.byObject).To(HaveLen(1))
	got, ok := s.get("y")
	g.Expect(ok).To(BeTrue())
	g.Expect(got.SchedulerName).To(Equal("a"))
	g.Expect(got.Generation).To(BeEquivalentTo(2))

	// The same name again is no rename and displaces nobody.
	old, displaced = s.set("y", servedProfile{SchedulerName: "a", Generation: 3})
	g.Expect(old).To(BeEmpty())
	g.Expect(displaced).To(BeEmpty())

	name, ok := s.release("y")
	g.Expect(ok).To(BeTrue())
	g.Expect(name).To(Equal("a"))
	g.Expect(s.byName).To(BeEmpty())
	g.Expect(s.byObject).To(BeEmpty())
}
