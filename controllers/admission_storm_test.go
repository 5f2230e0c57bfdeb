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

package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
)

// slowSyncName is an out-of-tree Filter plugin that admits every node and,
// when built, asks for a ConfigMap informer that lists and watches only
// once slowSyncGate is released: until then, an Apply of a profile that
// enables it waits for informers to sync (up to 30 s).
const slowSyncName = "SlowSync"

var slowSyncGate = struct {
	// listing receives when the informer first tries to list or watch.
	listing chan struct{}
	release chan struct{}
	once    sync.Once
}{listing: make(chan struct{}, 1), release: make(chan struct{})}

func releaseSlowSync() { slowSyncGate.once.Do(func() { close(slowSyncGate.release) }) }

// waitForSlowSyncGate blocks until the gate is released or ctx ends.
func waitForSlowSyncGate(ctx context.Context) error {
	select {
	case slowSyncGate.listing <- struct{}{}:
	default:
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-slowSyncGate.release:
		return nil
	}
}

type slowSync struct{}

func (slowSync) Name() string { return slowSyncName }
func (slowSync) Filter(context.Context, fwk.CycleState, *corev1.Pod, fwk.NodeInfo) *fwk.Status {
	return nil
}

func newSlowSync(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	h.SharedInformerFactory().InformerFor(&corev1.ConfigMap{}, func(cs kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				if err := waitForSlowSyncGate(ctx); err != nil {
					return nil, err
				}
				return cs.CoreV1().ConfigMaps(metav1.NamespaceAll).List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				if err := waitForSlowSyncGate(ctx); err != nil {
					return nil, err
				}
				return cs.CoreV1().ConfigMaps(metav1.NamespaceAll).Watch(ctx, o)
			},
		}
		return cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, resync, cache.Indexers{})
	})
	return slowSync{}, nil
}

var _ = Describe("Admission during a storm of profile updates", func() {
	const (
		writers          = 5
		updatesPerWriter = 10
		// webhookTimeout is the test configuration's timeoutSeconds, as
		// the chart's default.
		webhookTimeout = 10 * time.Second
	)

	BeforeEach(func() {
		Eventually(func(g Gomega) {
			vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: webhookConfig}, vwc)).To(Succeed())
			g.Expect(vwc.Webhooks[0].ClientConfig.CABundle).NotTo(BeEmpty())
			g.Expect(vwc.Webhooks[0].TimeoutSeconds).To(HaveValue(BeEquivalentTo(webhookTimeout.Seconds())))
		}).WithTimeout(timeout).Should(Succeed())
	})

	It("answers every admission request within the webhook's timeout while an Apply waits for informers", func() {
		DeferCleanup(releaseSlowSync)

		By("an Apply that waits for an informer that does not sync")
		Expect(k8s.Create(suiteCtx, newProfile("storm-slow", v1alpha1.SchedulerProfileSpec{
			Plugins: &v1alpha1.Plugins{Filter: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: slowSyncName}}}},
		}))).To(Succeed())
		DeferCleanup(deleteProfile, "storm-slow")
		Eventually(slowSyncGate.listing).WithTimeout(timeout).Should(Receive())
		blockedSince := time.Now()

		var mu sync.Mutex
		var latencies []time.Duration
		timed := func(call func() error) error {
			start := time.Now()
			err := call()
			mu.Lock()
			latencies = append(latencies, time.Since(start))
			mu.Unlock()
			return err
		}

		By(fmt.Sprintf("%d writers create a profile each and update it %d times, through the webhook", writers, updatesPerWriter))
		names := make([]string, writers)
		for w := range writers {
			names[w] = fmt.Sprintf("storm-%d", w)
			DeferCleanup(deleteProfile, names[w])
			Eventually(func() error {
				return timed(func() error {
					return k8s.Create(suiteCtx, admitted(newProfile(names[w], v1alpha1.SchedulerProfileSpec{PluginConfig: fitArgs("MostAllocated")})))
				})
			}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
		}
		// Cleanups run last-registered first: release the informer before
		// deleting profiles, whose reconciles queue behind the slow Apply.
		DeferCleanup(releaseSlowSync)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				for i := range updatesPerWriter {
					sp := getProfile(names[w])
					patch := client.MergeFrom(sp.DeepCopy())
					strategy := []string{"LeastAllocated", "MostAllocated"}[i%2]
					sp.Spec.PluginConfig = fitArgs(strategy)
					Expect(timed(func() error { return k8s.Patch(suiteCtx, sp, patch) })).To(Succeed(), "update %d of %s", i, names[w])
					if i%5 == 4 {
						// A dry-run of a spec that does not build is
						// refused, naming the plugin, just as fast.
						bad := sp.DeepCopy()
						bad.Spec.Plugins = &v1alpha1.Plugins{Filter: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchFilter"}}}}
						err := timed(func() error { return k8s.Patch(suiteCtx, bad, client.MergeFrom(sp), client.DryRunAll) })
						Expect(apierrors.IsInvalid(err)).To(BeTrue(), "dry-run of %s: %v", names[w], err)
						Expect(err.Error()).To(ContainSubstring("NoSuchFilter"))
					}
				}
			}()
		}
		wg.Wait()
		stormTook := time.Since(blockedSince)

		Expect(latencies).To(HaveLen(writers + writers*updatesPerWriter + writers*updatesPerWriter/5))
		slices.Sort(latencies)
		p50, p99, worst := stats.Percentile(latencies, 50), stats.Percentile(latencies, 99), latencies[len(latencies)-1]
		GinkgoWriter.Printf("admission latency over %d requests while an Apply waited for informers: p50 %v, p99 %v, max %v (storm took %v)\n",
			len(latencies), p50, p99, worst, stormTook)
		AddReportEntry("admission latency", fmt.Sprintf("n=%d p50=%v p99=%v max=%v", len(latencies), p50, p99, worst))
		for _, l := range latencies {
			Expect(l).To(BeNumerically("<", webhookTimeout))
		}

		By("the slow Apply was still waiting all along")
		slow := getProfile("storm-slow")
		ready := meta.FindStatusCondition(slow.Status.Conditions, v1alpha1.ConditionReady)
		Expect(ready == nil || ready.Status != metav1.ConditionTrue).To(BeTrue(),
			"storm-slow went live during the storm (after %v): the storm did not overlap the blocked Apply", stormTook)

		By("once the informer syncs, every profile serves its latest generation")
		releaseSlowSync()
		expectLive("storm-slow", timeout)
		for _, n := range names {
			Expect(expectLive(n, timeout).Generation).To(BeEquivalentTo(1 + updatesPerWriter))
		}
	})
})
