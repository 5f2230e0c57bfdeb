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

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// newUnstartedScheduler returns a scheduler over a fake clientset that is
// never started: Apply builds and swaps frameworks without informers.
func newUnstartedScheduler(t testing.TB) *Scheduler {
	t.Helper()
	cs := fake.NewClientset()
	s, err := New(cs, informers.NewSharedInformerFactory(cs, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.shutdown(klog.Background()) })
	return s
}

func testProfile(t testing.TB, name string, mutate ...func(*config.KubeSchedulerProfile)) Profile {
	t.Helper()
	p, err := DefaultProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mutate {
		m(&p)
	}
	return Profile{Config: p}
}

func withFilter(name string) func(*config.KubeSchedulerProfile) {
	return func(p *config.KubeSchedulerProfile) {
		p.Plugins.Filter.Enabled = append(p.Plugins.Filter.Enabled, config.Plugin{Name: name})
	}
}

func TestSwapMetricsAndActiveProfiles(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	s := newUnstartedScheduler(t)
	before := testutil.ToFloat64(activeProfiles)

	for range 3 {
		_, err := s.Apply(ctx, testProfile(t, "m-pack"))
		g.Expect(err).NotTo(HaveOccurred())
	}
	_, err := s.Apply(ctx, testProfile(t, "m-spread"))
	g.Expect(err).NotTo(HaveOccurred())
	_, err = s.Apply(ctx, testProfile(t, "m-bad", withFilter("Nope")))
	g.Expect(err).To(MatchError(ContainSubstring(`"Nope" does not exist`)))
	_, err = s.Validate(ctx, testProfile(t, "m-dry"))
	g.Expect(err).NotTo(HaveOccurred())

	g.Expect(testutil.ToFloat64(profileSwaps.WithLabelValues("m-pack"))).To(Equal(3.0))
	g.Expect(testutil.ToFloat64(profileSwaps.WithLabelValues("m-spread"))).To(Equal(1.0))
	g.Expect(testutil.ToFloat64(profileSwaps.WithLabelValues("m-bad"))).To(BeZero(), "a failed build is no swap")
	g.Expect(testutil.ToFloat64(profileSwaps.WithLabelValues("m-dry"))).To(BeZero(), "a dry-run is no swap")
	g.Expect(histogramCount(t, "m-pack", "swapped")).To(BeEquivalentTo(3))
	g.Expect(histogramCount(t, "m-spread", "swapped")).To(BeEquivalentTo(1))
	g.Expect(histogramCount(t, "m-bad", "failed")).To(BeEquivalentTo(1))
	g.Expect(histogramCount(t, "m-dry", "swapped") + histogramCount(t, "m-dry", "failed")).To(BeZero())

	g.Expect(testutil.ToFloat64(activeProfiles) - before).To(Equal(2.0))
	g.Expect(s.Remove(ctx, "m-pack")).To(BeTrue())
	g.Expect(testutil.ToFloat64(activeProfiles) - before).To(Equal(1.0))
	g.Expect(s.Remove(ctx, "m-pack")).To(BeFalse())
	g.Expect(testutil.ToFloat64(activeProfiles) - before).To(Equal(1.0))

	s.shutdown(klog.Background())
	g.Expect(testutil.ToFloat64(activeProfiles)).To(Equal(before), "a stopped scheduler serves nothing")
}

func histogramCount(t *testing.T, profile, result string) uint64 {
	t.Helper()
	m, err := gatheredProfileResult(ctrlmetrics.Registry, "profile_scheduler_profile_swap_duration_seconds", profile, result)
	if err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

// TestRemovedProfileLeavesNoSeries: a removed profile's series of this
// package are gone at the next scrape (a deleted profile raises no stale
// alert and costs no series).
func TestRemovedProfileLeavesNoSeries(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	s := newUnstartedScheduler(t)
	defer s.shutdown(klog.Background())
	_, err := s.Apply(ctx, testProfile(t, "m-gone"))
	g.Expect(err).NotTo(HaveOccurred())
	bindChecksRefused.WithLabelValues("m-gone", "NodeResourcesFit").Inc()
	loopBusySeconds.WithLabelValues("m-gone").Add(1)
	_, err = s.Apply(ctx, testProfile(t, "m-stays"))
	g.Expect(err).NotTo(HaveOccurred())

	series := func(profile string) []string {
		families, err := ctrlmetrics.Registry.Gather()
		g.Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, f := range families {
			if !strings.HasPrefix(f.GetName(), "profile_scheduler_") {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if (l.GetName() == "profile" || l.GetName() == "loop") && l.GetValue() == profile {
						out = append(out, f.GetName())
					}
				}
			}
		}
		return out
	}
	g.Expect(series("m-gone")).To(ContainElements("profile_scheduler_profile_swaps_total", "profile_scheduler_bind_checks_refused_total",
		"profile_scheduler_scheduling_loop_busy_seconds_total"))
	g.Expect(s.Remove(ctx, "m-gone")).To(BeTrue())
	g.Expect(series("m-gone")).To(BeEmpty())
	g.Expect(series("m-stays")).To(ContainElement("profile_scheduler_profile_swaps_total"))
}
