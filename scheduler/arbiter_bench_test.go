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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// BenchmarkArbiterDecide is one bind arbiter decision that admits: a
// pending pod to a node of the benchmark's cluster holding 4 pods, one
// other bind held on it (the hold of each admission is released after
// it, so that every iteration judges the same node).
//
//	go test ./scheduler/ -run '^$' -bench ArbiterDecide -benchmem -cpu 2
func BenchmarkArbiterDecide(b *testing.B) {
	s, _, pod := benchCluster(b, 500, 2000)
	ctx := context.Background()
	if _, err := s.Client().CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	a, err := s.NewArbiter(func() bool { return true })
	if err != nil {
		b.Fatal(err)
	}
	s.HoldBind(testenv.BenchPod("held", "bench"), "node-0")
	// Judged from the informer's copy of the pod, as in steady state.
	deadline := time.Now().Add(time.Minute)
	for !s.InformerHas(pod.Namespace, pod.Name) {
		if time.Now().After(deadline) {
			b.Fatal("the informer never had the pod")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.ReportAllocs()
	for b.Loop() {
		d := a.Decide(ctx, pod.Namespace, pod.Name, pod.UID, "node-0", false)
		if !d.Allowed || d.Outcome != scheduler.ArbiterAdmitted {
			b.Fatalf("%s: %s", d.Outcome, d.Message)
		}
		s.ReleaseBind(pod.UID)
	}
}
