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
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// poolNode is a ready node of pool (labelled and tainted pool=NAME, so that
// only the pods of onPool(pool) go there) with cpu CPUs, 2Gi per CPU and
// 110 pods.
func poolNode(name, pool string, cpu int64, labels map[string]string) *corev1.Node {
	node := controlplane.Node(name, corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(cpu*2<<30, resource.BinarySI),
		corev1.ResourcePods:   resource.MustParse("110"),
	})
	node.Labels["pool"] = pool
	for k, v := range labels {
		node.Labels[k] = v
	}
	node.Spec.Taints = []corev1.Taint{{Key: "pool", Value: pool, Effect: corev1.TaintEffectNoSchedule}}
	return node
}

func createPoolNode(node *corev1.Node) {
	GinkgoHelper()
	Expect(controlplane.CreateReadyNode(suiteCtx, k8s, node.DeepCopy())).To(Succeed())
	DeferCleanup(func() {
		Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node.Name}}))).To(Succeed())
	})
}

func requestingCPU(milli int64) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(milli, resource.DecimalSI)
	}
}

func withPriorityClass(name string) podOption {
	return func(p *corev1.Pod) { p.Spec.PriorityClassName = name }
}

func onNode(node string) podOption { return func(p *corev1.Pod) { p.Spec.NodeName = node } }

// scenarioAnswer creates reviews of spec until one is answered with a
// scenario that satisfies ready (the operator answers from its informers,
// which may not have seen the spec's latest objects yet), and returns it.
func scenarioAnswer(ns, prefix string, spec v1alpha1.SchedulingReviewSpec, ready func(*v1alpha1.ScenarioResult) bool) *v1alpha1.SchedulingReview {
	GinkgoHelper()
	var got *v1alpha1.SchedulingReview
	attempt := 0
	Eventually(func(g Gomega) {
		sr := newReview(ns, fmt.Sprintf("%s-%d", prefix, attempt), spec)
		attempt++
		g.Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
		got = answered(sr)
		if got.Status.Scenario == nil {
			StopTrying("the review has no scenario answer").Wrap(fmt.Errorf("conditions %+v", got.Status.Conditions)).Now()
		}
		g.Expect(ready(got.Status.Scenario)).To(BeTrue(), "scenario %+v", got.Status.Scenario)
	}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
	return got
}

func nodeTemplate(node *corev1.Node) *runtime.RawExtension {
	data, err := json.Marshal(node)
	Expect(err).NotTo(HaveOccurred())
	return &runtime.RawExtension{Raw: data}
}

// scenarioPodSpec is createPod's pod as a template: cpu milli-CPUs, 1Gi,
// on pool.
func scenarioPodSpec(schedulerName, pool string, cpu int64) runtime.RawExtension {
	pod := &corev1.Pod{Spec: corev1.PodSpec{SchedulerName: schedulerName, Containers: []corev1.Container{{
		Name: "pause", Image: "registry.k8s.io/pause:3.10",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
			corev1.ResourceMemory: resource.MustParse("1Gi"),
		}},
	}}}}
	onPool(pool)(pod)
	return v1alpha1.PodSpecTemplate(pod.Spec)
}

var _ = Describe("SchedulingReview scenarios", func() {
	var ns, pool, profile string
	BeforeEach(func() {
		ns = createNamespace("scenario")
		pool, profile = ns, "sc-"+ns
		Expect(k8s.Create(suiteCtx, newProfile(profile, v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
		DeferCleanup(deleteProfile, profile)
		expectLive(profile, timeout)
	})

	It("predicts where a drain's pods land, in priority order, and they land there when the nodes are really drained", func() {
		for _, pc := range []struct {
			name  string
			value int32
		}{{pool + "-high", 1000}, {pool + "-low", 10}} {
			Expect(k8s.Create(suiteCtx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: pc.name}, Value: pc.value})).To(Succeed())
			DeferCleanup(k8s.Delete, suiteCtx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: pc.name}})
		}
		drained := map[string]string{"role": "drained"}
		createPoolNode(poolNode(pool+"-d1", pool, 8, drained))
		createPoolNode(poolNode(pool+"-d2", pool, 8, drained))
		createPoolNode(poolNode(pool+"-k1", pool, 4, map[string]string{"role": "kept"}))
		createPoolNode(poolNode(pool+"-k2", pool, 3, map[string]string{"role": "kept"}))
		createPod(ns, "ballast", profile, onPool(pool), onNode(pool+"-k1"), requestingCPU(1000), withPriorityClass(pool+"-low"))
		// 7 CPUs to move to the 6 the kept nodes have free: the
		// high-priority pods go first, and one low-priority pod does not
		// fit.
		evicted := []struct {
			name, node, class string
			cpu               int64
		}{
			{"lo-a", "d1", "low", 1000}, {"hi-a", "d1", "high", 1500}, {"lo-b", "d1", "low", 1500},
			{"hi-b", "d2", "high", 1000}, {"lo-c", "d2", "low", 500}, {"lo-d", "d2", "low", 1500},
		}
		for _, e := range evicted {
			createPod(ns, e.name, profile, onPool(pool), onNode(pool+"-"+e.node), requestingCPU(e.cpu), withPriorityClass(pool+"-"+e.class))
		}

		By("predicting")
		spec := v1alpha1.SchedulingReviewSpec{Profile: profile, Scenario: &v1alpha1.ReviewScenario{
			RemoveNodes: &v1alpha1.ScenarioNodeSelection{Selector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"pool": pool, "role": "drained"}}},
			ReportBy:    "pool",
		}}
		got := scenarioAnswer(ns, "drain", spec, func(s *v1alpha1.ScenarioResult) bool { return s.Evicted == int32(len(evicted)) })
		Expect(condition(got, v1alpha1.ConditionComplete)).NotTo(BeNil(), "%+v", got.Status.Conditions)
		sc := got.Status.Scenario
		Expect(sc.RemovedNodes).To(BeEquivalentTo(2))
		Expect(sc.Pods).To(BeEquivalentTo(len(evicted)))
		Expect(sc.Unplaced).NotTo(BeEmpty(), "7 CPUs do not fit in 6")
		predicted := map[string]string{}
		for _, p := range sc.PlacedPods {
			Expect(p.Source).To(Equal("Evicted"))
			Expect(p.FromNode).To(HavePrefix(pool + "-d"))
			Expect(p.TiedNodes).To(BeZero(), "%s: the nodes differ, no placement is left to chance", p.Pod)
			predicted[strings.TrimPrefix(p.Pod, ns+"/")] = p.Node
		}
		for _, p := range sc.Unplaced {
			Expect(p.Message).To(ContainSubstring("Insufficient cpu"))
			predicted[strings.TrimPrefix(p.Pod, ns+"/")] = ""
		}
		Expect(predicted).To(HaveKey("hi-a"))
		Expect(predicted["hi-a"]).NotTo(BeEmpty(), "the high-priority pods are placed first")
		Expect(predicted["hi-b"]).NotTo(BeEmpty(), "the high-priority pods are placed first")
		var poolLine *v1alpha1.PoolUtilization
		for i := range sc.Utilization {
			if sc.Utilization[i].Pool == pool {
				poolLine = &sc.Utilization[i]
			}
		}
		Expect(poolLine).NotTo(BeNil(), "utilization %+v", sc.Utilization)
		Expect(poolLine.Before.Nodes).To(BeEquivalentTo(4))
		Expect(poolLine.After.Nodes).To(BeEquivalentTo(2))
		Expect(poolLine.After.CPU).To(BeNumerically(">", poolLine.Before.CPU))
		By("changing nothing")
		for _, e := range evicted {
			p := &corev1.Pod{}
			Expect(k8s.Get(suiteCtx, client.ObjectKey{Namespace: ns, Name: e.name}, p)).To(Succeed())
			Expect(p.Spec.NodeName).To(Equal(pool + "-" + e.node))
		}

		By("draining the nodes for real: cordoned, their pods deleted and recreated in queue order, each once the one before was decided")
		for _, n := range []string{pool + "-d1", pool + "-d2"} {
			node := &corev1.Node{}
			Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: n}, node)).To(Succeed())
			base := node.DeepCopy()
			node.Spec.Unschedulable = true
			Expect(k8s.Patch(suiteCtx, node, client.MergeFrom(base))).To(Succeed())
		}
		created := map[string]time.Time{}
		for _, e := range evicted {
			p := &corev1.Pod{}
			Expect(k8s.Get(suiteCtx, client.ObjectKey{Namespace: ns, Name: e.name}, p)).To(Succeed())
			created[e.name] = p.CreationTimestamp.Time
			Expect(k8s.Delete(suiteCtx, p, client.GracePeriodSeconds(0))).To(Succeed())
		}
		// The order the review placed them in, the queue's for pods
		// recreated at once: priority, then creation (of the pod
		// replaced), then name.
		order := slices.Clone(evicted)
		slices.SortStableFunc(order, func(a, b struct {
			name, node, class string
			cpu               int64
		}) int {
			if a.class != b.class {
				return strings.Compare(a.class, b.class) // "high" < "low"
			}
			if c := created[a.name].Compare(created[b.name]); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		})
		for _, e := range order {
			Eventually(func() error {
				return k8s.Get(suiteCtx, client.ObjectKey{Namespace: ns, Name: e.name}, &corev1.Pod{})
			}).WithTimeout(timeout).Should(Satisfy(func(err error) bool { return client.IgnoreNotFound(err) == nil && err != nil }))
			pod := createPod(ns, e.name, profile, onPool(pool), requestingCPU(e.cpu), withPriorityClass(pool+"-"+e.class))
			if want := predicted[e.name]; want != "" {
				Expect(boundNode(pod, timeout)).To(Equal(want), "pod %s", e.name)
				continue
			}
			Eventually(func(g Gomega) {
				p := &corev1.Pod{}
				g.Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(pod), p)).To(Succeed())
				g.Expect(p.Spec.NodeName).To(BeEmpty())
				g.Expect(p.Status.Conditions).To(ContainElement(And(HaveField("Type", corev1.PodScheduled), HaveField("Reason", corev1.PodReasonUnschedulable))))
			}).WithTimeout(timeout).Should(Succeed(), "pod %s is predicted to stay pending", e.name)
		}
		for _, e := range order {
			if predicted[e.name] == "" {
				staysPending(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: e.name}}, time.Second)
			}
		}
	})

	It("answers the smallest count of a node shape that places every pod, and that count really does, one fewer does not", func() {
		createPoolNode(poolNode(pool+"-n1", pool, 4, nil))
		shape := poolNode(pool+"-new", pool, 4, nil)
		const replicas = 10 // of 1 CPU: 4 fit now, 2 more nodes of 4 are needed
		spec := v1alpha1.SchedulingReviewSpec{Profile: profile, Scenario: &v1alpha1.ReviewScenario{
			Pods:     []v1alpha1.ScenarioPods{{PodTemplate: &v1alpha1.ReviewPodTemplate{Spec: scenarioPodSpec(profile, pool, 1000)}, Replicas: replicas}},
			Minimize: &v1alpha1.ScenarioMinimize{NodeShape: v1alpha1.NodeShape{Template: nodeTemplate(shape)}, Max: 40},
			ReportBy: "pool",
		}}
		got := scenarioAnswer(ns, "min", spec, func(s *v1alpha1.ScenarioResult) bool {
			for _, u := range s.Utilization {
				if u.Pool == pool && u.Before.Nodes == 1 {
					return true
				}
			}
			return false
		})
		m := got.Status.Scenario.Minimize
		Expect(m).NotTo(BeNil())
		Expect(m.Found).To(BeTrue(), "%+v", got.Status.Scenario)
		Expect(m.Count).To(BeNumerically(">", 0))
		counts := map[int32]int32{}
		for _, t := range m.Tried {
			counts[t.Count] = t.Unplaced
		}
		Expect(counts).To(HaveKeyWithValue(m.Count, BeZero()))
		Expect(counts).To(HaveKeyWithValue(m.Count-1, BeNumerically(">", 0)))
		Expect(got.Status.Scenario.Placed).To(BeEquivalentTo(replicas))
		Expect(got.Status.Scenario.PlacedPods).To(ContainElement(HaveField("TiedNodes", BeNumerically(">=", 2))),
			"the first pod ties between the empty nodes of one shape")
		Expect(condition(got, v1alpha1.ConditionComplete).Message).To(ContainSubstring(fmt.Sprintf("the smallest count of nodes that places them all is %d", m.Count)))

		By("adding one node fewer than answered, for real: some pods stay pending")
		for i := 1; i < int(m.Count); i++ {
			createPoolNode(poolNode(fmt.Sprintf("%s-%d", shape.Name, i), pool, 4, nil))
		}
		var pods []*corev1.Pod
		for i := range replicas {
			pods = append(pods, createPod(ns, fmt.Sprintf("work-%d", i), profile, onPool(pool), requestingCPU(1000)))
		}
		bound := func() int {
			n := 0
			for _, p := range pods {
				got := &corev1.Pod{}
				if k8s.Get(suiteCtx, client.ObjectKeyFromObject(p), got) == nil && got.Spec.NodeName != "" {
					n++
				}
			}
			return n
		}
		fit := 4 * int(m.Count)
		Eventually(bound).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Equal(fit))
		Consistently(bound).WithTimeout(2 * time.Second).WithPolling(200 * time.Millisecond).Should(Equal(fit))

		By("adding the last one: every pod is bound")
		createPoolNode(poolNode(fmt.Sprintf("%s-%d", shape.Name, m.Count), pool, 4, nil))
		Eventually(bound).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Equal(replicas))
	})

	It("fails a scenario it cannot run naming the field, answers the bounded ones, and the profile keeps serving", func() {
		createPoolNode(poolNode(pool+"-n1", pool, 4, map[string]string{"role": "only"}))
		noAllocatable := poolNode("t", pool, 4, nil)
		noAllocatable.Status.Allocatable = nil
		badQuantity := nodeTemplate(poolNode("t", pool, 4, nil))
		badQuantity.Raw = []byte(strings.Replace(string(badQuantity.Raw), `"allocatable":{"cpu":"4"`, `"allocatable":{"cpu":"four"`, 1))
		Expect(string(badQuantity.Raw)).To(ContainSubstring(`"four"`))
		podTemplate := &v1alpha1.ReviewPodTemplate{Spec: scenarioPodSpec(profile, pool, 1000)}

		for _, tc := range []struct {
			name      string
			scenario  v1alpha1.ReviewScenario
			reason    string
			inMessage string
		}{
			{"template without allocatable", v1alpha1.ReviewScenario{AddNodes: []v1alpha1.ScenarioNodes{{NodeShape: v1alpha1.NodeShape{Template: nodeTemplate(noAllocatable)}, Count: 1}}},
				v1alpha1.ReasonInvalidScenario, "spec.scenario.addNodes[0].template.status.allocatable"},
			{"template that does not decode", v1alpha1.ReviewScenario{AddNodes: []v1alpha1.ScenarioNodes{{NodeShape: v1alpha1.NodeShape{Template: badQuantity}, Count: 1}}},
				v1alpha1.ReasonInvalidScenario, "spec.scenario.addNodes[0].template.status.allocatable"},
			{"fromNode that does not exist", v1alpha1.ReviewScenario{AddNodes: []v1alpha1.ScenarioNodes{{NodeShape: v1alpha1.NodeShape{FromNode: pool + "-nope"}, Count: 1}}},
				v1alpha1.ReasonInvalidScenario, "spec.scenario.addNodes[0].fromNode"},
			{"a removed node that does not exist", v1alpha1.ReviewScenario{RemoveNodes: &v1alpha1.ScenarioNodeSelection{Names: []string{pool + "-nope"}}},
				v1alpha1.ReasonInvalidScenario, "spec.scenario.removeNodes.names[0]"},
			{"a report label that is no label", v1alpha1.ReviewScenario{ReportBy: "not a label"},
				v1alpha1.ReasonInvalidScenario, "spec.scenario.reportBy"},
		} {
			By(tc.name)
			sr := newReview(ns, "bad-"+strings.ToLower(strings.ReplaceAll(tc.name, " ", "-")), v1alpha1.SchedulingReviewSpec{Profile: profile, Scenario: &tc.scenario})
			Expect(k8s.Create(suiteCtx, sr)).To(Succeed())
			got := answered(sr)
			failed := condition(got, v1alpha1.ConditionFailed)
			Expect(failed).NotTo(BeNil(), "%s: %+v", tc.name, got.Status.Conditions)
			Expect(failed.Reason).To(Equal(tc.reason), tc.name)
			Expect(failed.Message).To(ContainSubstring(tc.inMessage), tc.name)
		}

		By("refusing at creation, naming the field, what is over the schema's budget")
		for name, tc := range map[string]struct {
			scenario v1alpha1.ReviewScenario
			field    string
		}{
			"absurd-minimize-max":     {v1alpha1.ReviewScenario{Minimize: &v1alpha1.ScenarioMinimize{NodeShape: v1alpha1.NodeShape{FromNode: pool + "-n1"}, Max: 1 << 30}}, "spec.scenario.minimize.max"},
			"replicas-over-the-limit": {v1alpha1.ReviewScenario{Pods: []v1alpha1.ScenarioPods{{PodTemplate: podTemplate, Replicas: 20000}}}, "spec.scenario.pods[0].replicas"},
		} {
			err := k8s.Create(suiteCtx, newReview(ns, "bad-"+name, v1alpha1.SchedulingReviewSpec{Profile: profile, Scenario: &tc.scenario}))
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%s: %v", name, err)
			Expect(err.Error()).To(ContainSubstring(tc.field), name)
		}

		By("removing every node: an answer, every pod unplaced")
		got := scenarioAnswer(ns, "all", v1alpha1.SchedulingReviewSpec{Profile: profile, Scenario: &v1alpha1.ReviewScenario{
			RemoveNodes: &v1alpha1.ScenarioNodeSelection{Selector: &v1alpha1.LabelSelector{}},
			Pods:        []v1alpha1.ScenarioPods{{PodTemplate: podTemplate, Replicas: 2}},
		}}, func(*v1alpha1.ScenarioResult) bool { return true })
		Expect(got.Status.Scenario.Placed).To(BeZero())
		Expect(got.Status.Scenario.Unplaced).To(ContainElement(HaveField("Message", ContainSubstring("node(s) were unschedulable"))))

		By("minimize with max 0: whether it fits as it is")
		got = scenarioAnswer(ns, "max0", v1alpha1.SchedulingReviewSpec{Profile: profile, Scenario: &v1alpha1.ReviewScenario{
			Pods:     []v1alpha1.ScenarioPods{{PodTemplate: podTemplate, Replicas: 6}},
			Minimize: &v1alpha1.ScenarioMinimize{NodeShape: v1alpha1.NodeShape{FromNode: pool + "-n1"}, Max: 0},
		}}, func(*v1alpha1.ScenarioResult) bool { return true })
		Expect(got.Status.Scenario.Minimize.Found).To(BeFalse())
		Expect(got.Status.Scenario.Unplaced).To(HaveLen(2), "6 pods of 1 CPU, 4 CPUs")
		Expect(condition(got, v1alpha1.ConditionComplete).Message).To(ContainSubstring("no count up to 0 places them all"))

		By("without a profile: refused by the schema")
		err := k8s.Create(suiteCtx, newReview(ns, "no-profile", v1alpha1.SchedulingReviewSpec{Scenario: &v1alpha1.ReviewScenario{ReportBy: "pool"}}))
		Expect(err).To(MatchError(ContainSubstring("spec.scenario needs spec.profile or spec.profileSpec")))

		By("the profile still serving")
		Expect(boundNode(createPod(ns, "after", profile, onPool(pool), requestingCPU(100)), timeout)).To(Equal(pool + "-n1"))
		Expect(getProfile(profile).Status.ActiveGeneration).NotTo(BeZero())
	})
})

var _ = Describe("A malformed scenario", func() {
	DescribeTable("in a schemaless template fails that review alone, naming the field, and the others are answered",
		func(scenario map[string]any, field string) {
			ns := createNamespace("malformed-scenario")
			bad := unstructuredObject("SchedulingReview", ns, "bad", map[string]any{"profileSpec": map[string]any{}, "scenario": scenario})
			Expect(k8s.Create(suiteCtx, bad)).To(Succeed(), "the API server stores it: the templates have no schema")
			DeferCleanup(deleteObject, bad)

			good := newReview(ns, "good", v1alpha1.SchedulingReviewSpec{PodName: "nope"})
			Expect(k8s.Create(suiteCtx, good)).To(Succeed())
			Expect(condition(answered(good), v1alpha1.ConditionFailed)).To(HaveField("Reason", v1alpha1.ReasonPodNotFound),
				"a review created after the malformed one is answered")

			got := answered(newReview(ns, "bad", v1alpha1.SchedulingReviewSpec{}))
			failed := condition(got, v1alpha1.ConditionFailed)
			Expect(failed).NotTo(BeNil(), "%+v", got.Status.Conditions)
			Expect(failed.Reason).To(Equal(v1alpha1.ReasonInvalidScenario))
			Expect(failed.Message).To(HavePrefix(field))
			Expect(got.Status.Scenario).To(BeNil())
		},
		Entry("an allocatable that is not a quantity",
			map[string]any{"addNodes": []any{map[string]any{"count": int64(1), "template": map[string]any{"status": map[string]any{"allocatable": map[string]any{"cpu": "four"}}}}}},
			`spec.scenario.addNodes[0].template.status.allocatable[cpu]: Invalid value: "four"`),
		Entry("labels as a list",
			map[string]any{"minimize": map[string]any{"max": int64(1), "template": map[string]any{"metadata": map[string]any{"labels": []any{"a"}}}}},
			`spec.scenario.minimize.template.metadata.labels: Invalid value`),
		Entry("containers as a string in a pod group's member",
			map[string]any{"pods": []any{map[string]any{"replicas": int64(2), "podGroupTemplate": map[string]any{"minCount": int64(2), "podTemplate": map[string]any{"spec": map[string]any{"containers": "x"}}}}}},
			`spec.scenario.pods[0].podGroupTemplate.podTemplate.spec.containers: Invalid value: "x": must be of type array`),
	)
})
