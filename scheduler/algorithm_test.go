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

// Table tests for the parts of the scheduling cycle ported from upstream
// pkg/scheduler/schedule_one.go, with upstream's cases
// (schedule_one_test.go: TestNumFeasibleNodesToFind,
// TestFindNodesThatPassExtenders, Test_prioritizeNodes).

import (
	"context"
	"fmt"
	"sort"
	"testing"

	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
	schedutil "k8s.io/kubernetes/pkg/scheduler/util"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		name              string
		globalPercentage  int32
		profilePercentage *int32
		numAllNodes       int32
		wantNumNodes      int32
	}{
		{
			name:         "not set percentageOfNodesToScore and nodes number not more than 50",
			numAllNodes:  10,
			wantNumNodes: 10,
		},
		{
			name:              "set profile percentageOfNodesToScore and nodes number not more than 50",
			profilePercentage: ptr.To[int32](40),
			numAllNodes:       10,
			wantNumNodes:      10,
		},
		{
			name:         "not set percentageOfNodesToScore and nodes number more than 50",
			numAllNodes:  1000,
			wantNumNodes: 420,
		},
		{
			name:              "set profile percentageOfNodesToScore and nodes number more than 50",
			profilePercentage: ptr.To[int32](40),
			numAllNodes:       1000,
			wantNumNodes:      400,
		},
		{
			name:              "set global and profile percentageOfNodesToScore and nodes number more than 50",
			globalPercentage:  100,
			profilePercentage: ptr.To[int32](40),
			numAllNodes:       1000,
			wantNumNodes:      400,
		},
		{
			name:             "set global percentageOfNodesToScore and nodes number more than 50",
			globalPercentage: 40,
			numAllNodes:      1000,
			wantNumNodes:     400,
		},
		{
			name:         "not set profile percentageOfNodesToScore and nodes number more than 50*125",
			numAllNodes:  6000,
			wantNumNodes: 300,
		},
		{
			name:              "set profile percentageOfNodesToScore and nodes number more than 50*125",
			profilePercentage: ptr.To[int32](40),
			numAllNodes:       6000,
			wantNumNodes:      2400,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &algorithm{percentageOfNodesToScore: tt.globalPercentage}
			if got := a.numFeasibleNodesToFind(tt.profilePercentage, tt.numAllNodes); got != tt.wantNumNodes {
				t.Errorf("numFeasibleNodesToFind() = %v, want %v", got, tt.wantNumNodes)
			}
		})
	}
}

func makeNodeList(names ...string) []*v1.Node {
	out := make([]*v1.Node, 0, len(names))
	for _, n := range names {
		out = append(out, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	return out
}

// statuses flattens a NodeToStatus into what a user sees of it: per node
// and for absent nodes, the code and the reasons.
func statuses(m *framework.NodeToStatus) map[string]string {
	out := map[string]string{}
	m.ForEachExplicitNode(func(node string, s *fwk.Status) {
		out[node] = fmt.Sprintf("%v: %v", s.Code(), s.Reasons())
	})
	if a := m.AbsentNodesStatus(); a != nil {
		out["<absent>"] = fmt.Sprintf("%v: %v", a.Code(), a.Reasons())
	}
	return out
}

func TestFindNodesThatPassExtenders(t *testing.T) {
	absentStatus := fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [PreFilter]")
	allowOnlyA := func(pod *v1.Pod, node fwk.NodeInfo) *fwk.Status {
		if node.Node().Name == "a" {
			return fwk.NewStatus(fwk.Success)
		}
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("node %q is not allowed", node.Node().Name))
	}
	aFitsBMayCNever := func(pod *v1.Pod, node fwk.NodeInfo) *fwk.Status {
		if node.Node().Name == "a" {
			return fwk.NewStatus(fwk.Success)
		}
		if node.Node().Name == "b" {
			return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("node %q is not allowed", node.Node().Name))
		}
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node %q is not allowed", node.Node().Name))
	}

	tests := []struct {
		name                  string
		extenders             []tf.FakeExtender
		nodes                 []*v1.Node
		filteredNodesStatuses *framework.NodeToStatus
		expectsErr            bool
		expectedNodes         []*v1.Node
		expectedStatuses      *framework.NodeToStatus
	}{
		{
			name: "error",
			extenders: []tf.FakeExtender{{
				ExtenderName: "FakeExtender1",
				Predicates:   []tf.FitPredicate{tf.ErrorPredicateExtender},
			}},
			nodes:                 makeNodeList("a"),
			filteredNodesStatuses: framework.NewNodeToStatus(make(map[string]*fwk.Status), absentStatus),
			expectsErr:            true,
		},
		{
			name: "success",
			extenders: []tf.FakeExtender{{
				ExtenderName: "FakeExtender1",
				Predicates:   []tf.FitPredicate{tf.TruePredicateExtender},
			}},
			nodes:                 makeNodeList("a"),
			filteredNodesStatuses: framework.NewNodeToStatus(make(map[string]*fwk.Status), absentStatus),
			expectedNodes:         makeNodeList("a"),
			expectedStatuses:      framework.NewNodeToStatus(make(map[string]*fwk.Status), absentStatus),
		},
		{
			name: "unschedulable",
			extenders: []tf.FakeExtender{{
				ExtenderName: "FakeExtender1",
				Predicates:   []tf.FitPredicate{allowOnlyA},
			}},
			nodes:                 makeNodeList("a", "b"),
			filteredNodesStatuses: framework.NewNodeToStatus(make(map[string]*fwk.Status), absentStatus),
			expectedNodes:         makeNodeList("a"),
			expectedStatuses: framework.NewNodeToStatus(map[string]*fwk.Status{
				"b": fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("FakeExtender: node %q failed", "b")),
			}, absentStatus),
		},
		{
			name: "unschedulable and unresolvable",
			extenders: []tf.FakeExtender{{
				ExtenderName: "FakeExtender1",
				Predicates:   []tf.FitPredicate{aFitsBMayCNever},
			}},
			nodes:                 makeNodeList("a", "b", "c"),
			filteredNodesStatuses: framework.NewNodeToStatus(make(map[string]*fwk.Status), absentStatus),
			expectedNodes:         makeNodeList("a"),
			expectedStatuses: framework.NewNodeToStatus(map[string]*fwk.Status{
				"b": fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("FakeExtender: node %q failed", "b")),
				"c": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("FakeExtender: node %q failed and unresolvable", "c")),
			}, absentStatus),
		},
		{
			name: "extender does not overwrite the previous statuses",
			extenders: []tf.FakeExtender{{
				ExtenderName: "FakeExtender1",
				Predicates:   []tf.FitPredicate{aFitsBMayCNever},
			}},
			nodes: makeNodeList("a", "b"),
			filteredNodesStatuses: framework.NewNodeToStatus(map[string]*fwk.Status{
				"c": fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("FakeFilterPlugin: node %q failed", "c")),
			}, absentStatus),
			expectedNodes: makeNodeList("a"),
			expectedStatuses: framework.NewNodeToStatus(map[string]*fwk.Status{
				"b": fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("FakeExtender: node %q failed", "b")),
				"c": fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("FakeFilterPlugin: node %q failed", "c")),
			}, absentStatus),
		},
		{
			name: "multiple extenders",
			extenders: []tf.FakeExtender{
				{ExtenderName: "FakeExtender1", Predicates: []tf.FitPredicate{aFitsBMayCNever}},
				{ExtenderName: "FakeExtender1", Predicates: []tf.FitPredicate{allowOnlyA}},
			},
			nodes:                 makeNodeList("a", "b", "c"),
			filteredNodesStatuses: framework.NewNodeToStatus(make(map[string]*fwk.Status), absentStatus),
			expectedNodes:         makeNodeList("a"),
			expectedStatuses: framework.NewNodeToStatus(map[string]*fwk.Status{
				"b": fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("FakeExtender: node %q failed", "b")),
				"c": fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("FakeExtender: node %q failed and unresolvable", "c")),
			}, absentStatus),
		},
		// Beyond upstream's table: the ignorable and uninterested branches
		// of the same function.
		{
			name: "an ignorable extender that fails is skipped",
			extenders: []tf.FakeExtender{
				{ExtenderName: "Ignorable", Ignorable: true, Predicates: []tf.FitPredicate{tf.ErrorPredicateExtender}},
				{ExtenderName: "FakeExtender1", Predicates: []tf.FitPredicate{allowOnlyA}},
			},
			nodes:                 makeNodeList("a", "b"),
			filteredNodesStatuses: framework.NewNodeToStatus(make(map[string]*fwk.Status), absentStatus),
			expectedNodes:         makeNodeList("a"),
			expectedStatuses: framework.NewNodeToStatus(map[string]*fwk.Status{
				"b": fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("FakeExtender: node %q failed", "b")),
			}, absentStatus),
		},
		{
			name: "an extender not interested in the pod is not called",
			extenders: []tf.FakeExtender{
				{ExtenderName: "Uninterested", UnInterested: true, Predicates: []tf.FitPredicate{tf.ErrorPredicateExtender}},
			},
			nodes:                 makeNodeList("a", "b"),
			filteredNodesStatuses: framework.NewNodeToStatus(make(map[string]*fwk.Status), absentStatus),
			expectedNodes:         makeNodeList("a", "b"),
			expectedStatuses:      framework.NewNodeToStatus(make(map[string]*fwk.Status), absentStatus),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			_, ctx := ktesting.NewTestContext(t)
			var extenders []fwk.Extender
			for i := range tt.extenders {
				extenders = append(extenders, &tt.extenders[i])
			}
			pod := st.MakePod().Name("1").UID("1").Obj()
			got, err := findNodesThatPassExtenders(ctx, extenders, pod, tf.BuildNodeInfos(tt.nodes), tt.filteredNodesStatuses)
			if tt.expectsErr {
				g.Expect(err).To(HaveOccurred())
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			nodes := make([]*v1.Node, len(got))
			for i := range got {
				nodes[i] = got[i].Node()
			}
			g.Expect(nodes).To(Equal(tt.expectedNodes))
			g.Expect(statuses(tt.filteredNodesStatuses)).To(Equal(statuses(tt.expectedStatuses)))
		})
	}
}

func makeNode(name string, milliCPU, memory int64) *v1.Node {
	res := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(memory, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(100, resource.DecimalSI),
	}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Capacity: res, Allocatable: res}}
}

func TestPrioritizeNodes(t *testing.T) {
	// The cache the cases run on reports metrics: registered here, not by
	// whichever test happened to run first.
	metrics.Register()
	nodes := []*v1.Node{makeNode("node1", 1000, schedutil.DefaultMemoryRequest*10), makeNode("node2", 1000, schedutil.DefaultMemoryRequest*10)}
	balanced := tf.RegisterScorePlugin(noderesources.BalancedAllocationName, frameworkruntime.FactoryAdapter(feature.Features{}, noderesources.NewBalancedAllocation), 1)
	skipsInPreScore := tf.RegisterPluginAsExtensions("FakePreScoreAndScorePlugin", tf.NewFakePreScoreAndScorePlugin("FakePreScoreAndScorePlugin", 0,
		fwk.NewStatus(fwk.Skip, "fake skip"),
		fwk.NewStatus(fwk.Error, "this score function shouldn't be executed because this plugin returned Skip in the PreScore"),
	), "PreScore", "Score")
	score := func(name string, s int64) fwk.PluginScore { return fwk.PluginScore{Name: name, Score: s} }

	tests := []struct {
		name                string
		pluginRegistrations []tf.RegisterPluginFunc
		extenders           []tf.FakeExtender
		want                []fwk.NodePluginScores
	}{
		{
			name:                "the score from all plugins should be recorded in PluginToNodeScores",
			pluginRegistrations: []tf.RegisterPluginFunc{balanced, tf.RegisterScorePlugin("Node2Prioritizer", tf.NewNode2PrioritizerPlugin(), 1)},
			want: []fwk.NodePluginScores{
				{
					Name:       "node1",
					RawScores:  []fwk.PluginScore{score("NodeResourcesBalancedAllocation", 0), score("Node2Prioritizer", 10)},
					Scores:     []fwk.PluginScore{score("Node2Prioritizer", 10), score("NodeResourcesBalancedAllocation", 0)},
					TotalScore: 10,
				},
				{
					Name:       "node2",
					RawScores:  []fwk.PluginScore{score("NodeResourcesBalancedAllocation", 0), score("Node2Prioritizer", 100)},
					Scores:     []fwk.PluginScore{score("Node2Prioritizer", 100), score("NodeResourcesBalancedAllocation", 0)},
					TotalScore: 100,
				},
			},
		},
		{
			name:                "the score from extender should also be recorded in PluginToNodeScores with plugin scores",
			pluginRegistrations: []tf.RegisterPluginFunc{balanced},
			extenders: []tf.FakeExtender{
				{ExtenderName: "FakeExtender1", Weight: 1, Prioritizers: []tf.PriorityConfig{{Weight: 3, Function: tf.Node1PrioritizerExtender}}},
				{ExtenderName: "FakeExtender2", Weight: 1, Prioritizers: []tf.PriorityConfig{{Weight: 2, Function: tf.Node2PrioritizerExtender}}},
			},
			want: []fwk.NodePluginScores{
				{
					Name:       "node1",
					RawScores:  []fwk.PluginScore{score("NodeResourcesBalancedAllocation", 0)},
					Scores:     []fwk.PluginScore{score("FakeExtender1", 300), score("FakeExtender2", 20), score("NodeResourcesBalancedAllocation", 0)},
					TotalScore: 320,
				},
				{
					Name:       "node2",
					RawScores:  []fwk.PluginScore{score("NodeResourcesBalancedAllocation", 0)},
					Scores:     []fwk.PluginScore{score("FakeExtender1", 30), score("FakeExtender2", 200), score("NodeResourcesBalancedAllocation", 0)},
					TotalScore: 230,
				},
			},
		},
		{
			name:                "plugin which returned skip in preScore shouldn't be executed in the score phase",
			pluginRegistrations: []tf.RegisterPluginFunc{balanced, tf.RegisterScorePlugin("Node2Prioritizer", tf.NewNode2PrioritizerPlugin(), 1), skipsInPreScore},
			want: []fwk.NodePluginScores{
				{
					Name:       "node1",
					RawScores:  []fwk.PluginScore{score("NodeResourcesBalancedAllocation", 0), score("Node2Prioritizer", 10)},
					Scores:     []fwk.PluginScore{score("Node2Prioritizer", 10), score("NodeResourcesBalancedAllocation", 0)},
					TotalScore: 10,
				},
				{
					Name:       "node2",
					RawScores:  []fwk.PluginScore{score("NodeResourcesBalancedAllocation", 0), score("Node2Prioritizer", 100)},
					Scores:     []fwk.PluginScore{score("Node2Prioritizer", 100), score("NodeResourcesBalancedAllocation", 0)},
					TotalScore: 100,
				},
			},
		},
		{
			name:                "all score plugins are skipped",
			pluginRegistrations: []tf.RegisterPluginFunc{skipsInPreScore},
			want: []fwk.NodePluginScores{
				{Name: "node1", RawScores: []fwk.PluginScore{}, Scores: []fwk.PluginScore{}},
				{Name: "node2", RawScores: []fwk.PluginScore{}, Scores: []fwk.PluginScore{}},
			},
		},
		// Beyond upstream's table: with neither score plugins nor
		// extenders every node scores 1, as upstream's prioritizeNodes.
		{
			name: "no score plugin and no extender",
			want: []fwk.NodePluginScores{{Name: "node1", TotalScore: 1}, {Name: "node2", TotalScore: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			client := fake.NewClientset()
			informerFactory := informers.NewSharedInformerFactory(client, 0)
			_, ctx := ktesting.NewTestContext(t)
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			cache := internalcache.New(ctx, nil, false, false)
			for _, n := range nodes {
				cache.AddNode(klog.FromContext(ctx), n)
			}
			snapshot := internalcache.NewEmptySnapshot()
			g.Expect(cache.UpdateSnapshot(klog.FromContext(ctx), snapshot)).To(Succeed())
			var extenders []fwk.Extender
			for i := range tt.extenders {
				extenders = append(extenders, &tt.extenders[i])
			}
			registrations := append([]tf.RegisterPluginFunc{
				tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
				tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
			}, tt.pluginRegistrations...)
			fw, err := tf.NewFramework(ctx, registrations, "",
				frameworkruntime.WithInformerFactory(informerFactory),
				frameworkruntime.WithSnapshotSharedLister(snapshot),
				frameworkruntime.WithClientSet(client),
				frameworkruntime.WithExtenders(extenders),
				frameworkruntime.WithPodNominator(queue.New()),
			)
			g.Expect(err).NotTo(HaveOccurred())
			nodeInfos, err := snapshot.NodeInfos().List()
			g.Expect(err).NotTo(HaveOccurred())

			got, err := prioritizeNodes(ctx, fw, framework.NewCycleState(), &v1.Pod{}, nodeInfos)
			g.Expect(err).NotTo(HaveOccurred())
			for i := range got {
				got[i].Randomizer = 0
				sort.Slice(got[i].Scores, func(j, k int) bool { return got[i].Scores[j].Name < got[i].Scores[k].Name })
			}
			g.Expect(got).To(Equal(tt.want))
		})
	}
}
