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

package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// Members name their group and carry its label; the PodGroup has the
// gang policy with the group's minCount and the step's label.
func TestAssignGroups(t *testing.T) {
	pods := make([]*corev1.Pod, 5)
	for i := range pods {
		pods[i] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: workloads.Name("m", i), Labels: map[string]string{}}}
	}
	groups := []workloads.Group{{Name: "m-g0", First: 0, Size: 2, MinCount: 2}, {Name: "m-g1", First: 2, Size: 3, MinCount: 4}}
	if err := assignGroups(pods, groups); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"m-g0", "m-g0", "m-g1", "m-g1", "m-g1"} {
		sg := pods[i].Spec.SchedulingGroup
		if sg == nil || ptr.Deref(sg.PodGroupName, "") != want || pods[i].Labels[GroupLabel] != want {
			t.Errorf("pod %d: group %v, label %q; want %s", i, sg, pods[i].Labels[GroupLabel], want)
		}
	}
	pg := podGroup("ns", "m", groups[1])
	if pg.Name != "m-g1" || pg.Namespace != "ns" || pg.Labels[StepLabel] != "m" ||
		pg.Spec.SchedulingPolicy.Gang == nil || pg.Spec.SchedulingPolicy.Gang.MinCount != 4 || pg.Spec.WorkloadRef != nil {
		t.Errorf("PodGroup = %+v", pg)
	}
	err := assignGroups(pods[:4], groups)
	if err == nil || !strings.Contains(err.Error(), "m-g1") {
		t.Errorf("a group past the pods: error %v", err)
	}
}

// Partially bound: some members bound but not all, or all bound but
// fewer than minCount. Expected-pending groups count as left pending only
// with no member bound.
func TestTally(t *testing.T) {
	census := map[string]*groupState{
		"gang-g0":   {step: "gang", minCount: 8, members: 8, bound: 8},
		"gang-g1":   {step: "gang", minCount: 8, members: 8, bound: 0},
		"gang-g2":   {step: "gang", minCount: 8, members: 8, bound: 5},
		"short-g0":  {step: "short", minCount: 8, members: 6, bound: 0},
		"short-g1":  {step: "short", minCount: 8, members: 6, bound: 6},
		"toobig-g0": {step: "toobig", minCount: 8, members: 8, bound: 0},
	}
	var g GangRun
	g.tally(census, map[string]bool{"short": true, "toobig": true})
	if g.PodGroups != 6 || g.PartiallyBound != 2 || g.ExpectedPending != 3 || g.StayedPending != 2 {
		t.Errorf("tally = %+v; want 6 groups, 2 partially bound, 2 of 3 left pending", g)
	}
	want := []string{"gang-g2 5/8 (minCount 8)", "short-g1 6/6 (minCount 8)"}
	if strings.Join(g.PartiallyBoundGroups, ";") != strings.Join(want, ";") {
		t.Errorf("partially bound = %v, want %v", g.PartiallyBoundGroups, want)
	}
}

// The recorder keeps, per group of a step, its members, how many were
// bound and the last creation and bind.
func TestRecorderGroups(t *testing.T) {
	r := &Recorder{watchLoop: newWatchLoop(), pods: map[string]*podRecord{}, bound: map[string]int{}, seen: map[string]int{}}
	pod := func(name, group, node string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{StepLabel: "gang"}}}
		if group != "" {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
		}
		p.Spec.NodeName = node
		return p
	}
	t0 := time.Unix(100, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	r.observe(watch.Added, pod("a", "g0", ""), at(0))
	r.observe(watch.Added, pod("b", "g0", ""), at(1))
	r.observe(watch.Added, pod("c", "g1", ""), at(2))
	r.observe(watch.Added, pod("plain", "", ""), at(2))
	r.observe(watch.Modified, pod("b", "g0", "n1"), at(5))
	r.observe(watch.Modified, pod("a", "g0", "n2"), at(6))
	got := r.Groups("gang")
	if len(got) != 2 {
		t.Fatalf("groups = %v", got)
	}
	if g := got["g0"]; g.Members != 2 || g.Bound != 2 || !g.LastCreated.Equal(at(1)) || !g.LastBound.Equal(at(6)) {
		t.Errorf("g0 = %+v", g)
	}
	if g := got["g1"]; g.Members != 1 || g.Bound != 0 || !g.LastBound.IsZero() {
		t.Errorf("g1 = %+v", g)
	}
	if len(r.Groups("other")) != 0 {
		t.Error("groups of another step")
	}
}
