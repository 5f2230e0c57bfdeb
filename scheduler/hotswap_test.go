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
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/watch"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

const observerName = "StrategyObserver"

// decision is what the observer saw when a pod reached PreScore: which
// strategy its framework was built for, and which nodes that strategy
// scores highest (NodeResourcesFit's integer formula, cpu and memory
// weighted 1).
type decision struct {
	strategy string
	at       time.Time
	best     sets.Set[string]
}

type observerLog struct {
	mu        sync.Mutex
	decisions map[string][]decision
}

var observed = &observerLog{decisions: map[string][]decision{}}

type strategyObserver struct{ strategy string }

func (strategyObserver) Name() string { return observerName }

func (o strategyObserver) PreScore(_ context.Context, _ fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	podCPU := pod.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
	podMem := pod.Spec.Containers[0].Resources.Requests.Memory().Value()
	score := func(requested, capacity int64) int64 {
		if capacity == 0 {
			return 0
		}
		if o.strategy == string(config.MostAllocated) {
			return min(requested, capacity) * fwk.MaxScore / capacity
		}
		if requested > capacity {
			return 0
		}
		return (capacity - requested) * fwk.MaxScore / capacity
	}
	var bestScore int64 = -1
	best := sets.New[string]()
	for _, ni := range nodes {
		req, alloc := ni.GetNonZeroRequested(), ni.GetAllocatable()
		s := (score(req.GetMilliCPU()+podCPU, alloc.GetMilliCPU()) + score(req.GetMemory()+podMem, alloc.GetMemory())) / 2
		switch {
		case s > bestScore:
			bestScore, best = s, sets.New(ni.Node().Name)
		case s == bestScore:
			best.Insert(ni.Node().Name)
		}
	}
	observed.mu.Lock()
	defer observed.mu.Unlock()
	observed.decisions[pod.Name] = append(observed.decisions[pod.Name], decision{strategy: o.strategy, at: time.Now(), best: best})
	return nil
}

var observerRegistry = frameworkruntime.Registry{
	observerName: func(_ context.Context, args k8sruntime.Object, _ fwk.Handle) (fwk.Plugin, error) {
		u, ok := args.(*k8sruntime.Unknown)
		if !ok {
			return nil, fmt.Errorf("%s wants its strategy as runtime.Unknown args, got %T", observerName, args)
		}
		return strategyObserver{strategy: string(u.Raw)}, nil
	},
}

// strategyProfile scores with NodeResourcesFit only, using strategy, and
// observes every decision.
func strategyProfile(name string, strategy config.ScoringStrategyType) scheduler.Profile {
	return defaultProfile(name, withScoring(strategy, 1), func(p *config.KubeSchedulerProfile) {
		p.Plugins.PreScore.Enabled = append(p.Plugins.PreScore.Enabled, config.Plugin{Name: observerName})
		p.PluginConfig = append(p.PluginConfig, config.PluginConfig{Name: observerName, Args: &k8sruntime.Unknown{Raw: []byte(strategy)}})
	})
}

// bindWatch counts, per pod, the updates that set spec.nodeName.
type bindWatch struct {
	mu    sync.Mutex
	binds map[string]int
	last  map[string]string
}

func watchBinds(ctx context.Context, ns string) *bindWatch {
	GinkgoHelper()
	bw := &bindWatch{binds: map[string]int{}, last: map[string]string{}}
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*v1.Pod)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			bw.mu.Lock()
			if prev := bw.last[p.Name]; p.Spec.NodeName != "" && p.Spec.NodeName != prev {
				bw.binds[p.Name]++
			}
			bw.last[p.Name] = p.Spec.NodeName
			bw.mu.Unlock()
		}
	}()
	return bw
}

func (bw *bindWatch) snapshot() map[string]int {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	out := make(map[string]int, len(bw.binds))
	for k, v := range bw.binds {
		out[k] = v
	}
	return out
}

var _ = Describe("Hot swap", func() {
	It("loses and double-binds nothing while the profile is replaced 20 times under load, and the new strategy applies after each swap", func() {
		h := startScheduler(scheduler.WithOutOfTreeRegistry(observerRegistry))
		observed.mu.Lock()
		observed.decisions = map[string][]decision{}
		observed.mu.Unlock()
		name := uniqueName("swap")
		for i := 0; i < 4; i++ {
			createNode(fmt.Sprintf("s%d", i), "32", "64Gi")
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		bw := watchBinds(ctx, h.ns)
		bindsBefore, failsBefore := bindCalls.Load(), bindFails.Load()

		// Warm up: the first profile starts the informers its plugins need.
		h.apply(strategyProfile(name, config.MostAllocated))
		createPod(newPod(h.ns, "warmup", name, "250m", "512Mi"))
		waitBound(h.ns, "warmup", 10*time.Second)
		Eventually(func() error {
			_, b, u := h.sched.Queue().Pending()
			if len(b)+len(u) > 0 {
				return fmt.Errorf("queue not idle")
			}
			return nil
		}, 5*time.Second, 20*time.Millisecond).Should(Succeed())
		baseline := runtime.NumGoroutine()

		// Pods are created continuously, at a steady pace, while the
		// profile is swapped. createdAt is taken before each Create call.
		var createdMu sync.Mutex
		createdAt := map[string]time.Time{}
		var creator sync.WaitGroup
		stopCreating := make(chan struct{})
		creator.Add(1)
		go func() {
			defer GinkgoRecover()
			defer creator.Done()
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for i := 0; i < 900; i++ {
				select {
				case <-stopCreating:
					return
				case <-tick.C:
				}
				pod := fmt.Sprintf("p-%04d", i)
				createdMu.Lock()
				createdAt[pod] = time.Now()
				createdMu.Unlock()
				_, err := cs.CoreV1().Pods(h.ns).Create(ctx, newPod(h.ns, pod, name, "125m", "256Mi"), metav1.CreateOptions{})
				Expect(err).NotTo(HaveOccurred())
			}
		}()

		type window struct {
			strategy string
			applied  time.Time // Apply returned
			next     time.Time // the next Apply was called
		}
		var windows []window
		// decidedSince counts pods created after t that reached PreScore
		// with strategy.
		decidedSince := func(strategy string, t time.Time) int {
			createdMu.Lock()
			defer createdMu.Unlock()
			observed.mu.Lock()
			defer observed.mu.Unlock()
			n := 0
			for pod, ds := range observed.decisions {
				if c, ok := createdAt[pod]; ok && c.After(t) && ds[len(ds)-1].strategy == strategy {
					n++
				}
			}
			return n
		}
		for i := 0; i < 20; i++ {
			strategy := config.LeastAllocated
			if i%2 == 1 {
				strategy = config.MostAllocated
			}
			start := time.Now()
			h.apply(strategyProfile(name, strategy))
			applied := time.Now()
			if len(windows) > 0 {
				windows[len(windows)-1].next = start
			}
			windows = append(windows, window{strategy: string(strategy), applied: applied})
			// Let a few new pods go through the new framework first.
			Eventually(func() int { return decidedSince(string(strategy), applied) }, 10*time.Second, 5*time.Millisecond).Should(BeNumerically(">=", 3))
		}
		windows[len(windows)-1].next = time.Now().Add(time.Hour)
		close(stopCreating)
		creator.Wait()
		createdMu.Lock()
		pods := []string{"warmup"}
		for p := range createdAt {
			pods = append(pods, p)
		}
		createdMu.Unlock()
		GinkgoWriter.Printf("%d pods created during 20 swaps\n", len(pods))

		Eventually(func() []string {
			var pending []string
			for p, n := range podNodes(h.ns) {
				if n == "" {
					pending = append(pending, p)
				}
			}
			return pending
		}, 60*time.Second, 50*time.Millisecond).Should(BeEmpty())
		Expect(podNodes(h.ns)).To(HaveLen(len(pods)))

		// Every pod was bound exactly once, by exactly one bind call.
		Eventually(func() int { return len(bw.snapshot()) }, 10*time.Second, 20*time.Millisecond).Should(Equal(len(pods)))
		for p, n := range bw.snapshot() {
			Expect(n).To(Equal(1), "pod %s was bound %d times", p, n)
		}
		Expect(bindCalls.Load()-bindsBefore).To(Equal(int64(len(pods))), "one bind call per pod")
		Expect(bindFails.Load() - failsBefore).To(BeZero())

		// Each pod was placed on a node its framework's strategy ranks
		// best; a pod created after a swap and decided before the next one
		// was placed by the new framework.
		placed := podNodes(h.ns)
		observed.mu.Lock()
		checked := 0
		for pod, ds := range observed.decisions {
			d := ds[len(ds)-1]
			Expect(d.best.Has(placed[pod])).To(BeTrue(), "pod %s placed on %s, %s prefers %v", pod, placed[pod], d.strategy, sets.List(d.best))
			c, ok := createdAt[pod]
			if !ok {
				continue
			}
			for _, w := range windows {
				if c.After(w.applied) && d.at.Before(w.next) {
					Expect(d.strategy).To(Equal(w.strategy), "pod %s created after the swap to %s", pod, w.strategy)
					checked++
				}
			}
		}
		observed.mu.Unlock()
		GinkgoWriter.Printf("%d decisions checked against the strategy serving when their pod was created\n", checked)
		Expect(checked).To(BeNumerically(">=", 60))

		// Replaced frameworks are closed: no goroutine is left per swap.
		Eventually(runtime.NumGoroutine, 20*time.Second, 100*time.Millisecond).Should(BeNumerically("<=", baseline+10))
		GinkgoWriter.Printf("goroutines: baseline %d, after %d\n", baseline, runtime.NumGoroutine())
	})
})
