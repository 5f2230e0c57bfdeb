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
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// metricValue sums the samples of family whose labels include want.
func metricValue(family string, want map[string]string) float64 {
	GinkgoHelper()
	families, err := ctrlmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	var sum float64
	for _, mf := range families {
		if mf.GetName() != family {
			continue
		}
		for _, m := range mf.GetMetric() {
			if !hasLabels(m, want) {
				continue
			}
			switch {
			case m.Counter != nil:
				sum += m.GetCounter().GetValue()
			case m.Histogram != nil:
				sum += float64(m.GetHistogram().GetSampleCount())
			case m.Gauge != nil:
				sum += m.GetGauge().GetValue()
			}
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
			found++
		}
	}
	return found == len(want)
}

// neverSyncedName is a Filter plugin that admits every node and, when it is
// built, asks the informer factory for a ConfigMap informer whose list
// blocks until released: an Apply of a profile enabling it waits for an
// informer that does not sync.
const neverSyncedName = "NeverSynced"

type neverSynced struct{}

func (neverSynced) Name() string { return neverSyncedName }
func (neverSynced) Filter(context.Context, fwk.CycleState, *v1.Pod, fwk.NodeInfo) *fwk.Status {
	return nil
}

// neverSyncedRegistry registers NeverSynced; its informer signals listing
// when it starts to list, and its list returns (with an error) only once
// release is closed or the informer stops.
func neverSyncedRegistry(listing chan<- struct{}, release <-chan struct{}) frameworkruntime.Registry {
	newInformer := func(_ kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
				select {
				case listing <- struct{}{}:
				default:
				}
				select {
				case <-ctx.Done():
				case <-release:
				}
				return nil, errors.New("not listing")
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				return nil, errors.New("not watching")
			},
		}
		return cache.NewSharedIndexInformer(lw, &v1.ConfigMap{}, resync, cache.Indexers{})
	}
	return frameworkruntime.Registry{
		neverSyncedName: func(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			h.SharedInformerFactory().InformerFor(&v1.ConfigMap{}, newInformer)
			return neverSynced{}, nil
		},
	}
}

var _ = Describe("Profile set", func() {
	It("answers a dry-run while an Apply waits for an informer that does not sync", func() {
		listing := make(chan struct{}, 1)
		release := make(chan struct{})
		DeferCleanup(func() { close(release) })
		h := startScheduler(scheduler.WithOutOfTreeRegistry(neverSyncedRegistry(listing, release)))
		slow := uniqueName("set")
		applyCtx, cancelApply := context.WithCancel(context.Background())
		defer cancelApply()
		applied := make(chan error, 1)
		go func() {
			_, err := h.sched.Apply(applyCtx, defaultProfile(slow, func(p *config.KubeSchedulerProfile) {
				p.Plugins.Filter.Enabled = append(p.Plugins.Filter.Enabled, config.Plugin{Name: neverSyncedName})
			}))
			applied <- err
		}()
		Eventually(listing, 10*time.Second).Should(Receive(), "the Apply starts the informer")
		Consistently(applied, 500*time.Millisecond).ShouldNot(Receive(), "the Apply waits for the informer to sync")

		By("a dry-run of another profile answers at once")
		start := time.Now()
		validated := make(chan error, 1)
		go func() {
			_, err := h.sched.Validate(context.Background(), defaultProfile(uniqueName("set")))
			validated <- err
		}()
		Eventually(validated, 5*time.Second).Should(Receive(BeNil()))
		GinkgoWriter.Printf("Validate answered in %v while an Apply waited for informers\n", time.Since(start))
		By("and so does a dry-run that fails, naming the plugin")
		_, err := h.sched.Validate(context.Background(), defaultProfile(slow, func(p *config.KubeSchedulerProfile) {
			p.Plugins.Filter.Enabled = append(p.Plugins.Filter.Enabled, config.Plugin{Name: "NoSuchPlugin"})
		}))
		Expect(err).To(MatchError(ContainSubstring("NoSuchPlugin")))
		Expect(applied).NotTo(Receive(), "the Apply still waited when both dry-runs answered")
		Expect(h.sched.Serving(slow)).To(BeFalse())

		By("the Apply, once its caller stops waiting, serves anyway")
		cancelApply()
		Eventually(applied, 10*time.Second).Should(Receive(BeNil()))
		Expect(h.sched.Serving(slow)).To(BeTrue())
	})

	It("reports what the framework runs, refuses a broken profile and keeps the previous one serving", func() {
		h := startScheduler()
		name := uniqueName("set")
		applied := h.apply(defaultProfile(name))
		Expect(applied.SchedulerName).To(Equal(name))
		Expect(applied.Plugins.QueueSort.Enabled).To(Equal([]config.Plugin{{Name: names.PrioritySort}}))
		Expect(applied.Plugins.Filter.Enabled).To(ContainElement(config.Plugin{Name: names.NodeResourcesFit}))
		Expect(applied.Plugins.Score.Enabled).To(ContainElement(config.Plugin{Name: names.NodeResourcesFit, Weight: 1}))
		Expect(h.sched.Serving(name)).To(BeTrue())

		broken := defaultProfile(name, func(p *config.KubeSchedulerProfile) {
			p.Plugins.Filter.Enabled = append(p.Plugins.Filter.Enabled, config.Plugin{Name: "NoSuchPlugin"})
		})
		_, err := h.sched.Apply(context.Background(), broken)
		Expect(err).To(MatchError(ContainSubstring("NoSuchPlugin")))
		_, err = h.sched.Validate(context.Background(), broken)
		Expect(err).To(MatchError(ContainSubstring("NoSuchPlugin")))
		Expect(h.sched.Serving(name)).To(BeTrue())

		createNode("n1", "4", "8Gi")
		createPod(newPod(h.ns, "p", name, "1", "1Gi"))
		Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n1"))
	})

	It("validates without serving", func() {
		h := startScheduler()
		name := uniqueName("set")
		a, err := h.sched.Validate(context.Background(), defaultProfile(name))
		Expect(err).NotTo(HaveOccurred())
		Expect(a.SchedulerName).To(Equal(name))
		Expect(h.sched.Serving(name)).To(BeFalse())
		Expect(h.sched.Remove(context.Background(), name)).To(BeFalse())
	})

	It("exports the upstream scheduler metrics with the profile label on the controller-runtime registry", func() {
		h := startScheduler()
		name := uniqueName("set")
		h.apply(defaultProfile(name))
		createNode("n1", "4", "8Gi")
		createPod(newPod(h.ns, "p", name, "1", "1Gi"))
		waitBound(h.ns, "p", 10*time.Second)
		Eventually(func() float64 {
			return metricValue("scheduler_schedule_attempts_total", map[string]string{"profile": name, "result": "scheduled"})
		}, 5*time.Second, 50*time.Millisecond).Should(Equal(1.0))
		Expect(metricValue("scheduler_scheduling_attempt_duration_seconds", map[string]string{"profile": name})).To(BeNumerically(">=", 1))
	})
})
