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
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// The smallest count is found by bisection, and the answer always rests
// on two real runs: the count, which placed every pod, and count-1,
// which did not.
func TestMinimizeFindsTheSmallestCountAndRunsItAndTheOneBelow(t *testing.T) {
	for _, tc := range []struct {
		name       string
		need, max  int
		wantCount  int
		wantResult int // the count the returned run was made with
	}{
		{name: "fits already", need: 0, max: 50, wantCount: 0, wantResult: 0},
		{name: "one", need: 1, max: 50, wantCount: 1, wantResult: 1},
		{name: "in the middle", need: 17, max: 50, wantCount: 17, wantResult: 17},
		{name: "exactly max", need: 50, max: 50, wantCount: 50, wantResult: 50},
		{name: "more than max", need: 51, max: 50, wantCount: -1, wantResult: 50},
		{name: "max 0 and nothing fits", need: 3, max: 0, wantCount: -1, wantResult: 0},
		{name: "max 1", need: 1, max: 1, wantCount: 1, wantResult: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			ran := map[int]bool{}
			run := func(n int) (*scenarioRun, error) {
				ran[n] = true
				return &scenarioRun{unplaced: max(0, tc.need-n), minimizeNodes: n}, nil
			}
			out := &MinimizeAnswer{Count: -1, Max: tc.max}
			r, err := minimize(tc.max, out, run)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out.Count).To(Equal(tc.wantCount))
			g.Expect(r.minimizeNodes).To(Equal(tc.wantResult))
			g.Expect(len(out.Tried)).To(BeNumerically("<=", 2+bitsOf(tc.max)), "bisection, not a scan: %v", out.Tried)
			if tc.wantCount > 0 {
				g.Expect(ran).To(HaveKey(tc.wantCount))
				g.Expect(ran).To(HaveKey(tc.wantCount-1), "count-1 is run too")
			}
			for _, tr := range out.Tried {
				g.Expect(tr.Unplaced).To(Equal(max(0, tc.need-tr.Count)))
			}
		})
	}

	t.Run("a failed run is the answer's error", func(t *testing.T) {
		g := NewWithT(t)
		boom := errors.New("boom")
		_, err := minimize(8, &MinimizeAnswer{}, func(n int) (*scenarioRun, error) {
			if n == 8 {
				return nil, boom
			}
			return &scenarioRun{unplaced: 1}, nil
		})
		g.Expect(err).To(MatchError(boom))
	})
}

func bitsOf(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

func scenarioNode(name, pool string) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{v1.LabelHostname: name, "pool": pool}},
		Status: v1.NodeStatus{
			Capacity:    controlplane.Resources("4", "8Gi", "110"),
			Allocatable: controlplane.Resources("4", "8Gi", "110"),
		},
	}
}

func scenarioBoundPod(name, node string, mutate ...func(*v1.Pod)) *v1.Pod {
	p := testenv.BenchPod(name, "sched")
	p.Spec.NodeName = node
	for _, m := range mutate {
		m(p)
	}
	return p
}

// planScenario checks every field and count against the limits before it
// expands anything, and names the field at fault.
func TestPlanScenarioExpansionAndLimits(t *testing.T) {
	nodes := []*v1.Node{scenarioNode("a", "blue"), scenarioNode("b", "blue"), scenarioNode("c", "green")}
	daemon := func(p *v1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "ds", Controller: ptr.To(true)}}
	}
	mirror := func(p *v1.Pod) { p.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "x"} }
	pods := []*v1.Pod{
		scenarioBoundPod("web-1", "a"), scenarioBoundPod("web-2", "b"), scenarioBoundPod("web-3", "c"),
		scenarioBoundPod("ds-a", "a", daemon), scenarioBoundPod("static-b", "b", mirror),
	}
	template := scenarioNode("big", "")
	template.UID = ""
	noAllocatable := scenarioNode("empty", "")
	noAllocatable.Status.Allocatable = nil
	noPods := scenarioNode("nopods", "")
	delete(noPods.Status.Allocatable, v1.ResourcePods)
	podTemplate := testenv.BenchPod("extra", "sched")
	podTemplate.UID = "extra"
	blue := labels.SelectorFromSet(labels.Set{"pool": "blue"})

	for _, tc := range []struct {
		name      string
		sc        Scenario
		wantField string
		tooLarge  bool
		check     func(g Gomega, p *scenarioPlan)
	}{{
		name: "copies of a node and of a template, named apart, with hostnames of their own",
		sc:   Scenario{AddNodes: []NodeShape{{FromNode: "a", Count: 2}, {Template: template, Count: 1}}},
		check: func(g Gomega, p *scenarioPlan) {
			var names []string
			for _, n := range p.added {
				names = append(names, n.Name)
				g.Expect(n.Labels[v1.LabelHostname]).To(Equal(n.Name))
			}
			g.Expect(names).To(Equal([]string{"a-copy-1", "a-copy-2", "big-1"}))
			g.Expect(p.added[0].Labels["pool"]).To(Equal("blue"), "a copy has the node's labels")
			g.Expect(p.kept).To(HaveLen(3))
		},
	}, {
		name: "a drain by selector evicts the pods a drain moves, not DaemonSet or static ones",
		sc:   Scenario{RemoveSelector: blue},
		check: func(g Gomega, p *scenarioPlan) {
			g.Expect(p.removed.UnsortedList()).To(ConsistOf("a", "b"))
			g.Expect(p.notMoved).To(Equal(2))
			var evicted []string
			for _, qp := range p.queued {
				evicted = append(evicted, qp.Pod.Name)
				g.Expect(qp.Pod.Spec.NodeName).To(BeEmpty())
			}
			g.Expect(evicted).To(ConsistOf("web-1", "web-2"))
			// Cordoned, as kubectl drain leaves them, with the pods a drain
			// leaves.
			g.Expect(p.kept).To(HaveLen(3))
			for _, n := range p.kept {
				g.Expect(n.Spec.Unschedulable).To(Equal(n.Name != "c"), n.Name)
			}
			var left []string
			for _, pod := range p.keptPods {
				left = append(left, pod.Name)
			}
			g.Expect(left).To(ConsistOf("web-3", "ds-a", "static-b"))
			g.Expect(nodes[0].Spec.Unschedulable).To(BeFalse(), "the cluster's node is not changed")
		},
	}, {
		name: "removing every node is an answer, not an error",
		sc:   Scenario{RemoveSelector: labels.Everything()},
		check: func(g Gomega, p *scenarioPlan) {
			g.Expect(p.queued).To(HaveLen(3))
			for _, n := range p.kept {
				g.Expect(n.Spec.Unschedulable).To(BeTrue())
			}
		},
	}, {
		name: "replicas and pod groups",
		sc:   Scenario{Pods: []ScenarioPods{{Template: podTemplate, Replicas: 2}, {Template: podTemplate, Replicas: 3, MinCount: 2}}},
		check: func(g Gomega, p *scenarioPlan) {
			g.Expect(p.extra).To(HaveLen(2))
			g.Expect(p.extra[0][1].Pod.Name).To(Equal("extra-2"))
			g.Expect(p.extra[0][0].Pod.UID).NotTo(Equal(p.extra[0][1].Pod.UID))
			g.Expect(p.extra[1][2].Pod.Spec.SchedulingGroup.PodGroupName).To(Equal(ptr.To("extra")))
			g.Expect(p.groups).To(Equal(map[int]int{1: 2}))
		},
	},
		{name: "unknown fromNode", sc: Scenario{AddNodes: []NodeShape{{FromNode: "nope", Count: 1}}}, wantField: "addNodes[0].fromNode"},
		{name: "template without allocatable", sc: Scenario{AddNodes: []NodeShape{{Template: noAllocatable, Count: 1}}}, wantField: "addNodes[0].template.status.allocatable"},
		{name: "template without room for pods", sc: Scenario{AddNodes: []NodeShape{{FromNode: "a", Count: 1}, {Template: noPods, Count: 1}}}, wantField: "addNodes[1].template.status.allocatable.pods"},
		{name: "neither shape", sc: Scenario{AddNodes: []NodeShape{{Count: 1}}}, wantField: "addNodes[0]"},
		{name: "unknown node removed", sc: Scenario{RemoveNodes: []string{"a", "zz"}}, wantField: "removeNodes.names[1]"},
		{name: "nodes over the limit", sc: Scenario{AddNodes: []NodeShape{{FromNode: "a", Count: 5}, {FromNode: "a", Count: 3}}}, wantField: "addNodes[1].count", tooLarge: true},
		{name: "absurd count, refused before anything is made", sc: Scenario{AddNodes: []NodeShape{{FromNode: "a", Count: 1 << 40}}}, wantField: "addNodes[0].count", tooLarge: true},
		{name: "minimize max over the limit", sc: Scenario{Minimize: &Minimize{Shape: NodeShape{FromNode: "a"}, Max: 8}}, wantField: "minimize.max", tooLarge: true},
		{name: "minimize with an unknown node", sc: Scenario{Minimize: &Minimize{Shape: NodeShape{FromNode: "zz"}, Max: 1}}, wantField: "minimize.fromNode"},
		{name: "replicas over the limit", sc: Scenario{Pods: []ScenarioPods{{Template: podTemplate, Replicas: 1 << 40}}}, wantField: "pods[0].replicas", tooLarge: true},
		{name: "evicted and added pods over the limit", sc: Scenario{RemoveSelector: labels.Everything(), Pods: []ScenarioPods{{Template: podTemplate, Replicas: 3}}}, wantField: "pods[0].replicas", tooLarge: true},
		{name: "minCount above replicas", sc: Scenario{Pods: []ScenarioPods{{Template: podTemplate, Replicas: 2, MinCount: 3}}}, wantField: "pods[0].podGroupTemplate.minCount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			snapshot := internalcache.NewSnapshot(pods, nodes)
			rs := &Reviews{opts: options{scenarioLimits: ScenarioLimits{Nodes: 10, Pods: 5}}}
			rc := &cycle{reviewFramework: &reviewFramework{snapshot: snapshot}}
			base, err := snapshot.List()
			g.Expect(err).NotTo(HaveOccurred())
			p, err := rs.planScenario(rc, &tc.sc, base)
			if tc.wantField == "" {
				g.Expect(err).NotTo(HaveOccurred())
				tc.check(g, p)
				return
			}
			se, ok := IsScenarioError(err)
			g.Expect(ok).To(BeTrue(), "error %v", err)
			g.Expect(se.Field).To(Equal(tc.wantField), "error %v", err)
			g.Expect(se.TooLarge).To(Equal(tc.tooLarge))
		})
	}
}

// pools sums requests and allocatable per label value.
func TestPoolsSumByLabel(t *testing.T) {
	g := NewWithT(t)
	snapshot := internalcache.NewSnapshot(
		[]*v1.Pod{scenarioBoundPod("p1", "a"), scenarioBoundPod("p2", "a"), scenarioBoundPod("p3", "c")},
		[]*v1.Node{scenarioNode("a", "blue"), scenarioNode("b", "blue"), scenarioNode("c", "green")})
	all, err := snapshot.List()
	g.Expect(err).NotTo(HaveOccurred())
	got := pools(all, "pool")
	g.Expect(got).To(HaveLen(2))
	g.Expect(got["blue"].Nodes).To(Equal(2))
	g.Expect(got["blue"].MilliCPU).To(Equal(ResourceUsage{Requested: 200, Allocatable: 8000}))
	g.Expect(got["blue"].Pods).To(Equal(ResourceUsage{Requested: 2, Allocatable: 220}))
	g.Expect(got["green"].Memory.Requested).To(Equal(int64(500 << 20)))
	g.Expect(pools(all, "")).To(HaveKey(""))
}

// A scenario whose pods times nodes, the estimate of the memory it
// takes, is over the budget is refused before it runs, naming the field;
// minimize's max counts as nodes.
func TestScenarioNodePodsBudget(t *testing.T) {
	nodes := []*v1.Node{scenarioNode("a", "blue"), scenarioNode("b", "blue"), scenarioNode("c", "green")}
	podTemplate := testenv.BenchPod("extra", "sched")
	podTemplate.UID = "extra"
	for _, tc := range []struct {
		name     string
		sc       Scenario
		tooLarge bool
	}{
		{name: "4 pods on 5 nodes, under 20", sc: Scenario{AddNodes: []NodeShape{{FromNode: "a", Count: 2}}, Pods: []ScenarioPods{{Template: podTemplate, Replicas: 4}}}},
		{name: "5 pods on 5 nodes, over 20", sc: Scenario{AddNodes: []NodeShape{{FromNode: "a", Count: 2}}, Pods: []ScenarioPods{{Template: podTemplate, Replicas: 5}}}, tooLarge: true},
		{name: "4 pods on 3 nodes and up to 3 more", sc: Scenario{Minimize: &Minimize{Shape: NodeShape{FromNode: "a"}, Max: 3}, Pods: []ScenarioPods{{Template: podTemplate, Replicas: 4}}}, tooLarge: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			snapshot := internalcache.NewSnapshot(nil, nodes)
			limits := ScenarioLimits{Nodes: 10, Pods: 10, NodePods: 20}
			rs := &Reviews{opts: options{scenarioLimits: limits}}
			rc := &cycle{reviewFramework: &reviewFramework{snapshot: snapshot}}
			base, err := snapshot.List()
			g.Expect(err).NotTo(HaveOccurred())
			p, err := rs.planScenario(rc, &tc.sc, base)
			g.Expect(err).NotTo(HaveOccurred())
			err = p.checkPods(limits, &tc.sc)
			if !tc.tooLarge {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			se, ok := IsScenarioError(err)
			g.Expect(ok).To(BeTrue(), "error %v", err)
			g.Expect(se.TooLarge).To(BeTrue())
			g.Expect(se.Field).To(Equal("pods"))
			g.Expect(se.Error()).To(ContainSubstring("over the operator's memory budget of 20 (--scenario-max-node-pods)"))
		})
	}
}
