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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// podGroups is the pod groups a test's scheduler has observed.
type podGroups map[string]*schedulingv1beta1.PodGroup

func (g podGroups) Get(namespace, name string) (*schedulingv1beta1.PodGroup, error) {
	if pg, ok := g[namespace+"/"+name]; ok {
		return pg, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "scheduling.k8s.io", Resource: "podgroups"}, name)
}

func newGroupQueue(t *testing.T, clk *testingclock.FakeClock, groups podGroups, profiles ...string) *Queue {
	t.Helper()
	q := New(WithClock(clk), WithPodGroups(groups))
	for _, p := range profiles {
		if err := q.SetProfile(context.Background(), p, newTestFramework(t, p)); err != nil {
			t.Fatal(err)
		}
	}
	return q
}

func podGroup(name string) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func member(name, group string, priority int32) *v1.Pod {
	p := pod(name, "a", priority)
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
	return p
}

func popEntity(t *testing.T, q *Queue) framework.QueuedEntityInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	return q.Pop(ctx)
}

func TestPopTakesTheWholeGroupFromEverySubQueue(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := newGroupQueue(t, clk, podGroups{"ns/gang": podGroup("gang")}, "a")
	ctx := context.Background()

	// m1 and m2 fail together; m1 backs off, m2 waits for a node
	// (unschedulable); m3 and m4 are new; a pod of another group and a
	// lone pod stay queued.
	q.Add(ctx, member("m1", "gang", 0))
	q.Add(ctx, member("m2", "gang", 0))
	first, ok := popEntity(t, q).(*framework.QueuedPodGroupInfo)
	g.Expect(ok).To(BeTrue())
	var tried []*framework.QueuedPodInfo
	first.ForEachPodInfo(func(p *framework.QueuedPodInfo) bool { tried = append(tried, p); return true })
	g.Expect(tried).To(HaveLen(2))
	g.Expect(q.AddUnschedulableIfNotPresent(ctx, tried[0])).To(Succeed())
	clk.Step(time.Millisecond)
	rejectByNodeWaiter(t, q, tried[1])
	_, backoff, unschedulable := q.Pending()
	g.Expect(podNames(backoff)).To(ConsistOf("m1"))
	g.Expect(podNames(unschedulable)).To(ConsistOf("m2"))
	q.Add(ctx, member("m3", "gang", 0))
	clk.Step(time.Millisecond)
	q.Add(ctx, member("m4", "gang", 0))
	q.Add(ctx, member("other", "other-gang", 0))
	q.Add(ctx, pod("lone", "a", 0))

	e := popEntity(t, q)
	group, ok := e.(*framework.QueuedPodGroupInfo)
	g.Expect(ok).To(BeTrue(), "popped %T", e)
	g.Expect(group.Name).To(Equal("gang"))
	g.Expect(group.PodGroup).To(Equal(podGroup("gang")))
	var names []string
	group.ForEachPodInfo(func(p *framework.QueuedPodInfo) bool {
		names = append(names, p.Pod.Name)
		return true
	})
	// Upstream's member order: attempts first (m1 and m2 were tried), then
	// the oldest.
	g.Expect(names).To(Equal([]string{"m1", "m2", "m3", "m4"}))
	g.Expect(group.UnscheduledPods).To(HaveLen(4))
	for _, n := range names {
		g.Expect(q.inFlight).To(HaveKey(types.UID(n)))
	}
	active, backoff, unschedulable := q.Pending()
	g.Expect(podNames(active)).To(ConsistOf("other", "lone"))
	g.Expect(backoff).To(BeEmpty())
	g.Expect(unschedulable).To(BeEmpty())
}

func TestAGroupWaitsForItsPodGroupAndItsGatedMembers(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	groups := podGroups{}
	q := newGroupQueue(t, clk, groups, "a")
	ctx := context.Background()

	q.Add(ctx, member("m1", "gang", 0))
	g.Expect(popEntity(t, q)).To(BeNil(), "no PodGroup yet: the pod waits")
	_, _, unschedulable := q.Pending()
	g.Expect(podNames(unschedulable)).To(ConsistOf("m1"))
	g.Expect(q.inFlight).To(BeEmpty())

	groups["ns/gang"] = podGroup("gang")
	gated := member("m2", "gang", 0)
	gated.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
	q.Add(ctx, gated)
	q.AddPodGroup(ctx, "ns", "gang")
	g.Expect(popEntity(t, q)).To(BeNil(), "a member is gated: the whole group waits")
	_, _, unschedulable = q.Pending()
	g.Expect(podNames(unschedulable)).To(ConsistOf("m1", "m2"))

	ungated := gated.DeepCopy()
	ungated.Spec.SchedulingGates = nil
	q.Update(ctx, gated, ungated)
	e := popEntity(t, q)
	group, ok := e.(*framework.QueuedPodGroupInfo)
	g.Expect(ok).To(BeTrue(), "popped %T", e)
	g.Expect(group.Size()).To(Equal(2))
}

func TestADeletedMemberLeavesTheGroup(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := newGroupQueue(t, clk, podGroups{"ns/gang": podGroup("gang")}, "a")
	ctx := context.Background()
	m1, m2 := member("m1", "gang", 0), member("m2", "gang", 0)
	q.Add(ctx, m1)
	q.Add(ctx, m2)
	q.Delete(m2)
	g.Expect(q.members).To(HaveKeyWithValue(groupKey{"ns", "gang"}, HaveLen(1)))
	group, ok := popEntity(t, q).(*framework.QueuedPodGroupInfo)
	g.Expect(ok).To(BeTrue())
	g.Expect(group.Size()).To(Equal(1))
	q.Delete(m1)
	g.Expect(q.members).To(BeEmpty())
}

func TestWithoutPodGroupsAMemberIsAPod(t *testing.T) {
	g := NewWithT(t)
	q := newQueue(t, testingclock.NewFakeClock(time.Now()), "a")
	q.Add(context.Background(), member("m1", "gang", 0))
	_, ok := popEntity(t, q).(*framework.QueuedPodInfo)
	g.Expect(ok).To(BeTrue())
}

func podNames(pods []*v1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
