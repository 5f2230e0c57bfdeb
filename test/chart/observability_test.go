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

package chart

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The chart's alerts are config/prometheus/alerts.yaml as a PrometheusRule,
// its dashboard config/grafana's JSON in a ConfigMap the Grafana sidecar
// loads: both opt-in, both rendered without the Prometheus Operator's CRDs
// in the cluster (helm template knows no cluster), and the chart's copies
// (files/, made by make manifests) are the files of config/.
func TestChartAlertsAndDashboard(t *testing.T) {
	g := NewWithT(t)
	root := repoRoot(t)
	for _, c := range []struct{ config, chart string }{
		{"config/prometheus/alerts.yaml", "files/alerts.yaml"},
		{"config/grafana/profile-scheduler.json", "files/profile-scheduler.json"},
	} {
		want, err := os.ReadFile(filepath.Join(root, c.config))
		g.Expect(err).NotTo(HaveOccurred())
		got, err := os.ReadFile(filepath.Join(chartDir(t), c.chart))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(got)).To(Equal(string(want)), "the chart's %s is not %s: run make manifests", c.chart, c.config)
	}

	defaults := renderChart(t)
	g.Expect(find(defaults, "PrometheusRule", releaseName)).To(BeNil(), "alerts are opt-in")
	g.Expect(find(defaults, "ConfigMap", releaseName+"-dashboard")).To(BeNil(), "the dashboard is opt-in")

	objs := renderChart(t, "--set", "prometheusRule.enabled=true,prometheusRule.labels.release=kube-prometheus-stack,grafanaDashboard.enabled=true,grafanaDashboard.namespace=monitoring,grafanaDashboard.annotations.grafana_folder=Schedulers")
	rule := find(objs, "PrometheusRule", releaseName)
	g.Expect(rule).NotTo(BeNil())
	g.Expect(rule.GetAPIVersion()).To(Equal("monitoring.coreos.com/v1"))
	g.Expect(rule.GetLabels()).To(HaveKeyWithValue("release", "kube-prometheus-stack"))
	var rules map[string]any
	data, err := os.ReadFile(filepath.Join(root, "config", "prometheus", "alerts.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(yaml.Unmarshal(data, &rules)).To(Succeed())
	spec, _, _ := unstructured.NestedMap(rule.Object, "spec")
	g.Expect(spec).To(Equal(rules), "the PrometheusRule's spec is the rules file, Prometheus' templates in it untouched")
	g.Expect(rules["groups"]).NotTo(BeEmpty())

	cm := find(objs, "ConfigMap", releaseName+"-dashboard")
	g.Expect(cm).NotTo(BeNil())
	g.Expect(cm.GetNamespace()).To(Equal("monitoring"))
	g.Expect(cm.GetLabels()).To(HaveKeyWithValue("grafana_dashboard", "1"))
	g.Expect(cm.GetAnnotations()).To(HaveKeyWithValue("grafana_folder", "Schedulers"))
	dashboard, _, _ := unstructured.NestedString(cm.Object, "data", "profile-scheduler.json")
	var d struct {
		UID    string           `json:"uid"`
		Panels []map[string]any `json:"panels"`
	}
	g.Expect(json.Unmarshal([]byte(dashboard), &d)).To(Succeed())
	g.Expect(d.UID).To(Equal("profile-scheduler"))
	g.Expect(d.Panels).NotTo(BeEmpty())
}

// The ServiceMonitor presents a token through Prometheus Operator's
// authorization (not the deprecated bearerTokenFile): by default the token
// of a ServiceAccount the chart binds to the metrics-reader ClusterRole,
// or the Secret the values name. It never skips TLS verification unless
// told to.
func TestChartServiceMonitorConventions(t *testing.T) {
	g := NewWithT(t)
	endpoint := func(objs []*unstructured.Unstructured) map[string]any {
		sm := find(objs, "ServiceMonitor", releaseName)
		g.Expect(sm).NotTo(BeNil())
		eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		g.Expect(eps).To(HaveLen(1))
		ep := eps[0].(map[string]any)
		g.Expect(ep).NotTo(HaveKey("bearerTokenFile"))
		g.Expect(ep).NotTo(HaveKey("bearerTokenSecret"))
		return ep
	}

	withCA := renderChart(t, "--set", "serviceMonitor.enabled=true,serviceMonitor.tlsConfig.ca.secret.name=metrics-ca,serviceMonitor.tlsConfig.ca.secret.key=ca.crt,serviceMonitor.tlsConfig.serverName=profile-scheduler-metrics.profile-scheduler-system.svc")
	ep := endpoint(withCA)
	g.Expect(ep["authorization"]).To(Equal(map[string]any{"type": "Bearer", "credentials": map[string]any{"name": releaseName + "-metrics-scraper-token", "key": "token"}}))
	g.Expect(ep["tlsConfig"]).To(Equal(map[string]any{
		"ca":         map[string]any{"secret": map[string]any{"name": "metrics-ca", "key": "ca.crt"}},
		"serverName": "profile-scheduler-metrics.profile-scheduler-system.svc",
	}), "no insecureSkipVerify unless asked for")
	token := find(withCA, "Secret", releaseName+"-metrics-scraper-token")
	g.Expect(token).NotTo(BeNil())
	g.Expect(token.Object["type"]).To(Equal("kubernetes.io/service-account-token"))
	g.Expect(token.GetAnnotations()).To(HaveKeyWithValue("kubernetes.io/service-account.name", releaseName+"-metrics-scraper"))
	binding := find(withCA, "ClusterRoleBinding", releaseName+"-metrics-scraper")
	g.Expect(binding).NotTo(BeNil())
	g.Expect(binding.Object["roleRef"]).To(HaveKeyWithValue("name", releaseName+"-metrics-reader"))
	g.Expect(find(withCA, "ClusterRole", releaseName+"-metrics-reader")).NotTo(BeNil())

	own := renderChart(t, "--set", "serviceMonitor.enabled=true,serviceMonitor.insecureSkipVerify=true,serviceMonitor.authorization.type=Bearer,serviceMonitor.authorization.credentials.name=prometheus-token,serviceMonitor.authorization.credentials.key=token")
	ep = endpoint(own)
	g.Expect(ep["authorization"]).To(Equal(map[string]any{"type": "Bearer", "credentials": map[string]any{"name": "prometheus-token", "key": "token"}}))
	g.Expect(ep["tlsConfig"]).To(Equal(map[string]any{"insecureSkipVerify": true}))
	g.Expect(find(own, "Secret", releaseName+"-metrics-scraper-token")).To(BeNil(), "the values name the token: the chart makes none")

	plain := renderChart(t, "--set", "metrics.secure=false,serviceMonitor.enabled=true")
	ep = endpoint(plain)
	g.Expect(ep).To(HaveKeyWithValue("scheme", "http"))
	g.Expect(ep).NotTo(HaveKey("authorization"))
	g.Expect(ep).NotTo(HaveKey("tlsConfig"))
	g.Expect(find(plain, "Secret", releaseName+"-metrics-scraper-token")).To(BeNil())
}
