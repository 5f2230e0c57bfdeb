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

package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// object decodes one YAML document into an unstructured object.
func object(doc string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	ExpectWithOffset(1, yaml.Unmarshal([]byte(doc), &u.Object)).To(Succeed())
	return u
}

func create(doc string) error {
	u := object(doc)
	err := k8s.Create(ctx, u, client.DryRunAll)
	return err
}

const profileHead = `
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: SchedulerProfile
metadata:
  name: invalid
spec:
`

const extenderHead = `
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: ExtenderConfig
metadata:
  name: invalid
spec:
`

var _ = Describe("samples", func() {
	root, err := controlplane.RepoRoot()
	if err != nil {
		panic(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "config", "samples", "*.yaml"))
	if err != nil {
		panic(err)
	}

	It("has at least the bin-packing, spread and extender samples", func() {
		var names []string
		for _, f := range files {
			names = append(names, filepath.Base(f))
		}
		Expect(names).To(ContainElements(
			"scheduling_v1alpha1_schedulerprofile_bin-packing.yaml",
			"scheduling_v1alpha1_schedulerprofile_spread.yaml",
			"scheduling_v1alpha1_schedulerprofile_with-extender.yaml",
			"scheduling_v1alpha1_extenderconfig_gpu-filter.yaml",
		))
	})

	for _, f := range files {
		It("accepts "+filepath.Base(f), func() {
			data, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			for _, doc := range strings.Split(string(data), "\n---\n") {
				if strings.TrimSpace(doc) == "" {
					continue
				}
				u := object(doc)
				Expect(k8s.Create(ctx, u)).To(Succeed())
				DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(ctx, u))).To(Succeed()) })
			}
		})
	}
})

var _ = Describe("SchedulerProfile schema", func() {
	DescribeTable("refuses invalid input, naming the field",
		func(spec string, wantField string, wantMessage string) {
			err := create(profileHead + spec)
			Expect(err).To(HaveOccurred())
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantField))
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("score weight above 100", `
  plugins:
    score:
      enabled:
        - name: NodeResourcesFit
          weight: 101`, "spec.plugins.score.enabled[0].weight", "less than or equal to 100"),
		Entry("negative score weight", `
  plugins:
    score:
      enabled:
        - name: NodeResourcesFit
          weight: -1`, "spec.plugins.score.enabled[0].weight", "greater than or equal to 0"),
		Entry("rollout canary percent 0", `
  rollout:
    steps:
      - canary: {percent: 0, duration: 1m}`, "spec.rollout.steps[0].canary.percent", "greater than or equal to 1"),
		Entry("rollout canary percent 100", `
  rollout:
    steps:
      - canary: {percent: 100, duration: 1m}`, "spec.rollout.steps[0].canary.percent", "percent 100 needs a selector"),
		Entry("rollout canary percent 101, with a selector", `
  rollout:
    steps:
      - canary: {percent: 101, duration: 1m, selector: {podSelector: {matchLabels: {a: b}}}}`, "spec.rollout.steps[0].canary.percent", "less than or equal to 100"),
		Entry("rollout canary selector that selects nothing", `
  rollout:
    steps:
      - canary: {percent: 10, duration: 1m, selector: {}}`, "spec.rollout.steps[0].canary.selector", "a selector names namespaceSelector, podSelector or both"),
		Entry("rollout that starts with a pause", `
  rollout:
    steps:
      - pause: {duration: 1m}`, "spec.rollout.steps", "the first step cannot be a pause"),
		Entry("rollout pause longer than 168h", `
  rollout:
    steps:
      - shadow: {duration: 1m}
      - pause: {duration: 200h}`, "spec.rollout.steps[1].pause.duration", "between 10s and 168h"),
		Entry("rollout pauseTimeout under 10s", `
  rollout:
    pauseTimeout: 1s
    steps:
      - shadow: {duration: 1m}`, "spec.rollout.pauseTimeout", "between 10s and 168h"),
		Entry("rollout analysis interval over 1h", `
  rollout:
    analysis: {interval: 2h}
    steps:
      - shadow: {duration: 1m}`, "spec.rollout.analysis.interval", "between 1s and 1h"),
		Entry("revisionHistoryLimit over 50", `
  revisionHistoryLimit: 51`, "spec.revisionHistoryLimit", "less than or equal to 50"),
		Entry("rollout step duration below 10s", `
  rollout:
    steps:
      - shadow: {duration: 5s}`, "spec.rollout.steps[0].shadow.duration", "duration must be between 10s and 24h"),
		Entry("rollout step duration above 24h", `
  rollout:
    steps:
      - canary: {percent: 10, duration: 25h}`, "spec.rollout.steps[0].canary.duration", "duration must be between 10s and 24h"),
		Entry("rollout step duration that is not a duration", `
  rollout:
    steps:
      - shadow: {duration: soon}`, "spec.rollout.steps[0].shadow", "duration"),
		Entry("rollout step both shadow and canary", `
  rollout:
    steps:
      - shadow: {duration: 1m}
        canary: {percent: 10, duration: 1m}`, "spec.rollout.steps[0]", "a step is exactly one of shadow, canary or pause"),
		Entry("rollout step neither shadow nor canary", `
  rollout:
    steps:
      - {}`, "spec.rollout.steps[0]", "a step is exactly one of shadow, canary or pause"),
		Entry("rollout without steps", `
  rollout:
    steps: []`, "spec.rollout.steps", "at least 1 items"),
		Entry("rollout of 11 steps", `
  rollout:
    steps: [{shadow: {duration: 1m}}, {shadow: {duration: 1m}}, {shadow: {duration: 1m}}, {shadow: {duration: 1m}}, {shadow: {duration: 1m}}, {shadow: {duration: 1m}}, {shadow: {duration: 1m}}, {shadow: {duration: 1m}}, {shadow: {duration: 1m}}, {shadow: {duration: 1m}}, {shadow: {duration: 1m}}]`, "spec.rollout.steps", "at most 10 items"),
		Entry("rollout onFailure not an option", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    onFailure: Retry`, "spec.rollout.onFailure", "Unsupported value"),
		Entry("rollout shadow agreement above 1", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {minShadowAgreement: 1.5}`, "spec.rollout.analysis.minShadowAgreement", "less than or equal to 1"),
		Entry("rollout unschedulable ratio below 1", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {maxUnschedulableRatio: 0.5}`, "spec.rollout.analysis.maxUnschedulableRatio", "greater than or equal to 1"),
		Entry("percentageOfNodesToScore above 100", `
  percentageOfNodesToScore: 101`, "spec.percentageOfNodesToScore", "less than or equal to 100"),
		Entry("negative percentageOfNodesToScore", `
  percentageOfNodesToScore: -5`, "spec.percentageOfNodesToScore", "greater than or equal to 0"),
		Entry("two queueSort plugins", `
  plugins:
    queueSort:
      enabled:
        - name: PrioritySort
        - name: OtherSort`, "spec.plugins", "at most one queueSort plugin may be enabled"),
		Entry("empty plugin name", `
  plugins:
    filter:
      enabled:
        - name: ""`, "spec.plugins.filter.enabled[0].name", "at least 1 chars long"),
		Entry("blank plugin name", `
  plugins:
    filter:
      enabled:
        - name: "  "`, "spec.plugins.filter.enabled[0].name", "plugin name must not be blank"),
		Entry("empty pluginConfig name", `
  pluginConfig:
    - name: ""
      args: {}`, "spec.pluginConfig[0].name", "at least 1 chars long"),
		Entry("schedulerName not a DNS name", `
  schedulerName: "Bin Packing"`, "spec.schedulerName", "should match"),
		Entry("schedulerName with an empty label (the pattern admits it, a pod's schedulerName does not)", `
  schedulerName: "a..b"`, "spec.schedulerName", "spec.schedulerName must be a DNS-1123 subdomain"),
		Entry("extender reference longer than a name", `
  extenders: ["`+strings.Repeat("e", 254)+`"]`, "spec.extenders[0]", "may not be more than 253"),
		Entry("rollout unschedulable ratio above 10", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {maxUnschedulableRatio: 11}`, "spec.rollout.analysis.maxUnschedulableRatio", "less than or equal to 10"),
		Entry("rollout latency ratio above 10", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {maxLatencyRatio: 1000}`, "spec.rollout.analysis.maxLatencyRatio", "less than or equal to 10"),
		Entry("rollout max errors above 1000", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {maxErrors: 1001}`, "spec.rollout.analysis.maxErrors", "less than or equal to 1000"),
		Entry("rollout min samples above 10000", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {minSamples: 2000000000}`, "spec.rollout.analysis.minSamples", "less than or equal to 10000"),
		Entry("rollout extensions above 10", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {maxExtensions: 11}`, "spec.rollout.analysis.maxExtensions", "less than or equal to 10"),
		Entry("rollout metric interval under 1s", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {metrics: [{name: queue-wait, query: up, successCondition: "true", interval: 100ms}]}`, "spec.rollout.analysis.metrics[0].interval", "between 1s and 1h"),
		Entry("rollout metric failureLimit above 100", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {metrics: [{name: queue-wait, query: up, successCondition: "true", failureLimit: 101}]}`, "spec.rollout.analysis.metrics[0].failureLimit", "less than or equal to 100"),
		Entry("rollout metric named as no DNS label", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {metrics: [{name: QueueWait, query: up, successCondition: "true"}]}`, "spec.rollout.analysis.metrics[0].name", "should match"),
		Entry("rollout metric onError neither Fail nor Ignore", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {metrics: [{name: queue-wait, query: up, successCondition: "true", onError: Retry}]}`, "spec.rollout.analysis.metrics[0].onError", "Unsupported value"),
		Entry("rollout metric without a successCondition", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {metrics: [{name: queue-wait, query: up}]}`, "spec.rollout.analysis.metrics[0].successCondition", "Required value"),
		Entry("rollout of 9 metrics", `
  rollout:
    steps: [{shadow: {duration: 1m}}]
    analysis: {metrics: [`+manyMetrics(9)+`]}`, "spec.rollout.analysis.metrics", "must have at most 8 items"),
		Entry("pluginConfig of 65 entries", `
  pluginConfig: [`+manyPluginConfigs(65)+`]`, "spec.pluginConfig", "must have at most 64 items"),
		Entry("duplicate extender reference", `
  extenders: [a, a]`, "spec.extenders[1]", "Duplicate value"),
	)
})

const routeHead = `
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: ProfileRoute
metadata:
  name: invalid
spec:
  profile: bin-packing
`

var _ = Describe("ProfileRoute schema", func() {
	DescribeTable("refuses invalid input, naming the field",
		func(spec string, wantField string, wantMessage string) {
			err := create(routeHead + spec)
			Expect(err).To(HaveOccurred())
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantField))
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("a fromSchedulerName that is not a DNS-1123 subdomain", `
  allNamespaces: true
  fromSchedulerNames: ["a..b"]`, "spec.fromSchedulerNames", "every name must be a DNS-1123 subdomain"),
		Entry("17 fromSchedulerNames", `
  allNamespaces: true
  fromSchedulerNames: [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q]`, "spec.fromSchedulerNames", "must have at most 16 items"),
		Entry("9 matchLabels", `
  namespaceSelector:
    matchLabels: {`+manyLabels(9)+`}`, "spec.namespaceSelector.matchLabels", "must have at most 8 items"),
		Entry("5 matchExpressions", `
  allNamespaces: true
  podSelector:
    matchExpressions: [{key: a, operator: Exists}, {key: b, operator: Exists}, {key: c, operator: Exists}, {key: d, operator: Exists}, {key: e, operator: Exists}]`, "spec.podSelector.matchExpressions", "must have at most 4 items"),
		Entry("9 values", `
  namespaceSelector:
    matchExpressions: [{key: team, operator: In, values: [a, b, c, d, e, f, g, h, i]}]`, "spec.namespaceSelector.matchExpressions[0].values", "must have at most 8 items"),
		Entry("a value longer than a label value", `
  namespaceSelector:
    matchExpressions: [{key: team, operator: In, values: ["`+strings.Repeat("v", 64)+`"]}]`, "spec.namespaceSelector.matchExpressions[0].values[0]", "may not be more than 63"),
		Entry("a key longer than a label key", `
  namespaceSelector:
    matchExpressions: [{key: "`+strings.Repeat("k", 318)+`", operator: Exists}]`, "spec.namespaceSelector.matchExpressions[0].key", "may not be more than 317"),
		Entry("a matchLabels value longer than a label value", `
  namespaceSelector:
    matchLabels: {team: "`+strings.Repeat("v", 64)+`"}`, "spec.namespaceSelector", "matchLabels keys must be at most 317 characters and values at most 63"),
		Entry("an unknown operator", `
  namespaceSelector:
    matchExpressions: [{key: team, operator: Near}]`, "spec.namespaceSelector.matchExpressions[0].operator", "Unsupported value"),
	)
})

var _ = Describe("ExtenderConfig schema", func() {
	DescribeTable("refuses invalid input, naming the field",
		func(spec string, wantField string, wantMessage string) {
			err := create(extenderHead + spec)
			Expect(err).To(HaveOccurred())
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantField))
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("non-http urlPrefix", `
  urlPrefix: ftp://example.com/scheduler`, "spec.urlPrefix", "urlPrefix must start with http:// or https://"),
		Entry("missing urlPrefix", `
  filterVerb: filter`, "spec.urlPrefix", "Required value"),
		Entry("weight above 100", `
  urlPrefix: http://127.0.0.1:8888
  prioritizeVerb: prioritize
  weight: 1000`, "spec.weight", "less than or equal to 100"),
		Entry("prioritize without weight", `
  urlPrefix: http://127.0.0.1:8888
  prioritizeVerb: prioritize`, "spec", "weight must be positive when prioritizeVerb is set"),
		Entry("zero timeout", `
  urlPrefix: http://127.0.0.1:8888
  httpTimeout: 0s`, "spec.httpTimeout", "httpTimeout must be greater than 0s and at most 5m"),
		Entry("timeout above 5m", `
  urlPrefix: http://127.0.0.1:8888
  httpTimeout: 10m`, "spec.httpTimeout", "httpTimeout must be greater than 0s and at most 5m"),
		Entry("verb with a space", `
  urlPrefix: http://127.0.0.1:8888
  filterVerb: "filter nodes"`, "spec.filterVerb", "should match"),
		Entry("tls without https", `
  urlPrefix: http://127.0.0.1:8888
  tlsConfig:
    insecure: true`, "spec", "tlsConfig needs an https urlPrefix or enableHTTPS"),
		Entry("secretRef with an empty namespace (leave it out for the operator's)", `
  urlPrefix: https://127.0.0.1:8888
  tlsConfig:
    secretRef:
      name: ca
      namespace: ""`, "spec.tlsConfig.secretRef.namespace", "should be at least 1 chars long"),
		Entry("secretRef without name", `
  urlPrefix: https://127.0.0.1:8888
  tlsConfig:
    secretRef:
      namespace: ops`, "spec.tlsConfig.secretRef.name", "Required value"),
	)
})

// manyPluginConfigs is a YAML flow list of n pluginConfig entries.
func manyPluginConfigs(n int) string {
	entries := make([]string, n)
	for i := range entries {
		entries[i] = fmt.Sprintf("{name: P%d}", i)
	}
	return strings.Join(entries, ", ")
}

func manyMetrics(n int) string {
	entries := make([]string, n)
	for i := range entries {
		entries[i] = fmt.Sprintf(`{name: m%d, query: up, successCondition: "true"}`, i)
	}
	return strings.Join(entries, ", ")
}
