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

package scheduler_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// The benchmarks of this file measure what a review costs, and what
// reviews beside a scheduling cycle cost it, without an API server: a
// scheduler on a fake clientset with the benchmark's cluster (test/perf's
// basic case: nodes of 4 CPU / 32Gi / 110 pods in three zones, pods of
// 100m / 500Mi), the live profile upstream's default.
//
//	go test ./scheduler/ -run '^$' -bench Review -benchmem -cpu 2

// benchCluster is a started scheduler, and its reviews, serving "bench"
// on nodes nodes with pods bound pods, spread round robin.
func benchCluster(b *testing.B, nodes, pods int, opts ...scheduler.Option) (*scheduler.Scheduler, *review.Reviews, *v1.Pod) {
	b.Helper()
	return benchClusterOn(b, fake.NewClientset(), nodes, pods, opts...)
}

// benchClusterOn is benchCluster on the clientset cs.
func benchClusterOn(b testing.TB, cs *fake.Clientset, nodes, pods int, opts ...scheduler.Option) (*scheduler.Scheduler, *review.Reviews, *v1.Pod) {
	b.Helper()
	const name = "bench"
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	for i := range nodes {
		n := &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i), Labels: map[string]string{
				v1.LabelHostname:       fmt.Sprintf("node-%d", i),
				v1.LabelOSStable:       "linux",
				v1.LabelTopologyZone:   fmt.Sprintf("zone-%d", i%3),
				v1.LabelTopologyRegion: "region-1",
			}},
			Status: v1.NodeStatus{
				Capacity:    controlplane.Resources("4", "32Gi", "110"),
				Allocatable: controlplane.Resources("4", "32Gi", "110"),
				Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
				Phase:       v1.NodeRunning,
			},
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range pods {
		p := testenv.BenchPod(fmt.Sprintf("init-%d", i), name)
		p.Spec.NodeName = fmt.Sprintf("node-%d", i%nodes)
		if _, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	s, err := scheduler.New(cs, informers.NewSharedInformerFactory(cs, 0), opts...)
	if err != nil {
		b.Fatal(err)
	}
	prof, err := scheduler.DefaultProfile(name)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Apply(ctx, scheduler.Profile{Config: prof}); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.Start(ctx); err != nil {
			b.Error(err)
		}
	}()
	b.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(time.Minute)
	for !s.HasSynced() || s.Cache().NodeCount() < nodes || benchPodCount(s) < pods {
		if time.Now().After(deadline) {
			b.Fatalf("cache has %d of %d nodes, %d of %d pods", s.Cache().NodeCount(), nodes, benchPodCount(s), pods)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s, review.New(s.ReviewHost()), testenv.BenchPod("measured", name)
}

func benchPodCount(s *scheduler.Scheduler) int {
	n, err := s.Cache().PodCount()
	if err != nil {
		return 0
	}
	return n
}

// BenchmarkReview is one review of a pod that fits everywhere, as the
// explain benchmark's reviews are, listing the scores of 10 nodes (the
// operator's default spec.maxNodes).
func BenchmarkReview(b *testing.B) {
	for _, nodes := range []int{500, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			_, reviews, pod := benchCluster(b, nodes, 200)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				r, err := reviews.Review(ctx, review.Request{Pod: pod, ScoredNodes: 10})
				if err != nil {
					b.Fatal(err)
				}
				if r.Pod.SelectedNode == "" {
					b.Fatal(r.Pod.Message)
				}
			}
		})
	}
}

// BenchmarkCycleBesideReviews times the decision part of a scheduling
// cycle (schedulingCycle up to assume: the snapshot update, then
// schedulingAlgorithm's PreFilter, sampled Filter, Score and host
// selection) on 500 and 5000 nodes, with no review, with 10 reviews per
// second and with reviews back to back beside it. Run it with -cpu 2 to see
// what reviews take from a cycle on a 2-core machine.
func BenchmarkCycleBesideReviews(b *testing.B) {
	for _, c := range []struct{ nodes, rate int }{{500, 0}, {500, 10}, {500, -1}, {5000, 0}, {5000, 10}, {5000, -1}} {
		label := fmt.Sprintf("nodes=%d/reviews=%d/s", c.nodes, c.rate)
		if c.rate < 0 {
			label = fmt.Sprintf("nodes=%d/reviews=back-to-back", c.nodes)
		}
		rate := c.rate
		b.Run(label, func(b *testing.B) {
			s, rs, pod := benchCluster(b, c.nodes, 200)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			reviews := 0
			if rate != 0 {
				wg.Go(func() {
					var tick <-chan time.Time
					if rate > 0 {
						t := time.NewTicker(time.Second / time.Duration(rate))
						defer t.Stop()
						tick = t.C
					}
					for ctx.Err() == nil {
						if tick != nil {
							select {
							case <-tick:
							case <-ctx.Done():
								return
							}
						}
						if _, err := rs.Review(ctx, review.Request{Pod: pod, ScoredNodes: 10}); err != nil && ctx.Err() == nil {
							b.Error(err)
							return
						}
						reviews++
					}
				})
			}
			decide, release, err := s.CycleDecision(pod)
			if err != nil {
				b.Fatal(err)
			}
			defer release()
			// The live snapshot is the scheduling loop's; its queue is
			// empty (every pod is bound), so the loop waits and this one
			// stands in for it.
			start := time.Now()
			for b.Loop() {
				if err := decide(ctx); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			cancel()
			wg.Wait()
			b.ReportMetric(float64(reviews)/elapsed.Seconds(), "reviews/s")
		})
	}
}

// BenchmarkScenarioDrain is a review draining 10% of 5000 nodes (every
// tenth node, 500 pods on them placed again on the others), reported by
// zone.
//
//	go test ./scheduler/ -run '^$' -bench Scenario -benchtime 3x -cpu 2
func BenchmarkScenarioDrain(b *testing.B) {
	const nodes = 5000
	_, reviews, _ := benchCluster(b, nodes, nodes)
	var drained []string
	for i := 0; i < nodes; i += 10 {
		drained = append(drained, fmt.Sprintf("node-%d", i))
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := reviews.Review(ctx, review.Request{SchedulerName: "bench", Scenario: &review.Scenario{RemoveNodes: drained, ReportBy: v1.LabelTopologyZone}})
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Scenario.Pods) != len(drained) || r.Scenario.Unplaced() != 0 {
			b.Fatalf("%d pods evicted, %d unplaced", len(r.Scenario.Pods), r.Scenario.Unplaced())
		}
	}
}

// BenchmarkScenarioMinimize is a review searching for the smallest count
// of 4-CPU nodes of a new pool, up to 100, that places 50 pods of 1 CPU
// bound to that pool, on 5000 nodes: 13, found in 9 runs.
func BenchmarkScenarioMinimize(b *testing.B) {
	const nodes = 5000
	_, reviews, _ := benchCluster(b, nodes, 1000)
	shape := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "new", Labels: map[string]string{"pool": "new", v1.LabelOSStable: "linux"}},
		Status: v1.NodeStatus{
			Capacity:    controlplane.Resources("4", "32Gi", "110"),
			Allocatable: controlplane.Resources("4", "32Gi", "110"),
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
	pod := testenv.BenchPod("job", "bench")
	pod.Spec.NodeSelector = map[string]string{"pool": "new"}
	pod.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("1")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := reviews.Review(ctx, review.Request{SchedulerName: "bench", Scenario: &review.Scenario{
			Pods:     []review.ScenarioPods{{Template: pod, Replicas: 50}},
			Minimize: &review.Minimize{Shape: review.NodeShape{Template: shape}, Max: 100},
		}})
		if err != nil {
			b.Fatal(err)
		}
		if m := r.Scenario.Minimize; m.Count != 13 {
			b.Fatalf("count %d, tried %v", m.Count, m.Tried)
		}
		b.ReportMetric(float64(len(r.Scenario.Minimize.Tried)), "runs/op")
	}
}
