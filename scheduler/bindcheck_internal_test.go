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

package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

func checkNode(name, cpu string) *v1.Node {
	rl := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(cpu),
		v1.ResourceMemory: resource.MustParse("8Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status:     v1.NodeStatus{Capacity: rl, Allocatable: rl},
	}
}

func checkPod(name, schedulerName, node, cpu string, labels map[string]string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name), Labels: labels},
		Spec: v1.PodSpec{
			SchedulerName: schedulerName,
			NodeName:      node,
			Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse(cpu),
			}}}},
		},
	}
}

func hostAntiAffinity(labels map[string]string) *v1.Affinity {
	return &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
			TopologyKey:   v1.LabelHostname,
		}},
	}}
}

// TestBindCheck runs the check on a cache filled by hand: the pod under
// check is assumed on n1, as the binding cycle has it.
func TestBindCheck(t *testing.T) {
	ctx := context.Background()
	logger := klog.Background()
	cases := []struct {
		name    string
		others  []*v1.Pod
		pod     func(*v1.Pod)
		node    string
		refused string
	}{
		{name: "room left", others: []*v1.Pod{checkPod("o", "default-scheduler", "n1", "500m", nil)}},
		{name: "filled exactly", others: []*v1.Pod{checkPod("o", "default-scheduler", "n1", "1", nil)}},
		{name: "no room", others: []*v1.Pod{checkPod("o", "default-scheduler", "n1", "1001m", nil)}, refused: "NodeResourcesFit"},
		{name: "another node filled", others: []*v1.Pod{checkPod("o", "default-scheduler", "n2", "2", nil)}},
		{name: "node gone", node: "n3", refused: bindCheckNodeGone},
		{name: "host port taken", others: []*v1.Pod{func() *v1.Pod {
			p := checkPod("o", "default-scheduler", "n1", "100m", nil)
			p.Spec.Containers[0].Ports = []v1.ContainerPort{{HostPort: 8080, ContainerPort: 8080, Protocol: v1.ProtocolTCP}}
			return p
		}()}, pod: func(p *v1.Pod) {
			p.Spec.Containers[0].Ports = []v1.ContainerPort{{HostPort: 8080, ContainerPort: 8080, Protocol: v1.ProtocolTCP}}
		}, refused: "NodePorts"},
		{name: "existing pod's anti-affinity", others: []*v1.Pod{func() *v1.Pod {
			p := checkPod("o", "default-scheduler", "n1", "100m", nil)
			p.Spec.Affinity = hostAntiAffinity(map[string]string{"app": "web"})
			return p
		}()}, refused: "InterPodAffinity"},
		{name: "own anti-affinity", others: []*v1.Pod{checkPod("o", "default-scheduler", "n1", "100m", map[string]string{"app": "db"})},
			pod: func(p *v1.Pod) { p.Spec.Affinity = hostAntiAffinity(map[string]string{"app": "db"}) }, refused: "InterPodAffinity"},
		{name: "own anti-affinity does not match itself", pod: func(p *v1.Pod) { p.Spec.Affinity = hostAntiAffinity(map[string]string{"app": "web"}) }},
		{name: "required affinity to a pod elsewhere is not room", others: []*v1.Pod{checkPod("o", "default-scheduler", "n2", "100m", map[string]string{"app": "cache"})},
			pod: func(p *v1.Pod) {
				p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}},
					TopologyKey:   v1.LabelHostname,
				}}}}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s := newUnstartedScheduler(t)
			_, err := s.Apply(ctx, testProfile(t, "ours"))
			g.Expect(err).NotTo(HaveOccurred())
			lp := s.gens.acquire("ours")
			defer lp.release(logger)
			g.Expect(lp.check).NotTo(BeNil())

			s.cache.AddNode(logger, checkNode("n1", "2"))
			s.cache.AddNode(logger, checkNode("n2", "2"))
			for _, o := range tc.others {
				g.Expect(s.cache.AddPod(logger, o)).To(Succeed())
			}
			node := tc.node
			if node == "" {
				node = "n1"
			}
			pod := checkPod("p", "ours", node, "1", map[string]string{"app": "web"})
			if tc.pod != nil {
				tc.pod(pod)
			}
			if node != "n3" {
				g.Expect(s.cache.AssumePod(logger, pod)).To(Succeed())
			}
			st := s.binder.checkBeforeBind(ctx, lp.check, pod, node)
			if tc.refused == "" {
				g.Expect(st.IsSuccess()).To(BeTrue(), "refused: %v", st.Message())
				return
			}
			g.Expect(st.Code()).To(Equal(fwk.Unschedulable))
			g.Expect(st.Plugin()).To(Equal(tc.refused))
			g.Expect(st.AsError()).To(MatchError(errNodeFilledUp))
		})
	}
}

// lastRoomSetup is a scheduler with the profile "ours" (released when t
// ends), node n1 of 2 CPUs holding a cached pod of 500m of another
// scheduler, and our pod of cpu assumed there.
func lastRoomSetup(t *testing.T, cpu string) (s *Scheduler, lp *liveProfile, cached, pod *v1.Pod) {
	t.Helper()
	g := NewWithT(t)
	logger := klog.Background()
	s = newUnstartedScheduler(t)
	_, err := s.Apply(context.Background(), testProfile(t, "ours"))
	g.Expect(err).NotTo(HaveOccurred())
	lp = s.gens.acquire("ours")
	t.Cleanup(func() { lp.release(logger) })
	s.cache.AddNode(logger, checkNode("n1", "2"))
	cached = checkPod("o", "default-scheduler", "n1", "500m", nil)
	g.Expect(s.cache.AddPod(logger, cached)).To(Succeed())
	pod = checkPod("p", "ours", "n1", cpu, nil)
	g.Expect(s.cache.AssumePod(logger, pod)).To(Succeed())
	return s, lp, cached, pod
}

// TestBindCheckReadsTheAPIServer checks that pods the API server has on the
// node and the cache has not seen yet count, when another scheduler is
// active.
func TestBindCheckReadsTheAPIServer(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	s, lp, cached, pod := lastRoomSetup(t, "1")

	unseen := checkPod("unseen", "default-scheduler", "n1", "600m", nil)
	done := checkPod("done", "default-scheduler", "n1", "2", nil)
	done.Status.Phase = v1.PodSucceeded
	fromAPI := func(context.Context, string) ([]v1.Pod, error) {
		// The API server has the cached pod, our pod, a finished pod and
		// one the cache has not seen.
		return []v1.Pod{*cached, *pod, *done, *unseen}, nil
	}
	st, lastRoom := lp.check.run(ctx, s.cache, nil, pod, "n1")
	g.Expect(st.IsSuccess()).To(BeTrue(), "the cache alone has room")
	g.Expect(lastRoom).To(BeFalse(), "without a list no last room is looked for")
	st, _ = lp.check.run(ctx, s.cache, fromAPI, pod, "n1")
	g.Expect(st.Code()).To(Equal(fwk.Unschedulable))
	g.Expect(st.Plugin()).To(Equal("NodeResourcesFit"))

	unseen.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("500m")
	st, lastRoom = lp.check.run(ctx, s.cache, fromAPI, pod, "n1")
	g.Expect(st.IsSuccess()).To(BeTrue(), "filled exactly")
	g.Expect(lastRoom).To(BeTrue(), "filled exactly")

	failing := func(context.Context, string) ([]v1.Pod, error) { return nil, fmt.Errorf("injected") }
	st, lastRoom = lp.check.run(ctx, s.cache, failing, pod, "n1")
	g.Expect(st.IsSuccess()).To(BeTrue(), "a failed list checks with the cache alone")
	g.Expect(lastRoom).To(BeTrue(), "with the cache alone a second pod of 1 CPU would not fit")

	g.Expect(s.bindTiming.otherActive()).To(BeFalse())
	s.overcommit.noteOtherBind(nil, checkPod("mine", "ours", "n1", "1", nil))
	g.Expect(s.bindTiming.otherActive()).To(BeFalse(), "a pod of ours")
	s.overcommit.noteOtherBind(checkPod("theirs", "default-scheduler", "n1", "1", nil), checkPod("theirs", "default-scheduler", "n1", "1", nil))
	g.Expect(s.bindTiming.otherActive()).To(BeFalse(), "an update of a pod bound before")
	s.overcommit.noteOtherBind(checkPod("theirs", "default-scheduler", "", "1", nil), checkPod("theirs", "default-scheduler", "n1", "1", nil))
	g.Expect(s.bindTiming.otherActive()).To(BeTrue())
}

// TestOtherPlacement checks the other scheduler's placement time: from a
// pod of a schedulerName no profile serves seen added pending to seen
// bound; pods of ours, pods bound when first seen and pods deleted
// pending give none.
func TestOtherPlacement(t *testing.T) {
	g := NewWithT(t)
	s := newUnstartedScheduler(t)
	_, err := s.Apply(context.Background(), testProfile(t, "ours"))
	g.Expect(err).NotTo(HaveOccurred())

	s.overcommit.noteOtherBind(nil, checkPod("mine", "ours", "", "1", nil))
	s.overcommit.noteOtherBind(checkPod("mine", "ours", "", "1", nil), checkPod("mine", "ours", "n1", "1", nil))
	s.overcommit.noteOtherBind(nil, checkPod("bound", "default-scheduler", "n1", "1", nil))
	g.Expect(s.bindTiming.otherPlacement.get()).To(BeZero(), "no pod of another scheduler seen pending, then bound")

	gone := checkPod("gone", "default-scheduler", "", "1", nil)
	s.overcommit.noteOtherBind(nil, gone)
	_, pending := s.bindTiming.otherPending.Load(gone.UID)
	g.Expect(pending).To(BeTrue())
	s.overcommit.podDeleted(gone)
	_, pending = s.bindTiming.otherPending.Load(gone.UID)
	g.Expect(pending).To(BeFalse(), "forgotten when deleted")

	s.overcommit.noteOtherBind(nil, checkPod("theirs", "default-scheduler", "", "1", nil))
	time.Sleep(20 * time.Millisecond)
	s.overcommit.noteOtherBind(checkPod("theirs", "default-scheduler", "", "1", nil), checkPod("theirs", "default-scheduler", "n1", "1", nil))
	g.Expect(s.bindTiming.otherPlacement.get()).To(BeNumerically(">=", 20*time.Millisecond))
	g.Expect(s.bindTiming.otherPlacement.get()).To(BeNumerically("<", maxBindSettle))
	_, pending = s.bindTiming.otherPending.Load(types.UID("theirs"))
	g.Expect(pending).To(BeFalse(), "forgotten when bound")
}

// TestBindCheckSettles checks the second look: while another scheduler
// binds, a pod that takes its node's last room is checked again after the
// bind round trip, and what the API server has on the node by then counts.
func TestBindCheckSettles(t *testing.T) {
	const roundTrip = 30 * time.Millisecond
	cases := []struct {
		name string
		// cpu the pod requests; n1 has 2 CPUs and a 500m pod of another
		// scheduler in the cache.
		cpu string
		// alone: no other scheduler was seen binding.
		alone bool
		// arbiter: the bind arbiter judges every bind.
		arbiter bool
		// landed is what the API server has on n1 from the second list
		// on, beside the cached pod and ours.
		landed *v1.Pod
		cancel bool

		wantLists   int
		wantSettled bool
		refused     string
		failed      bool
	}{
		{name: "room for a second pod: no settle", cpu: "500m", wantLists: 1},
		{name: "last room, nothing landed: bound after the settle", cpu: "1", wantLists: 2, wantSettled: true},
		{name: "last room, another scheduler's bind landed meanwhile: refused", cpu: "1",
			landed: checkPod("theirs", "default-scheduler", "n1", "600m", nil), wantLists: 2, wantSettled: true, refused: "NodeResourcesFit"},
		{name: "last room, a pod landed that leaves room: bound", cpu: "1",
			landed: checkPod("theirs", "default-scheduler", "n1", "400m", nil), wantLists: 2, wantSettled: true},
		{name: "alone in the cluster: no list, no settle", cpu: "1", alone: true},
		{name: "with the bind arbiter: no list, no settle, the cache alone", cpu: "1", arbiter: true},
		{name: "binding cancelled during the settle", cpu: "1", cancel: true, wantLists: 1, wantSettled: true, failed: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, lp, cached, pod := lastRoomSetup(t, tc.cpu)
			s.opts.bindArbiter = tc.arbiter
			if !tc.alone {
				s.overcommit.noteOtherBind(checkPod("o", "default-scheduler", "", "500m", nil), cached)
			}
			s.bindTiming.roundTrip.observe(roundTrip)

			lists := 0
			s.client.(*fake.Clientset).PrependReactor("list", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				g.Expect(action.(k8stesting.ListAction).GetListRestrictions().Fields.String()).To(Equal("spec.nodeName=n1"))
				lists++
				items := []v1.Pod{*cached, *pod}
				if lists > 1 && tc.landed != nil {
					items = append(items, *tc.landed)
				}
				if tc.cancel {
					cancel()
				}
				return true, &v1.PodList{Items: items}, nil
			})
			settles := testutil.ToFloat64(bindCheckSettles.WithLabelValues("ours"))
			start := time.Now()
			st := s.binder.checkBeforeBind(ctx, lp.check, pod, "n1")
			took := time.Since(start)

			g.Expect(lists).To(Equal(tc.wantLists), "lists of the node's pods")
			if tc.wantSettled {
				g.Expect(testutil.ToFloat64(bindCheckSettles.WithLabelValues("ours")) - settles).To(Equal(1.0))
				if !tc.cancel {
					g.Expect(took).To(BeNumerically(">=", roundTrip), "the settle")
				}
			} else {
				g.Expect(testutil.ToFloat64(bindCheckSettles.WithLabelValues("ours"))).To(Equal(settles))
			}
			switch {
			case tc.failed:
				g.Expect(st.Code()).To(Equal(fwk.Error))
				g.Expect(st.AsError()).To(MatchError(context.Canceled))
			case tc.refused != "":
				g.Expect(st.Code()).To(Equal(fwk.Unschedulable))
				g.Expect(st.Plugin()).To(Equal(tc.refused))
				g.Expect(st.AsError()).To(MatchError(errNodeFilledUp))
			default:
				g.Expect(st.IsSuccess()).To(BeTrue(), "refused: %v", st.Message())
			}
		})
	}
}

// TestMovingAverage checks the settle's averages: over the last few,
// bounded, none before the first.
func TestMovingAverage(t *testing.T) {
	g := NewWithT(t)
	var b movingAverage
	g.Expect(b.get()).To(BeZero())
	b.observe(80 * time.Millisecond)
	g.Expect(b.get()).To(Equal(80 * time.Millisecond))
	b.observe(0)
	g.Expect(b.get()).To(Equal(70 * time.Millisecond))
	for range 100 {
		b.observe(time.Minute)
	}
	g.Expect(b.get()).To(Equal(maxBindSettle))

}

// TestBindCheckOff checks that WithBindCheck(false) binds without looking.
func TestBindCheckOff(t *testing.T) {
	g := NewWithT(t)
	s := newUnstartedScheduler(t)
	s.opts.bindCheck = false
	_, err := s.Apply(context.Background(), testProfile(t, "ours"))
	g.Expect(err).NotTo(HaveOccurred())
	lp := s.gens.acquire("ours")
	defer lp.release(klog.Background())
	g.Expect(s.binder.checkBeforeBind(context.Background(), lp.check, checkPod("p", "ours", "gone", "1", nil), "gone").IsSuccess()).To(BeTrue())
}

// BenchmarkBindCheck times one check of a pod on a node holding 30 pods.
func BenchmarkBindCheck(b *testing.B) {
	ctx := context.Background()
	logger := klog.Background()
	cs := newUnstartedScheduler(b)
	if _, err := cs.Apply(ctx, testProfile(b, "ours")); err != nil {
		b.Fatal(err)
	}
	lp := cs.gens.acquire("ours")
	defer lp.release(logger)
	cs.cache.AddNode(logger, checkNode("n1", "64"))
	for i := range 30 {
		if err := cs.cache.AddPod(logger, checkPod(fmt.Sprintf("o-%d", i), "default-scheduler", "n1", "1", map[string]string{"app": "x"})); err != nil {
			b.Fatal(err)
		}
	}
	pod := checkPod("p", "ours", "n1", "1", nil)
	if err := cs.cache.AssumePod(logger, pod); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if st := cs.binder.checkBeforeBind(ctx, lp.check, pod, "n1"); !st.IsSuccess() {
			b.Fatal(st.Message())
		}
	}
}
