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
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// BenchmarkSchedulePods is the path of a plain pod of one profile through
// the whole scheduler, as the bench's basic case takes it: the pod's add
// through the informer handlers, the queue, the profile's loop, the
// scheduling cycle on 500 nodes with 200 pods bound (upstream's default
// plugins), the binding cycle, and the bound pod's update back through
// the handlers. The fake clientset's binding sets the pod's node, as
// kube-apiserver does. Per pod: the time, allocations, bytes and the
// process's CPU time (cpu-ns/pod), with the profile's own loop and with
// one loop of every profile.
//
//	go test ./scheduler/ -run '^$' -bench SchedulePods -benchmem -benchtime 2000x -count 3
func BenchmarkSchedulePods(b *testing.B) {
	for _, loops := range []bool{true, false} {
		b.Run(fmt.Sprintf("loops=%v", loops), func(b *testing.B) { benchSchedulePods(b, loops) })
	}
}

func benchSchedulePods(b *testing.B, loops bool) {
	cpu0 := int64(0)
	schedulePods(b, loops, b.N, func() {
		cpu0 = processCPU()
		b.ResetTimer()
	})
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/pod")
}

// schedulePods starts a scheduler serving "bench" on 500 nodes with 200
// pods bound, then calls start and creates n pods of "bench", and returns
// when all are bound.
func schedulePods(tb testing.TB, loops bool, n int, start func()) {
	const nodes, bound, inFlight = 500, 200, 40
	// The tracker without field management: NewClientset's builds a REST
	// mapper at every create, which would cost more than the scheduler.
	cs := fake.NewSimpleClientset()
	var binds atomic.Int64
	cs.PrependReactor("create", "pods", bindReactor(cs, &binds))
	benchClusterOn(tb, cs, nodes, bound, scheduler.WithProfileLoops(loops))
	ctx := context.Background()
	pods := make([]*v1.Pod, n)
	for i := range pods {
		pods[i] = testenv.BenchPod(fmt.Sprintf("measured-%d", i), "bench")
	}
	deadline := time.Now().Add(5 * time.Minute)
	waitBound := func(n int) {
		for binds.Load() < int64(n) {
			if time.Now().After(deadline) {
				tb.Fatalf("%d of %d pods bound", binds.Load(), n)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	start()
	for i := range pods {
		// The fake clientset's watch holds 100 events and panics past
		// them: a pod in flight makes two (added, bound).
		waitBound(i - inFlight)
		if _, err := cs.CoreV1().Pods("bench").Create(ctx, pods[i], metav1.CreateOptions{}); err != nil {
			tb.Fatal(err)
		}
	}
	waitBound(n)
}

// bindReactor makes the fake clientset's pods/binding set the pod's node,
// as kube-apiserver's does, and counts the binds.
func bindReactor(cs *fake.Clientset, binds *atomic.Int64) clienttesting.ReactionFunc {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	return func(action clienttesting.Action) (bool, runtime.Object, error) {
		create, ok := action.(clienttesting.CreateAction)
		if !ok || action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		binding := create.GetObject().(*v1.Binding)
		obj, err := cs.Tracker().Get(pods, binding.Namespace, binding.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = binding.Target.Name
		if err := cs.Tracker().Update(pods, pod, pod.Namespace); err != nil {
			return true, nil, err
		}
		binds.Add(1)
		return true, binding, nil
	}
}

// processCPU is the process's user and system CPU time so far, in
// nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
