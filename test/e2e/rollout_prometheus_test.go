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

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// buildPrometheus builds the Prometheus server pinned beside promtool
// (hack/promtool) into the work directory, as make builds promtool:
// without the service discovery plugins, which a static scrape never
// uses.
func buildPrometheus() string {
	out := filepath.Join(workDir, "prometheus")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	root, err := controlplane.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	build := exec.Command("go", "build", "-C", filepath.Join(root, "hack", "promtool"), "-tags", "remove_all_sd", "-o", out,
		"github.com/prometheus/prometheus/cmd/prometheus")
	msg, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(msg))
	return out
}

// promQuery asks Prometheus at addr for query's instant vector, and
// returns the values of its series.
func promQuery(g Gomega, addr, query string) []string {
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(query))
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var answer struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	g.Expect(json.NewDecoder(resp.Body).Decode(&answer)).To(Succeed())
	g.Expect(answer.Status).To(Equal("success"))
	var values []string
	for _, r := range answer.Data.Result {
		values = append(values, fmt.Sprint(r.Value[1]))
	}
	return values
}

var _ = Describe("a rollout judged by a real Prometheus", Ordered, func() {
	var prom *instance

	BeforeAll(func(ctx SpecContext) {
		By("Prometheus, built from its Go module, scraping the operator every second")
		bin := buildPrometheus()
		metricsAddr, promAddr := freeAddr(), freeAddr()
		config := filepath.Join(workDir, "prometheus.yml")
		Expect(os.WriteFile(config, fmt.Appendf(nil, `global:
  scrape_interval: 1s
scrape_configs:
  - job_name: profile-scheduler
    static_configs:
      - targets: [%q]
`, metricsAddr), 0o600)).To(Succeed())
		prom = startProcess("prometheus", bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(workDir, "prometheus-data"),
			"--web.listen-address="+promAddr, "--log.level=warn")
		Eventually(func() error {
			resp, err := http.Get("http://" + promAddr + "/-/ready")
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("/-/ready: %s", resp.Status)
			}
			return nil
		}).WithTimeout(60 * time.Second).WithPolling(250 * time.Millisecond).Should(Succeed())

		for i := 1; i <= 2; i++ {
			Expect(controlplane.CreateReadyNode(ctx, k8s, controlplane.Node(fmt.Sprintf("prom-%d", i), controlplane.Resources("8", "16Gi", "110")))).To(Succeed())
		}
		DeferCleanup(func(ctx SpecContext) {
			for i := 1; i <= 2; i++ {
				_ = k8s.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("prom-%d", i)}})
			}
		})
		startInstance("prom-operator", "--metrics-bind-address="+metricsAddr, "--metrics-secure=false",
			"--prometheus-address=http://"+promAddr, "--pod-initial-backoff=100ms", "--pod-max-backoff=1s")
		Eventually(func(g Gomega) {
			g.Expect(promQuery(g, promAddr, `up{job="profile-scheduler"}`)).To(Equal([]string{"1"}))
		}).WithTimeout(60*time.Second).WithPolling(500*time.Millisecond).Should(Succeed(), "Prometheus scrapes the operator")
	})

	// live creates a profile named name and waits until it serves.
	live := func(ctx SpecContext, name string) *v1alpha1.SchedulerProfile {
		sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}
		Expect(k8s.Create(ctx, sp)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { _ = k8s.Delete(ctx, sp) })
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(sp), sp)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
			g.Expect(sp.Status.ActiveGeneration).To(Equal(sp.Generation))
		}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		return sp
	}
	// rollOut updates sp to generation 2 (a plain change), rolled out to
	// a canary of half the pods with metrics, and waits until the rollout
	// runs.
	rollOut := func(ctx SpecContext, sp *v1alpha1.SchedulerProfile, step time.Duration, metrics ...v1alpha1.AnalysisMetric) {
		sp.Spec.PercentageOfNodesToScore = ptr.To[int32](50)
		sp.Spec.Rollout = &v1alpha1.Rollout{
			Steps: []v1alpha1.RolloutStep{{Canary: &v1alpha1.CanaryStep{Percent: 50, Duration: metav1.Duration{Duration: step}}}},
			Analysis: &v1alpha1.RolloutAnalysis{Interval: &metav1.Duration{Duration: 2 * time.Second}, MinSamples: ptr.To[int32](3),
				Metrics: metrics},
		}
		Expect(k8s.Update(ctx, sp)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(sp), sp)).To(Succeed())
			g.Expect(sp.Status.Rollout).NotTo(BeNil())
			g.Expect(sp.Status.Rollout.Generation).To(Equal(sp.Generation))
			g.Expect(sp.Status.Rollout.Phase).To(Equal(v1alpha1.RolloutProgressing))
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
	}
	// bindPods creates n pods for schedulerName and waits until each is
	// bound.
	bindPods := func(ctx SpecContext, schedulerName string, n int) {
		for i := range n {
			_, err := testenv.CreateBound(ctx, k8s, testenv.PausePod(fmt.Sprintf("%s-%d", schedulerName, i), schedulerName, nil), 30*time.Second)
			Expect(err).NotTo(HaveOccurred())
		}
	}
	// outcome waits for the rollout of sp to end in phase, and returns its
	// status.
	outcome := func(ctx SpecContext, sp *v1alpha1.SchedulerProfile, phase string, within time.Duration) *v1alpha1.RolloutStatus {
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(sp), sp)).To(Succeed())
			g.Expect(sp.Status.Rollout.Phase).To(Equal(phase), sp.Status.Rollout.Message)
		}).WithTimeout(within).WithPolling(200 * time.Millisecond).Should(Succeed())
		return sp.Status.Rollout
	}
	metricOf := func(ro *v1alpha1.RolloutStatus, name string) v1alpha1.RolloutMetric {
		i := slices.IndexFunc(ro.Analysis, func(m v1alpha1.RolloutMetric) bool { return m.Metric == name })
		Expect(i).To(BeNumerically(">=", 0), "status.rollout.analysis has %s: %+v", name, ro.Analysis)
		return ro.Analysis[i]
	}

	It("rolls back, seconds after its canary passes a query's bound, a change the built-in metrics pass", func(ctx SpecContext) {
		sp := live(ctx, "prom-bad")
		// A budget the built-in metrics know nothing of: the new
		// generation may place at most two pods (as a team's own signal,
		// a queue wait or a fragmentation, would say "worse").
		rollOut(ctx, sp, 10*time.Minute, v1alpha1.AnalysisMetric{
			Name:             "canary-budget",
			Query:            `sum(profile_scheduler_rollout_generation_attempts_total{profile="$profile",generation="candidate",result="scheduled"})`,
			SuccessCondition: "size(result) == 0 || result[0] < 3.0",
		})
		start := time.Now()
		bindPods(ctx, "prom-bad", 16)
		ro := outcome(ctx, sp, v1alpha1.RolloutRolledBack, 30*time.Second)
		GinkgoWriter.Printf("rolled back %s after the first pod was created\n", time.Since(start).Round(100*time.Millisecond))
		Expect(ro.Message).To(ContainSubstring("metric canary-budget failed 1 of"))
		Expect(ro.Message).To(ContainSubstring("(certain while the step runs)"))
		m := metricOf(ro, "canary-budget")
		Expect(m.Verdict).To(Equal("Fail"))
		Expect(m.Errored).To(BeZero(), m.Error)
		for _, bm := range ro.Analysis {
			if bm.Metric != "canary-budget" {
				Expect(bm.Verdict).NotTo(Equal("Fail"), "the built-in %s passes", bm.Metric)
			}
		}
		Expect(meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady).Reason).To(Equal(v1alpha1.ReasonRolledBack))
		Expect(sp.Status.ActiveGeneration).To(BeEquivalentTo(1))
	})

	It("promotes a change whose query passes, Prometheus answering every measurement", func(ctx SpecContext) {
		sp := live(ctx, "prom-good")
		rollOut(ctx, sp, 10*time.Second, v1alpha1.AnalysisMetric{
			Name:             "canary-errors",
			Query:            `sum(profile_scheduler_rollout_generation_attempts_total{profile="$profile",generation="candidate",result="error"}) or vector(0)`,
			SuccessCondition: "result == [0.0]",
		})
		bindPods(ctx, "prom-good", 12)
		ro := outcome(ctx, sp, v1alpha1.RolloutPromoted, time.Minute)
		m := metricOf(ro, "canary-errors")
		Expect(m).To(And(HaveField("Verdict", "Pass"), HaveField("New", "[0]"), HaveField("Errored", BeZero()), HaveField("Failed", BeZero())))
		Expect(m.Samples).To(BeNumerically(">=", 2), "measured every 2 s and at the step's end")
	})

	It("rolls back when Prometheus is gone and the metric's onError is Fail, without waiting on it", func(ctx SpecContext) {
		prom.kill()
		sp := live(ctx, "prom-gone")
		start := time.Now()
		rollOut(ctx, sp, 10*time.Minute, v1alpha1.AnalysisMetric{
			Name: "queue-wait", Query: `team_queue_wait_seconds{profile="$profile"}`, SuccessCondition: "result[0] < 30.0",
		})
		ro := outcome(ctx, sp, v1alpha1.RolloutRolledBack, 30*time.Second)
		GinkgoWriter.Printf("rolled back %s after the rollout was asked for\n", time.Since(start).Round(100*time.Millisecond))
		m := metricOf(ro, "queue-wait")
		Expect(m.Errored).To(BeEquivalentTo(1))
		Expect(m.Error).To(ContainSubstring("connection refused"))
	})
})
