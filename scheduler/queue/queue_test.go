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
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/schedulinggates"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	testingclock "k8s.io/utils/clock/testing"
)

func TestMain(m *testing.M) {
	metrics.Register()
	os.Exit(m.Run())
}

// nodeWaiter rejects nothing by itself; pods name it as their rejector and
// it asks to be woken up by node additions only.
type nodeWaiter struct{}

const nodeWaiterName = "NodeWaiter"

func (nodeWaiter) Name() string { return nodeWaiterName }

func (nodeWaiter) Filter(context.Context, fwk.CycleState, *v1.Pod, fwk.NodeInfo) *fwk.Status {
	return nil
}

func (nodeWaiter) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{{
		Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add},
		QueueingHintFn: func(_ klog.Logger, _ *v1.Pod, _, newObj interface{}) (fwk.QueueingHint, error) {
			if n, ok := newObj.(*v1.Node); ok && n.Labels["useful"] == "true" {
				return fwk.Queue, nil
			}
			return fwk.QueueSkip, nil
		},
	}}, nil
}

func newTestFramework(t *testing.T, name string) framework.Framework {
	t.Helper()
	registry := frameworkruntime.Registry{
		queuesort.Name:     queuesort.New,
		defaultbinder.Name: defaultbinder.New,
		names.SchedulingGates: func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			return schedulinggates.New(ctx, args, h, feature.Features{})
		},
		nodeWaiterName: func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return nodeWaiter{}, nil },
	}
	profile := &config.KubeSchedulerProfile{
		SchedulerName: name,
		Plugins: &config.Plugins{
			QueueSort:  config.PluginSet{Enabled: []config.Plugin{{Name: queuesort.Name}}},
			PreEnqueue: config.PluginSet{Enabled: []config.Plugin{{Name: names.SchedulingGates}}},
			Filter:     config.PluginSet{Enabled: []config.Plugin{{Name: nodeWaiterName}}},
			Bind:       config.PluginSet{Enabled: []config.Plugin{{Name: defaultbinder.Name}}},
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	fw, err := frameworkruntime.NewFramework(ctx, registry, profile)
	if err != nil {
		t.Fatal(err)
	}
	return fw
}

func newQueue(t *testing.T, clk *testingclock.FakeClock, profiles ...string) *Queue {
	t.Helper()
	q := New(WithClock(clk))
	for _, p := range profiles {
		if err := q.SetProfile(context.Background(), p, newTestFramework(t, p)); err != nil {
			t.Fatal(err)
		}
	}
	return q
}

func pod(name, schedulerName string, priority int32) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)},
		Spec:       v1.PodSpec{SchedulerName: schedulerName, Priority: &priority},
	}
}

func popNow(t *testing.T, q *Queue) *framework.QueuedPodInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return poppedPod(t, q.Pop(ctx))
}

// poppedPod is the pod Pop or PopFor returned; nil when none was.
func poppedPod(t *testing.T, e framework.QueuedEntityInfo) *framework.QueuedPodInfo {
	t.Helper()
	if e == nil {
		return nil
	}
	p, ok := e.(*framework.QueuedPodInfo)
	if !ok {
		t.Fatalf("popped %T, want a pod", e)
	}
	return p
}

// nodeAdd is the event NodeWaiter asks for; usefulNode is a node its hint
// accepts.
var (
	nodeAdd    = fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add}
	usefulNode = &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"useful": "true"}}}
)

// rejectByNodeWaiter returns a popped pod to q as NodeWaiter rejected it.
func rejectByNodeWaiter(t *testing.T, q *Queue, p *framework.QueuedPodInfo) {
	t.Helper()
	p.UnschedulablePlugins = sets.New(nodeWaiterName)
	if err := q.AddUnschedulableIfNotPresent(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

func TestBackoffDoublesUpToTheMaximum(t *testing.T) {
	g := NewWithT(t)
	q := New(WithPodBackoff(time.Second, 10*time.Second))
	var got []time.Duration
	for count := 1; count <= 6; count++ {
		got = append(got, q.backoffDuration(count))
	}
	g.Expect(got).To(Equal([]time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}))
}

func TestFailedPodBacksOffLongerEachTime(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := newQueue(t, clk, "a")
	ctx := context.Background()
	g.Expect(q.Add(context.Background(), pod("p", "a", 0))).To(BeTrue())
	for attempt, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		p := popNow(t, q)
		g.Expect(p).NotTo(BeNil(), "attempt %d", attempt)
		// An error (no rejecting plugin) goes straight to back-off.
		p.UnschedulablePlugins = sets.New[string]()
		g.Expect(q.AddUnschedulableIfNotPresent(ctx, p)).To(Succeed())
		_, backoff, _ := q.Pending()
		g.Expect(backoff).To(HaveLen(1))
		info, _ := q.Get(p.Pod)
		g.Expect(info.BackoffExpiration.Sub(info.Timestamp)).To(Equal(want))

		clk.Step(want - time.Millisecond)
		q.flushBackoffCompleted(ctx)
		active, _, _ := q.Pending()
		g.Expect(active).To(BeEmpty(), "still backing off")
		clk.Step(time.Millisecond)
		q.flushBackoffCompleted(ctx)
		active, _, _ = q.Pending()
		g.Expect(active).To(HaveLen(1))
	}
}

func TestPopsHigherPriorityFirstAcrossProfiles(t *testing.T) {
	g := NewWithT(t)
	q := newQueue(t, testingclock.NewFakeClock(time.Now()), "a", "b")
	ctx := context.Background()
	q.Add(ctx, pod("low", "a", 1))
	q.Add(ctx, pod("mid", "b", 5))
	q.Add(ctx, pod("high", "a", 10))
	var order []string
	for i := 0; i < 3; i++ {
		order = append(order, popNow(t, q).Pod.Name)
	}
	g.Expect(order).To(Equal([]string{"high", "mid", "low"}))
}

func TestGatedPodWaitsUntilUngated(t *testing.T) {
	g := NewWithT(t)
	q := newQueue(t, testingclock.NewFakeClock(time.Now()), "a")
	ctx := context.Background()
	gated := pod("gated", "a", 0)
	gated.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "wait"}}
	gated.ResourceVersion = "1"
	q.Add(ctx, gated)
	active, _, unsched := q.Pending()
	g.Expect(active).To(BeEmpty())
	g.Expect(unsched).To(HaveLen(1))

	ungated := gated.DeepCopy()
	ungated.Spec.SchedulingGates = nil
	ungated.ResourceVersion = "2"
	q.Update(ctx, gated, ungated)
	g.Expect(popNow(t, q).Pod.Name).To(Equal("gated"))
}

func TestIgnoresUnservedPodsAndDropsARemovedProfile(t *testing.T) {
	g := NewWithT(t)
	q := newQueue(t, testingclock.NewFakeClock(time.Now()), "a")
	ctx := context.Background()
	g.Expect(q.Add(ctx, pod("stranger", "nobody", 0))).To(BeFalse())
	g.Expect(q.Add(ctx, pod("mine", "a", 0))).To(BeTrue())
	g.Expect(q.RemoveProfile("a")).To(Equal(1))
	active, backoff, unsched := q.Pending()
	g.Expect(append(append(active, backoff...), unsched...)).To(BeEmpty())
	g.Expect(q.Add(ctx, pod("late", "a", 0))).To(BeFalse())
}

func TestClusterEventMovesOnlyPodsItMayHelp(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := newQueue(t, clk, "a")
	ctx := context.Background()
	q.Add(context.Background(), pod("p", "a", 0))
	rejectByNodeWaiter(t, q, popNow(t, q))
	_, _, unsched := q.Pending()
	g.Expect(unsched).To(HaveLen(1))

	// An assigned pod appearing is of no interest to NodeWaiter.
	q.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodAdd, nil, pod("other", "x", 0), nil)
	_, _, unsched = q.Pending()
	g.Expect(unsched).To(HaveLen(1))
	// A node the hint rejects does not move it either.
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, &v1.Node{}, nil)
	_, _, unsched = q.Pending()
	g.Expect(unsched).To(HaveLen(1))
	// A useful node does; after its back-off it is active.
	clk.Step(2 * time.Second)
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, usefulNode, nil)
	active, _, _ := q.Pending()
	g.Expect(active).To(HaveLen(1))
}

func TestEventDuringTheCycleRequeuesTheFailedPod(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := newQueue(t, clk, "a")
	q.Add(context.Background(), pod("p", "a", 0))
	p := popNow(t, q)
	// The node arrives while p is being scheduled.
	q.MoveAllToActiveOrBackoffQueue(context.Background(), nodeAdd, nil, usefulNode, nil)
	rejectByNodeWaiter(t, q, p)
	_, backoff, unsched := q.Pending()
	g.Expect(unsched).To(BeEmpty())
	g.Expect(backoff).To(HaveLen(1))
}

func TestProfileSwapRetriesUnschedulablePods(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := newQueue(t, clk, "a")
	q.Add(context.Background(), pod("p", "a", 0))
	rejectByNodeWaiter(t, q, popNow(t, q))
	clk.Step(2 * time.Second)
	g.Expect(q.SetProfile(context.Background(), "a", newTestFramework(t, "a"))).To(Succeed())
	g.Expect(popNow(t, q).Pod.Name).To(Equal("p"))
}

// With no active pod, Pop takes a rejected pod from back-off before its
// back-off ends (upstream's SchedulerPopFromBackoffQ); an active pod comes
// first, and a pod that failed with an error always waits its back-off out.
func TestIdlePopTakesARejectedPodFromBackoff(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := newQueue(t, clk, "a")
	g.Expect(q.popFromBackoff).To(BeTrue(), "the feature gate is on by default")
	ctx := context.Background()

	q.Add(context.Background(), pod("rejected", "a", 0))
	q.Add(context.Background(), pod("errored", "a", 0))
	rejected, errored := popNow(t, q), popNow(t, q)
	g.Expect([]string{rejected.Pod.Name, errored.Pod.Name}).To(Equal([]string{"rejected", "errored"}))
	// A useful node arrives while both are in flight: the rejected pod
	// goes to back-off instead of the unschedulable set; the errored one
	// goes to back-off anyway.
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, usefulNode, nil)
	rejectByNodeWaiter(t, q, rejected)
	g.Expect(q.AddUnschedulableIfNotPresent(ctx, errored)).To(Succeed())
	_, backoff, _ := q.Pending()
	g.Expect(backoff).To(HaveLen(2))

	q.Add(context.Background(), pod("new", "a", 0))
	g.Expect(popNow(t, q).Pod.Name).To(Equal("new"), "an active pod comes first")
	q.Done("new")
	got := popNow(t, q)
	g.Expect(got).NotTo(BeNil())
	g.Expect(got.Pod.Name).To(Equal("rejected"), "taken from back-off while the clock has not moved")
	q.Done("rejected")
	g.Expect(popNow(t, q)).To(BeNil(), "the errored pod waits out its back-off")

	clk.Step(time.Second)
	q.flushBackoffCompleted(ctx)
	g.Expect(popNow(t, q).Pod.Name).To(Equal("errored"))
}
