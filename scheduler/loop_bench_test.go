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
	"runtime"
	"testing"
	"time"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// BenchmarkProfileLoops reports what loops of their own cost, on a cluster
// of 5000 nodes with 5 pods each: the goroutines and heap of 100 more
// profiles whose loops never ran a cycle (idle), and the heap each of 10
// of them adds once it has run one (its snapshot: a copy of every node).
//
// With loops off, the same profiles share one loop and one snapshot.
//
//	go test ./scheduler/ -run '^$' -bench ProfileLoops -benchtime 1x
func BenchmarkProfileLoops(b *testing.B) {
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("loops=%v", on), func(b *testing.B) { benchProfileLoops(b, on) })
	}
}

func benchProfileLoops(b *testing.B, loops bool) {
	const nodes, idle, active = 5000, 100, 10
	s, _, pod := benchCluster(b, nodes, 5*nodes, scheduler.WithProfileLoops(loops))
	ctx := context.Background()
	for b.Loop() {
		goroutines, heap := settle()
		for i := range idle {
			prof, err := scheduler.DefaultProfile(fmt.Sprintf("idle-%d", i))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Apply(ctx, scheduler.Profile{Config: prof}); err != nil {
				b.Fatal(err)
			}
		}
		goroutinesIdle, heapIdle := settle()
		for i := range active {
			p := pod.DeepCopy()
			p.Spec.SchedulerName = fmt.Sprintf("idle-%d", i)
			decide, release, err := s.CycleDecision(p)
			if err != nil {
				b.Fatal(err)
			}
			if err := decide(ctx); err != nil {
				b.Fatal(err)
			}
			release()
		}
		_, heapActive := settle()
		b.ReportMetric(float64(goroutinesIdle-goroutines)/idle, "goroutines/profile")
		b.ReportMetric(float64(heapIdle-heap)/idle/1024, "KiB/idle-profile")
		b.ReportMetric(float64(heapActive-heapIdle)/active/1024/1024, "MiB/loop-snapshot")
		for i := range idle {
			s.Remove(ctx, fmt.Sprintf("idle-%d", i))
		}
	}
}

// settle collects garbage, lets goroutines that are ending end, and
// returns the goroutines and the heap in use.
func settle() (int, uint64) {
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return runtime.NumGoroutine(), m.HeapAlloc
}
