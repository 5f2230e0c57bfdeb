package schema

import (
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
  podName: web`, "spec", "exactly one of spec.podName, spec.podTemplate and spec.podGroupName must be set (none with spec.pendingPods)"),
		Entry("what-if with a pod group", `
  pendingPods: true
  profile: bin-packing
  podGroupName: training`, "spec", "exactly one of spec.podName, spec.podTemplate and spec.podGroupName must be set (none with spec.pendingPods)"),
		Entry("what-if without a profile", `
  pendingPods: true`, "spec", "spec.pendingPods needs spec.profile or spec.profileSpec"),
		Entry("what-if with an unnamed draft", `
  pendingPods: true
  profileSpec: {}`, "spec", "spec.pendingPods with spec.profileSpec needs spec.schedulerName or spec.profileSpec.schedulerName"),
		Entry("maxNodes 0", `
  podName: web
  maxNodes: 0`, "spec.maxNodes", "greater than or equal to 1"),
		Entry("negative ttl", `
  podName: web
  ttlSecondsAfterFinished: -1`, "spec.ttlSecondsAfterFinished", "greater than or equal to 0"),
		Entry("an invalid draft", `
  podName: web
  profileSpec:
    percentageOfNodesToScore: 101`, "spec.profileSpec.percentageOfNodesToScore", "less than or equal to 100"),
	)
})
