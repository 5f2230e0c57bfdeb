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

package observability

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// runbookBase is where every alert's runbook_url points.
const runbookBase = "https://github.com/profile-scheduler/profile-scheduler/blob/main/docs/troubleshooting.md#"

// rulesFile is a Prometheus rules file.
type rulesFile struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for,omitempty"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

// ruleTests is a promtool test file.
type ruleTests struct {
	RuleFiles          []string `json:"rule_files"`
	EvaluationInterval string   `json:"evaluation_interval"`
	Tests              []struct {
		Name          string           `json:"name"`
		Interval      string           `json:"interval"`
		InputSeries   []map[string]any `json:"input_series"`
		AlertRuleTest []struct {
			EvalTime  string           `json:"eval_time"`
			Alertname string           `json:"alertname"`
			ExpAlerts []map[string]any `json:"exp_alerts"`
		} `json:"alert_rule_test"`
	} `json:"tests"`
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// alerts reads config/prometheus/alerts.yaml.
func alerts(t *testing.T) rulesFile {
	t.Helper()
	var rules rulesFile
	readYAML(t, filepath.Join(repoRoot(t), "config", "prometheus", "alerts.yaml"), &rules)
	return rules
}

// anchors are the GitHub anchors of the headings of a Markdown page.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	punct := regexp.MustCompile(`[^a-z0-9 _-]`)
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		out[strings.ReplaceAll(punct.ReplaceAllString(strings.ToLower(title), ""), " ", "-")] = true
	}
	return out
}

// Every alert has a severity, a summary and a description, and a
// runbook_url that names a section of docs/troubleshooting.md.
func TestAlertsLinkTheirRunbooks(t *testing.T) {
	g := NewWithT(t)
	sections := anchors(t, filepath.Join(repoRoot(t), "docs", "troubleshooting.md"))
	n := 0
	for _, group := range alerts(t).Groups {
		for _, rule := range group.Rules {
			n++
			g.Expect(rule.Alert).To(HavePrefix("ProfileScheduler"), "group %s: a recording rule, or an alert without the project's prefix", group.Name)
			g.Expect(rule.Labels).To(HaveKeyWithValue("severity", BeElementOf("critical", "warning", "info")), rule.Alert)
			g.Expect(rule.Annotations).To(HaveKey("summary"), rule.Alert)
			g.Expect(rule.Annotations).To(HaveKey("description"), rule.Alert)
			url := rule.Annotations["runbook_url"]
			g.Expect(url).To(HavePrefix(runbookBase), rule.Alert)
			anchor := strings.TrimPrefix(url, runbookBase)
			g.Expect(anchor).To(Equal(strings.ToLower(rule.Alert)), "%s: its runbook section is named after it", rule.Alert)
			g.Expect(sections).To(HaveKey(anchor), "%s: docs/troubleshooting.md has no section #%s", rule.Alert, anchor)
		}
	}
	g.Expect(n).To(BeNumerically(">=", 12))
}

// Every alert has a promtool case where it fires and one where it must
// not, and the tests load the rules file they test.
func TestEveryAlertIsTestedBothWays(t *testing.T) {
	g := NewWithT(t)
	var tests ruleTests
	readYAML(t, filepath.Join(repoRoot(t), "config", "prometheus", "alerts_test.yaml"), &tests)
	g.Expect(tests.RuleFiles).To(Equal([]string{"alerts.yaml"}))
	fires, silent := map[string]int{}, map[string]int{}
	for _, tc := range tests.Tests {
		for _, at := range tc.AlertRuleTest {
			if len(at.ExpAlerts) > 0 {
				fires[at.Alertname]++
			} else {
				silent[at.Alertname]++
			}
		}
	}
	for _, group := range alerts(t).Groups {
		for _, rule := range group.Rules {
			g.Expect(fires).To(HaveKey(rule.Alert), "%s has no promtool case where it fires", rule.Alert)
			g.Expect(silent).To(HaveKey(rule.Alert), "%s has no promtool case where it must not fire", rule.Alert)
			delete(fires, rule.Alert)
			delete(silent, rule.Alert)
		}
	}
	g.Expect(fires).To(BeEmpty(), "tests of alerts the rules file does not have")
	g.Expect(silent).To(BeEmpty(), "tests of alerts the rules file does not have")
}
