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
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// metricName finds the metric names in a PromQL expression: the
// operator's (profile_scheduler_*) and the upstream scheduler's
// (scheduler_*).
var metricName = regexp.MustCompile(`(?:^|[^a-zA-Z0-9_:])((?:profile_)?scheduler_[a-z0-9_]+)`)

// namesInExpr returns the metric names expr reads.
func namesInExpr(expr string) []string {
	var out []string
	for _, m := range metricName.FindAllStringSubmatch(expr, -1) {
		out = append(out, m[1])
	}
	return out
}

// usedMetricNames are the metric names the alerts (config/prometheus) and
// the dashboard (config/grafana) read.
func usedMetricNames() map[string][]string {
	used := map[string][]string{}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `json:"alert"`
				Expr  string `json:"expr"`
			} `json:"rules"`
		} `json:"groups"`
	}
	data, err := os.ReadFile(repoPath("config", "prometheus", "alerts.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(yaml.Unmarshal(data, &rules)).To(Succeed())
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			for _, n := range namesInExpr(r.Expr) {
				used[n] = append(used[n], "alert "+r.Alert)
			}
		}
	}
	var dashboard struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	data, err = os.ReadFile(repoPath("config", "grafana", "profile-scheduler.json"))
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(data, &dashboard)).To(Succeed())
	for _, p := range dashboard.Panels {
		for _, t := range p.Targets {
			for _, n := range namesInExpr(t.Expr) {
				used[n] = append(used[n], "panel "+p.Title)
			}
		}
	}
	// A variable's query is label_values(METRIC{...}, LABEL): its first
	// argument is the metric, the last a label.
	labelValues := regexp.MustCompile(`label_values\(([^,]+),`)
	for _, v := range dashboard.Templating.List {
		q, _ := v.Query.(map[string]any)
		query, _ := q["query"].(string)
		if m := labelValues.FindStringSubmatch(query); m != nil {
			for _, n := range namesInExpr(m[1]) {
				used[n] = append(used[n], "variable "+v.Name)
			}
		}
	}
	return used
}

// scrapedFamilies serves the operator's registry as its metrics server
// does (promhttp over controller-runtime's registry), scrapes it over
// HTTP, and returns the families in the exposition with their types.
func scrapedFamilies() map[string]string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	srv := &http.Server{Handler: promhttp.HandlerFor(ctrlmetrics.Registry, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	resp, err := http.Get("http://" + l.Addr().String() + "/metrics")
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusOK))
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	families := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			families[f[2]] = f[3]
		}
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	return families
}

// scraped reports whether name is in the exposition: a family, or a
// histogram's or summary's _bucket, _sum or _count series.
func inScrape(families map[string]string, name string) bool {
	if _, ok := families[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if t, ok := families[strings.TrimSuffix(name, suffix)]; ok && strings.HasSuffix(name, suffix) && (t == "histogram" || t == "summary") {
			return true
		}
	}
	return false
}

// checkUsedMetricsScraped runs after the suite's workload, before the
// operator stops: every metric the alerts and the dashboard read must be
// in a scrape of the operator, so that neither names a metric the
// operator does not export. The health series are of the objects that
// exist at scrape time, and the suite's specs delete theirs: a profile
// rolled out and a route are made here first.
func checkUsedMetricsScraped() {
	if cfg, _ := GinkgoConfiguration(); len(cfg.FocusStrings) > 0 || len(cfg.SkipStrings) > 0 || len(cfg.FocusFiles) > 0 || len(cfg.LabelFilter) > 0 {
		GinkgoWriter.Println("Some specs were left out: the metric names of the alerts and the dashboard are not checked against their workload")
		return
	}
	By("a profile whose rollout of generation 2 generation 3 superseded, a pod it bound meanwhile, and a route, exist at scrape time")
	const name = "metrics-check"
	sp := newProfile(name, v1alpha1.SchedulerProfileSpec{Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{shadowStep(10 * time.Minute)}}})
	Expect(k8s.Create(suiteCtx, sp)).To(Succeed())
	expectLive(name, timeout)
	for _, percent := range []int32{50, 60} {
		live := getProfile(name)
		live.Spec.PercentageOfNodesToScore = ptr.To(percent)
		Expect(k8s.Update(suiteCtx, live)).To(Succeed())
		generation := live.Generation
		Eventually(func(g Gomega) {
			r := getProfile(name).Status.Rollout
			g.Expect(r).NotTo(BeNil())
			g.Expect(r.Generation).To(Equal(generation))
			g.Expect(r.Phase).To(Equal(v1alpha1.RolloutProgressing))
		}).WithTimeout(timeout).Should(Succeed())
	}
	// A pod the serving generation binds while the rollout runs gives the
	// per-generation series (a deleted profile's went with it).
	boundNode(createPod(createNamespace(name), "p", name, requestingNothing), timeout)
	Expect(k8s.Create(suiteCtx, &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ProfileRouteSpec{Profile: name, NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"metrics-check": "true"}}}})).To(Succeed())
	Eventually(func(g Gomega) {
		pr := &v1alpha1.ProfileRoute{}
		g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: name}, pr)).To(Succeed())
		g.Expect(pr.Status.Conditions).NotTo(BeEmpty())
	}).WithTimeout(timeout).Should(Succeed())

	By("every metric the alerts and the dashboard read is scraped")
	used := usedMetricNames()
	Expect(used).To(HaveKey("profile_scheduler_profile_condition"))
	Expect(used).To(HaveKey("scheduler_schedule_attempts_total"))
	var missing []string
	Eventually(func() []string {
		families := scrapedFamilies()
		missing = missing[:0]
		for n, where := range used {
			if !inScrape(families, n) {
				missing = append(missing, n+" (read by "+strings.Join(where, ", ")+")")
			}
		}
		sort.Strings(missing)
		return missing
	}).WithTimeout(timeout).WithPolling(time.Second).Should(BeEmpty(), "metrics the alerts or the dashboard read that a scrape of the operator does not have")
}
