package scheduler_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
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

var _ = Describe("Profile set", func() {
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
