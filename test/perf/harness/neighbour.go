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
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Neighbour is a kube-scheduler beside the scheduler under test, serving
// default-scheduler and binding small pods of its own onto the same nodes
// at Rate per second, from before the measured step to its end: most
// clusters have one binding now and then (DaemonSets, system pods), which
// keeps profile-scheduler's bind check reading each node's pods from
// kube-apiserver before every bind.
type Neighbour struct {
	// Scheduler is the neighbour kube-scheduler.
	Scheduler Scheduler
	// Rate is the neighbour's pods created per second.
	Rate float64
	// Arbiter, when set, is the bind arbiter judging every bind of the
	// run, the neighbour's too.
	Arbiter *BindArbiter
}

// NeighbourRun is what a run beside a Neighbour saw.
type NeighbourRun struct {
	Rate    float64 `json:"rate"`
	Arbiter bool    `json:"arbiter"`
	// Bound counts the neighbour's pods bound by the end of the run.
	Bound int `json:"bound"`
	// NodePodLists counts the LISTs of pods across namespaces that
	// kube-apiserver served during the measured step: the bind check's
	// reads of a node's pods.
	NodePodLists float64 `json:"nodePodLists"`
	Error        string  `json:"error,omitempty"`
}

// neighbourPod is the neighbour's pod: small, so that it takes little
// room from the pods measured.
func neighbourPod(ns string, i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("neighbour-%d", i)},
		Spec: corev1.PodSpec{
			SchedulerName:                 DefaultScheduler,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
			}}},
		},
	}
}

// startNeighbour starts r.Neighbour beside a run of c in e: a namespace of
// its own, its kube-scheduler, the arbiter when set, and a pod every
// 1/Rate seconds; it waits until the neighbour bound its first pod.
// stop ends the pods and the processes and counts the neighbour's pods
// bound.
func (r *Runner) startNeighbour(ctx context.Context, c *workloads.Case, e *env) (stop func(), err error) {
	nb := r.Neighbour
	e.neighbour = &NeighbourRun{Rate: nb.Rate, Arbiter: nb.Arbiter != nil}
	var undo cleanups
	stop = undo.run
	ns := e.ns + "-neighbour"
	if err := r.CP.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return stop, fmt.Errorf("creating the neighbour's namespace: %w", err)
	}
	prof, err := workloads.SchedulerProfile(c.Profile, DefaultScheduler)
	if err != nil {
		return stop, err
	}
	if err := nb.Scheduler.Start(ctx, prof); err != nil {
		return stop, fmt.Errorf("starting the neighbour: %w", err)
	}
	undo.add(func() { nb.Scheduler.Stop(context.Background()) })
	if nb.Arbiter != nil {
		stopArbiter, err := r.startArbiter(ctx, c, e, nb.Arbiter, ns)
		undo.add(stopArbiter)
		if err != nil {
			return stop, err
		}
	}
	loopCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Duration(float64(time.Second) / nb.Rate))
		defer tick.Stop()
		for i := 0; ; i++ {
			if _, err := r.CP.Core.CoreV1().Pods(ns).Create(loopCtx, neighbourPod(ns, i), metav1.CreateOptions{}); err != nil && loopCtx.Err() == nil {
				r.logf("neighbour: %v", err)
			}
			select {
			case <-loopCtx.Done():
				return
			case <-tick.C:
			}
		}
	})
	undo.add(func() {
		cancel()
		wg.Wait()
		list, err := r.CP.Core.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			e.neighbour.Error = err.Error()
			return
		}
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				e.neighbour.Bound++
			}
		}
	})
	// The bind check notes another scheduler when it sees its first bind.
	deadline := time.Now().Add(time.Minute)
	for {
		list, err := r.CP.Core.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
		if err == nil && len(list.Items) > 0 {
			return stop, nil
		}
		if time.Now().After(deadline) {
			return stop, fmt.Errorf("the neighbour bound no pod within a minute (last: %v)", err)
		}
		select {
		case <-ctx.Done():
			return stop, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// countNodePodLists starts counting the cluster-wide pod LISTs
// kube-apiserver serves; stop writes them into e's neighbour figures.
func (r *Runner) countNodePodLists(ctx context.Context, e *env) (stop func()) {
	m0, err := r.apiServerMetrics(ctx)
	return func() {
		if err != nil {
			e.neighbour.Error = err.Error()
			return
		}
		m1, err := r.apiServerMetrics(ctx)
		if err != nil {
			e.neighbour.Error = err.Error()
			return
		}
		e.neighbour.NodePodLists = nodePodLists(m1) - nodePodLists(m0)
	}
}
