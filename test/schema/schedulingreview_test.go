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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const reviewHead = `
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: SchedulingReview
metadata:
  name: review
  namespace: default
spec:
`

var _ = Describe("SchedulingReview schema", func() {
	DescribeTable("accepts",
		func(spec string) {
			Expect(create(reviewHead + spec)).To(Succeed())
		},
		Entry("a pod name", `
  podName: web`),
		Entry("a pod group name", `
  podGroupName: training`),
		Entry("a pod template with a profile", `
  profile: bin-packing
  podTemplate:
    labels: {app: web}
    spec:
      schedulerName: bin-packing
      containers: [{name: c, image: nginx}]`),
		Entry("a pod name with a draft profile", `
  podName: web
  profileSpec:
    plugins:
      score:
        enabled: [{name: NodeResourcesFit, weight: 2}]`),
		Entry("what-if with a profile", `
  pendingPods: true
  profile: bin-packing`),
		Entry("what-if with a named draft", `
  pendingPods: true
  profileSpec:
    schedulerName: bin-packing`),
		Entry("a scenario with every field", `
  profile: bin-packing
  pendingPods: true
  scenario:
    addNodes:
    - {fromNode: node-a, count: 2}
    - template: {metadata: {name: big}, status: {allocatable: {cpu: "16", pods: "110"}}}
      count: 1
    removeNodes: {selector: {matchLabels: {pool: old}}}
    pods:
    - podTemplate: {spec: {containers: [{name: c, image: nginx}]}}
      replicas: 40
    - podGroupTemplate: {minCount: 2, podTemplate: {spec: {containers: [{name: c, image: nginx}]}}}
      replicas: 4
    reportBy: pool
    minimize: {fromNode: node-a, max: 0}`),
	)

	It("defaults maxNodes to 10 and ttlSecondsAfterFinished to 600", func() {
		u := object(reviewHead + `
  podName: web`)
		Expect(k8s.Create(ctx, u, client.DryRunAll)).To(Succeed())
		spec := u.Object["spec"].(map[string]any)
		Expect(spec["maxNodes"]).To(BeEquivalentTo(10))
		Expect(spec["ttlSecondsAfterFinished"]).To(BeEquivalentTo(600))
	})

	DescribeTable("refuses invalid input, naming the field",
		func(spec string, wantField string, wantMessage string) {
			err := create(reviewHead + spec)
			Expect(err).To(HaveOccurred())
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantField))
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("neither pod name nor template", `
  profile: bin-packing`, "spec", "exactly one of spec.podName, spec.podTemplate and spec.podGroupName must be set"),
		Entry("both pod name and template", `
  podName: web
  podTemplate:
    spec:
      containers: [{name: c, image: nginx}]`, "spec", "exactly one of spec.podName, spec.podTemplate and spec.podGroupName must be set"),
		Entry("both pod name and pod group", `
  podName: web
  podGroupName: training`, "spec", "exactly one of spec.podName, spec.podTemplate and spec.podGroupName must be set"),
		Entry("both profile and profileSpec", `
  podName: web
  profile: bin-packing
  profileSpec: {}`, "spec", "at most one of spec.profile and spec.profileSpec may be set"),
		Entry("what-if with a pod", `
  pendingPods: true
  profile: bin-packing
  podName: web`, "spec", "exactly one of spec.podName, spec.podTemplate and spec.podGroupName must be set (none with spec.pendingPods or spec.scenario)"),
		Entry("what-if with a pod group", `
  pendingPods: true
  profile: bin-packing
  podGroupName: training`, "spec", "exactly one of spec.podName, spec.podTemplate and spec.podGroupName must be set (none with spec.pendingPods or spec.scenario)"),
		Entry("what-if without a profile", `
  pendingPods: true`, "spec", "spec.pendingPods needs spec.profile or spec.profileSpec"),
		Entry("what-if with an unnamed draft", `
  pendingPods: true
  profileSpec: {}`, "spec", "spec.pendingPods with spec.profileSpec needs spec.schedulerName or spec.profileSpec.schedulerName"),
		Entry("a scenario without a profile", `
  scenario: {reportBy: pool}`, "spec", "spec.scenario needs spec.profile or spec.profileSpec"),
		Entry("a scenario with a pod", `
  profile: bin-packing
  podName: web
  scenario: {reportBy: pool}`, "spec", "(none with spec.pendingPods or spec.scenario)"),
		Entry("added nodes of both shapes", `
  profile: bin-packing
  scenario:
    addNodes: [{fromNode: a, template: {}, count: 1}]`, "spec.scenario.addNodes[0]", "set exactly one of fromNode and template"),
		Entry("a negative count", `
  profile: bin-packing
  scenario:
    addNodes: [{fromNode: a, count: -1}]`, "spec.scenario.addNodes[0].count", "greater than or equal to 0"),
		Entry("an empty node selection", `
  profile: bin-packing
  scenario:
    removeNodes: {}`, "spec.scenario.removeNodes", "set names or selector"),
		Entry("pods of both kinds", `
  profile: bin-packing
  scenario:
    pods: [{podTemplate: {spec: {}}, podGroupTemplate: {minCount: 1, podTemplate: {spec: {}}}, replicas: 1}]`, "spec.scenario.pods[0]", "set exactly one of podTemplate and podGroupTemplate"),
		Entry("a negative minimize max", `
  profile: bin-packing
  scenario:
    minimize: {fromNode: a, max: -1}`, "spec.scenario.minimize.max", "greater than or equal to 0"),
		Entry("maxNodes 0", `
  podName: web
  maxNodes: 0`, "spec.maxNodes", "greater than or equal to 1"),
		Entry("negative ttl", `
  podName: web
  ttlSecondsAfterFinished: -1`, "spec.ttlSecondsAfterFinished", "greater than or equal to 0"),
		Entry("ttl over a week", `
  podName: web
  ttlSecondsAfterFinished: 604801`, "spec.ttlSecondsAfterFinished", "less than or equal to 604800"),
		Entry("a what-if schedulerName that is not a DNS-1123 subdomain", `
  pendingPods: true
  profile: bin-packing
  schedulerName: "a..b"`, "spec.schedulerName", "spec.schedulerName must be a DNS-1123 subdomain"),
		Entry("more added nodes in one entry than the budget", `
  profile: bin-packing
  scenario:
    addNodes: [{fromNode: a, count: 1001}]`, "spec.scenario.addNodes[0].count", "less than or equal to 1000"),
		Entry("more added nodes in all entries than the budget", `
  profile: bin-packing
  scenario:
    addNodes: [{fromNode: a, count: 600}, {fromNode: b, count: 401}]`, "spec.scenario.addNodes", "the counts add up to more than 1000 nodes"),
		Entry("more replicas in one entry than the budget", `
  profile: bin-packing
  scenario:
    pods: [{podTemplate: {spec: {}}, replicas: 2001}]`, "spec.scenario.pods[0].replicas", "less than or equal to 2000"),
		Entry("more replicas in all entries than the budget", `
  profile: bin-packing
  scenario:
    pods: [{podTemplate: {spec: {}}, replicas: 1500}, {podGroupTemplate: {minCount: 1, podTemplate: {spec: {}}}, replicas: 501}]`, "spec.scenario.pods", "the replicas add up to more than 2000 pods"),
		Entry("a minimize max over the budget", `
  profile: bin-packing
  scenario:
    minimize: {fromNode: a, max: 1001}`, "spec.scenario.minimize.max", "less than or equal to 1000"),
		Entry("a pod group's minCount over the budget", `
  profile: bin-packing
  scenario:
    pods: [{podGroupTemplate: {minCount: 2001, podTemplate: {spec: {}}}, replicas: 1}]`, "spec.scenario.pods[0].podGroupTemplate.minCount", "less than or equal to 2000"),
		Entry("a removed node's name longer than a node name", `
  profile: bin-packing
  scenario:
    removeNodes: {names: ["`+strings.Repeat("n", 254)+`"]}`, "spec.scenario.removeNodes.names[0]", "may not be more than 253"),
		Entry("a drain selector of 5 expressions", `
  profile: bin-packing
  scenario:
    removeNodes: {selector: {matchExpressions: [{key: a, operator: Exists}, {key: b, operator: Exists}, {key: c, operator: Exists}, {key: d, operator: Exists}, {key: e, operator: Exists}]}}`, "spec.scenario.removeNodes.selector.matchExpressions", "must have at most 4 items"),
		Entry("a pod template of 65 labels", `
  podTemplate:
    labels: {`+manyLabels(65)+`}
    spec: {}`, "spec.podTemplate.labels", "must have at most 64 items"),
		Entry("an invalid draft", `
  podName: web
  profileSpec:
    percentageOfNodesToScore: 101`, "spec.profileSpec.percentageOfNodesToScore", "less than or equal to 100"),
	)
})

// manyLabels is a YAML flow map of n labels.
func manyLabels(n int) string {
	labels := make([]string, n)
	for i := range labels {
		labels[i] = fmt.Sprintf("l%d: v", i)
	}
	return strings.Join(labels, ", ")
}
