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
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func newReview(ns, name string, spec v1alpha1.SchedulingReviewSpec) *v1alpha1.SchedulingReview {
	return &v1alpha1.SchedulingReview{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
}

// answered waits for the review's Complete or Failed condition and returns
// the review as then read.
func answered(sr *v1alpha1.SchedulingReview) *v1alpha1.SchedulingReview {
	GinkgoHelper()
	got := &v1alpha1.SchedulingReview{}
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(sr), got)).To(Succeed())
		g.Expect(got.Finished()).To(BeTrue())
	}).WithTimeout(timeout).WithPolling(50 * time.Millisecond).Should(Succeed())
	return got
}

func condition(sr *v1alpha1.SchedulingReview, typ string) *metav1.Condition {
	return meta.FindStatusCondition(sr.Status.Conditions, typ)
}

// preferNode makes the pod prefer one node by hostname.
func preferNode(node string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
				Weight: 100,
				Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node},
				}}},
			}},
		}}
	}
}

func gated(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "hold"}} }

// requestsNothing lets the pod fit on any node, whatever pods other specs
// left on the suite's nodes.
func requestsNothing(p *corev1.Pod) { p.Spec.Containers[0].Resources = corev1.ResourceRequirements{} }

var _ = Describe("SchedulingReview", func() {
	var ns string
	BeforeEach(func() {
		ns = createNamespace("review")
	})

	It("answers once with the node the profile then binds the pod to, and the profile generation that served", func() {
		Expect(k8s.Create(suiteCtx, newProfile("sr-live", v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
		DeferCleanup(deleteProfile, "sr-live")
		sp := expectLive("sr-live", timeout)
		pod := createPod(ns, "web", "sr-live", preferNode("node-2"), gated, requestsNothing)

		sr := newReview(ns, "why-web", v1alpha1.SchedulingReviewSpec{PodName: "web"})
		Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
		got := answered(sr)
		complete := condition(got, v1alpha1.ConditionComplete)
		Expect(complete).NotTo(BeNil())
		Expect(complete.Reason).To(Equal(v1alpha1.ReasonAnswered))
		Expect(complete.ObservedGeneration).To(Equal(got.Generation))
		Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		Expect(got.Status.Profile).To(Equal("sr-live"))
		Expect(got.Status.ProfileGeneration).To(Equal(sp.Status.ActiveGeneration))
		Expect(got.Status.SchedulerName).To(Equal("sr-live"))
		Expect(got.Status.SnapshotNodes).To(BeNumerically(">=", 3))
		res := got.Status.Result
		Expect(res).NotTo(BeNil())
		Expect(res.Pod).To(Equal(ns + "/web"))
		Expect(res.SelectedNode).To(Equal("node-2"), "rejected: %+v", res.Rejected)
		Expect(res.Nodes).To(HaveLen(int(res.FeasibleNodes)))
		Expect(len(res.Nodes)).To(BeNumerically(">=", 2), "rejected: %+v", res.Rejected)
		Expect(res.Nodes[0].Node).To(Equal("node-2"))
		Expect(res.Nodes[0].Rank).To(BeEquivalentTo(1))
		Expect(res.Nodes[0].TotalScore).To(BeNumerically(">", res.Nodes[1].TotalScore))
		// The NodeAffinity column: raw 100 for the preferred node-2, listed
		// first, 0 for every other node.
		affinity := make([]int64, len(res.Nodes))
		affinity[0] = 100
		Expect(res.Scores).To(ContainElement(And(
			HaveField("Plugin", "NodeAffinity"),
			HaveField("Raw", Equal(affinity)),
			HaveField("Weight", BeEquivalentTo(2)),
		)))
		for _, col := range res.Scores {
			Expect(col.Weighted).To(HaveLen(len(res.Nodes)), "plugin %s", col.Plugin)
		}
		Expect(res.Sampling).NotTo(BeNil())
		Expect(res.Sampling.AllNodes).To(BeTrue())

		p := &corev1.Pod{}
		Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(pod), p)).To(Succeed())
		p.Spec.SchedulingGates = nil
		Expect(k8s.Update(suiteCtx, p)).To(Succeed())
		Expect(boundNode(pod, timeout)).To(Equal(res.SelectedNode))

		By("never answering again, even when the spec changes")
		base := got.DeepCopy()
		got.Spec.MaxNodes = ptr.To[int32](3)
		Expect(k8s.Patch(suiteCtx, got, client.MergeFrom(base))).To(Succeed())
		Consistently(func(g Gomega) v1alpha1.SchedulingReviewStatus {
			again := &v1alpha1.SchedulingReview{}
			g.Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(sr), again)).To(Succeed())
			return again.Status
		}).WithTimeout(2 * time.Second).WithPolling(200 * time.Millisecond).Should(Equal(base.Status))
	})

	It("predicts with a draft profile and a pod template, and applies nothing", func() {
		sr := newReview(ns, "draft", v1alpha1.SchedulingReviewSpec{
			ProfileSpec: &v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("sr-draft"), PluginConfig: fitArgs("MostAllocated")},
			PodTemplate: &v1alpha1.ReviewPodTemplate{Labels: map[string]string{"app": "web"}, Spec: v1alpha1.PodSpecTemplate(corev1.PodSpec{
				SchedulerName: "sr-draft",
				NodeSelector:  map[string]string{corev1.LabelHostname: "node-3"},
				Containers:    []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
			})},
		})
		Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
		got := answered(sr)
		Expect(condition(got, v1alpha1.ConditionComplete)).NotTo(BeNil(), "%+v", got.Status.Conditions)
		Expect(got.Status.Draft).To(BeTrue())
		Expect(got.Status.Profile).To(BeEmpty())
		Expect(got.Status.SchedulerName).To(Equal("sr-draft"))
		Expect(got.Status.Result.SelectedNode).To(Equal("node-3"))
		Expect(got.Status.Result.FeasibleNodes).To(BeEquivalentTo(1))
		Expect(got.Status.Result.Rejected).To(ContainElement(And(
			HaveField("Plugin", "NodeAffinity"),
			HaveField("Reason", "node(s) didn't match Pod's node affinity/selector"),
			HaveField("Nodes", Equal([]string{"node-1", "node-2"})),
		)))
		Expect(op.sched.Serving("sr-draft")).To(BeFalse())
	})

	DescribeTable("fails, naming the field, when it cannot be answered",
		func(spec v1alpha1.SchedulingReviewSpec, reason, field string) {
			sr := newReview(ns, "bad", spec)
			Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
			got := answered(sr)
			c := condition(got, v1alpha1.ConditionFailed)
			Expect(c).NotTo(BeNil())
			Expect(c.Reason).To(Equal(reason), c.Message)
			Expect(c.Message).To(HavePrefix(field))
			Expect(condition(got, v1alpha1.ConditionComplete)).To(BeNil())
			Expect(got.Status.Result).To(BeNil())
		},
		Entry("unknown pod", v1alpha1.SchedulingReviewSpec{PodName: "nope"}, v1alpha1.ReasonPodNotFound, "spec.podName"),
		Entry("unknown profile", v1alpha1.SchedulingReviewSpec{PodName: "nope", Profile: "no-such-profile"}, v1alpha1.ReasonProfileNotFound, "spec.profile"),
		Entry("a pod no profile serves", v1alpha1.SchedulingReviewSpec{PodTemplate: &v1alpha1.ReviewPodTemplate{Spec: v1alpha1.PodSpecTemplate(corev1.PodSpec{
			SchedulerName: "nobody", Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
		})}}, v1alpha1.ReasonProfileNotServing, "spec.podName"),
		Entry("a draft naming an unknown plugin", v1alpha1.SchedulingReviewSpec{PodName: "nope", ProfileSpec: &v1alpha1.SchedulerProfileSpec{
			Plugins: &v1alpha1.Plugins{Filter: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchPlugin"}}}},
		}}, v1alpha1.ReasonUnknownPlugin, "spec.profileSpec"),
		Entry("a draft with bad plugin args", v1alpha1.SchedulingReviewSpec{PodName: "nope", ProfileSpec: &v1alpha1.SchedulerProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{"scoringStrategy":{"type":"Nope"}}`)}},
		}}, v1alpha1.ReasonInvalidPluginArgs, "spec.profileSpec"),
		Entry("a draft naming a missing extender", v1alpha1.SchedulingReviewSpec{PodName: "nope", ProfileSpec: &v1alpha1.SchedulerProfileSpec{
			Extenders: []string{"no-such-extender"},
		}}, v1alpha1.ReasonExtenderNotFound, "spec.profileSpec"),
	)

	It("refuses a draft with the reason a SchedulerProfile of the same spec gets", func() {
		spec := v1alpha1.SchedulerProfileSpec{Plugins: &v1alpha1.Plugins{Score: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchScore"}}}}}
		Expect(k8s.Create(suiteCtx, newProfile("sr-broken", spec))).To(Succeed())
		DeferCleanup(deleteProfile, "sr-broken")
		sp := expectRefused("sr-broken", v1alpha1.ReasonUnknownPlugin, timeout)

		sr := newReview(ns, "broken-draft", v1alpha1.SchedulingReviewSpec{PodName: "nope", ProfileSpec: &spec, SchedulerName: "sr-broken"})
		Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
		c := condition(answered(sr), v1alpha1.ConditionFailed)
		Expect(c.Reason).To(Equal(v1alpha1.ReasonUnknownPlugin))
		Expect(c.Message).To(ContainSubstring(`"NoSuchScore" does not exist`))
		Expect(readyMessage(sp)).To(ContainSubstring(`"NoSuchScore" does not exist`))
	})

	It("is refused by the schema when it names both a profile and a draft", func() {
		err := k8s.Create(suiteCtx, newReview(ns, "both", v1alpha1.SchedulingReviewSpec{PodName: "web", Profile: "x", ProfileSpec: &v1alpha1.SchedulerProfileSpec{}}))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("at most one of spec.profile and spec.profileSpec may be set"))
	})

	It("is refused by the schema when it names a pod and a pod group, and fails naming spec.podGroupName for a group the scheduler does not know", func() {
		err := k8s.Create(suiteCtx, newReview(ns, "both", v1alpha1.SchedulingReviewSpec{PodName: "web", PodGroupName: "train"}))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("exactly one of spec.podName, spec.podTemplate and spec.podGroupName must be set"))

		sr := newReview(ns, "nope", v1alpha1.SchedulingReviewSpec{PodGroupName: "nope"})
		Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
		c := condition(answered(sr), v1alpha1.ConditionFailed)
		Expect(c.Reason).To(Equal(v1alpha1.ReasonPodGroupNotFound))
		Expect(c.Message).To(HavePrefix("spec.podGroupName: pod group not found: "))
	})

	It("answers what-if for the pending pods of a draft's schedulerName, lists its own namespace's pods only", func() {
		other := createNamespace("review-other")
		// The pods request nothing: pods other specs left bound may fill
		// the suite's nodes, and then not all three would be placed.
		createPod(ns, "a", "sr-whatif", requestingNothing)
		createPod(ns, "b", "sr-whatif", requestingNothing)
		createPod(other, "c", "sr-whatif", requestingNothing)
		// A review answers from the scheduler's informers: ask again (a
		// review is answered once) until they have seen the three pods.
		var got *v1alpha1.SchedulingReview
		attempt := 0
		Eventually(func(g Gomega) {
			sr := newReview(ns, fmt.Sprintf("what-if-%d", attempt), v1alpha1.SchedulingReviewSpec{
				PendingPods: true,
				ProfileSpec: &v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("sr-whatif")},
			})
			attempt++
			g.Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
			got = answered(sr)
			if got.Status.WhatIf == nil {
				StopTrying("the review has no what-if answer").Wrap(fmt.Errorf("conditions %+v", got.Status.Conditions)).Now()
			}
			g.Expect(got.Status.WhatIf.PendingPods).To(BeEquivalentTo(3))
		}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())
		Expect(condition(got, v1alpha1.ConditionComplete)).NotTo(BeNil(), "%+v", got.Status.Conditions)
		w := got.Status.WhatIf
		Expect(w).NotTo(BeNil())
		Expect(w.PendingPods).To(BeEquivalentTo(3))
		Expect(w.Placed).To(BeEquivalentTo(3))
		Expect(w.Pods).To(HaveLen(2))
		for _, p := range w.Pods {
			Expect(p.Pod).To(HavePrefix(ns + "/"))
			Expect(p.Node).NotTo(BeEmpty())
		}
		Expect(condition(got, v1alpha1.ConditionComplete).Message).To(ContainSubstring("3 of 3 pending pods would be placed"))
		p := &corev1.Pod{}
		Expect(k8s.Get(suiteCtx, client.ObjectKey{Namespace: ns, Name: "a"}, p)).To(Succeed())
		Expect(p.Spec.NodeName).To(BeEmpty())
	})

	It("names no pod of another namespace: preemption victims and an overcommitted node's pods are counted", func() {
		other := createNamespace("review-tenant")
		pool := "sr-tenancy"
		createNode(pool, map[string]string{"pool": pool}, []corev1.Taint{{Key: "pool", Value: pool, Effect: corev1.TaintEffectNoSchedule}})
		boundHere := func(cpu string) podOption {
			return func(p *corev1.Pod) {
				onPool(pool)(p)
				p.Spec.NodeName = pool
				p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
			}
		}
		createPod(ns, "batch-1", corev1.DefaultSchedulerName, boundHere("16"))
		createPod(other, "payroll-db-0", corev1.DefaultSchedulerName, boundHere("16"))
		draft := &v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("sr-tenancy")}
		attempt := 0
		answer := func(spec v1alpha1.SchedulingReviewSpec, done func(*v1alpha1.SchedulingReview) bool) *v1alpha1.SchedulingReview {
			GinkgoHelper()
			var got *v1alpha1.SchedulingReview
			// Asked again until the scheduler's informers have the pods.
			Eventually(func() bool {
				sr := newReview(ns, fmt.Sprintf("tenancy-%d", attempt), spec)
				attempt++
				Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
				got = answered(sr)
				return done(got)
			}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(BeTrue())
			raw, err := json.Marshal(got.Status)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(raw)).NotTo(ContainSubstring(other), "the review names a pod of another namespace")
			Expect(string(raw)).NotTo(ContainSubstring("payroll"))
			return got
		}

		By("a high-priority pod that fits only by preempting both bound pods")
		pod := corev1.PodSpec{
			SchedulerName: "sr-tenancy",
			Priority:      ptr.To[int32](1000),
			Containers:    []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
		}
		preemptor := &corev1.Pod{Spec: pod}
		preemptor.Spec.Containers[0].Resources.Requests = corev1.ResourceList{}
		boundHere("20")(preemptor)
		preemptor.Spec.NodeName = ""
		got := answer(v1alpha1.SchedulingReviewSpec{ProfileSpec: draft, PodTemplate: &v1alpha1.ReviewPodTemplate{Spec: v1alpha1.PodSpecTemplate(preemptor.Spec)}},
			func(sr *v1alpha1.SchedulingReview) bool {
				r := sr.Status.Result
				return r != nil && r.Preemption != nil && r.Preemption.Node == pool && len(r.Preemption.Victims)+int(r.Preemption.OtherNamespaceVictims) == 2
			})
		Expect(got.Status.Result.Preemption.Victims).To(Equal([]string{ns + "/batch-1"}))
		Expect(got.Status.Result.Preemption.OtherNamespaceVictims).To(BeEquivalentTo(1))

		By("a bound pod on a node another namespace's pod overcommits")
		createPod(other, "payroll-db-1", corev1.DefaultSchedulerName, boundHere("8"))
		got = answer(v1alpha1.SchedulingReviewSpec{ProfileSpec: draft, PodName: "batch-1"}, func(sr *v1alpha1.SchedulingReview) bool {
			return sr.Status.Result != nil && strings.Contains(sr.Status.Result.Overcommitted, "2 pods")
		})
		Expect(got.Status.Result.Overcommitted).To(Equal("cpu 40 > 32; bound pods: " + ns + "/batch-1 (default-scheduler), 2 pods of other namespaces"))
	})

	It("is deleted ttlSecondsAfterFinished after it finished", func() {
		// The finish time is kept to the second: a review lives 1-2 s
		// after finishing with a TTL of 2, long enough to be seen
		// finished (with a TTL of 1 it could go within milliseconds, and
		// a busy machine missed it once).
		sr := newReview(ns, "short", v1alpha1.SchedulingReviewSpec{PodName: "nope", TTLSecondsAfterFinished: ptr.To[int32](2)})
		created := time.Now()
		Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
		var finished bool
		Eventually(func() bool {
			got := &v1alpha1.SchedulingReview{}
			err := k8s.Get(suiteCtx, client.ObjectKeyFromObject(sr), got)
			if err == nil {
				finished = finished || got.Finished()
				return false
			}
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), err.Error())
			return true
		}).WithTimeout(timeout).WithPolling(50 * time.Millisecond).Should(BeTrue())
		Expect(finished).To(BeTrue(), "seen finished before it was deleted")
		Expect(time.Since(created)).To(BeNumerically(">=", time.Second), "kept for its TTL")
	})
})
