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

package scheduler_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// withScoring keeps only the given score plugins (NodeResourcesFit with
// strategy, weight fitWeight, plus extra) and sets the fit strategy.
func withScoring(strategy config.ScoringStrategyType, fitWeight int32, extra ...config.Plugin) func(*config.KubeSchedulerProfile) {
	return func(p *config.KubeSchedulerProfile) {
		p.Plugins.Score = config.PluginSet{
			Disabled: []config.Plugin{{Name: "*"}},
			Enabled:  append([]config.Plugin{{Name: names.NodeResourcesFit, Weight: fitWeight}}, extra...),
		}
		for i := range p.PluginConfig {
			if args, ok := p.PluginConfig[i].Args.(*config.NodeResourcesFitArgs); ok {
				args.ScoringStrategy = &config.ScoringStrategy{
					Type:      strategy,
					Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}},
				}
			}
		}
	}
}

func withPreferredNodeLabel(key, value string) podOption {
	return func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{
				Weight: 100,
				Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
					{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}},
				}},
			}},
		}}
	}
}

// expectAttempts checks that the hooks recorded for pod are one or more
// scheduling attempts, each calling them in order. The recording plugin
// asks for every cluster event, so the pod's own status update retries it,
// at once when nothing else is queued (as upstream, which pops from
// back-off when idle); a check may catch an attempt half-way, hence
// Eventually.
func expectAttempts(pod string, each ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		got := recorded.of(pod)
		g.Expect(got).NotTo(BeEmpty())
		g.Expect(len(got)%len(each)).To(BeZero(), "%v is not a run of %v", got, each)
		for i := 0; i < len(got); i += len(each) {
			g.Expect(got[i:i+len(each)]).To(Equal(each), "attempt %d of %v", i/len(each)+1, got)
		}
	}, 5*time.Second, 10*time.Millisecond).Should(Succeed())
}

var _ = Describe("Plugin pipeline", func() {
	placeSix := func(strategy config.ScoringStrategyType) map[string]int {
		h := startScheduler()
		name := uniqueName("pipe")
		h.apply(defaultProfile(name, withScoring(strategy, 1)))
		for i := 0; i < 3; i++ {
			createNode(fmt.Sprintf("n%d", i), "4", "8Gi")
		}
		for i := 0; i < 6; i++ {
			pod := fmt.Sprintf("p-%d", i)
			createPod(newPod(h.ns, pod, name, "500m", "1Gi"))
			waitBound(h.ns, pod, 10*time.Second)
		}
		return countByNode(podNodes(h.ns))
	}

	It("packs the pods onto one node with MostAllocated", func() {
		counts := placeSix(config.MostAllocated)
		Expect(counts).To(HaveLen(1))
		for _, c := range counts {
			Expect(c).To(Equal(6))
		}
	})

	It("spreads the same pods with LeastAllocated", func() {
		Expect(placeSix(config.LeastAllocated)).To(Equal(map[string]int{"n0": 2, "n1": 2, "n2": 2}))
	})

	It("lets score weights change the winner", func() {
		h := startScheduler()
		name := uniqueName("pipe")
		createNode("large", "8", "16Gi")
		createNode("labelled", "4", "16Gi", withLabels("zone", "a"))

		h.apply(defaultProfile(name, withScoring(config.LeastAllocated, 50, config.Plugin{Name: names.NodeAffinity, Weight: 1})))
		createPod(newPod(h.ns, "fit-heavy", name, "1", "1Gi", withPreferredNodeLabel("zone", "a")))
		Expect(waitBound(h.ns, "fit-heavy", 10*time.Second)).To(Equal("large"))

		h.apply(defaultProfile(name, withScoring(config.LeastAllocated, 1, config.Plugin{Name: names.NodeAffinity, Weight: 50})))
		createPod(newPod(h.ns, "affinity-heavy", name, "1", "1Gi", withPreferredNodeLabel("zone", "a")))
		Expect(waitBound(h.ns, "affinity-heavy", 10*time.Second)).To(Equal("labelled"))
	})

	It("narrows the nodes with NodeAffinity at PreFilter", func() {
		h := startScheduler()
		name := uniqueName("pipe")
		h.apply(defaultProfile(name))
		for i := 0; i < 3; i++ {
			createNode(fmt.Sprintf("n%d", i), "4", "8Gi")
		}
		createPod(newPod(h.ns, "pinned", name, "100m", "100Mi", withRequiredNodeLabel("kubernetes.io/hostname", "n1")))
		Expect(waitBound(h.ns, "pinned", 10*time.Second)).To(Equal("n1"))
		createPod(newPod(h.ns, "nowhere", name, "100m", "100Mi", withRequiredNodeLabel("kubernetes.io/hostname", "n9")))
		cond := waitUnschedulable(h.ns, "nowhere", 10*time.Second)
		Expect(cond.Message).To(Equal("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. " +
			"preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."))
	})

	It("preempts a lower-priority pod with DefaultPreemption and nominates the node", func() {
		h := startScheduler()
		name := uniqueName("pipe")
		h.apply(defaultProfile(name))
		createNode("n1", "2", "4Gi")
		createPod(newPod(h.ns, "victim", name, "2", "1Gi", withPriorityClass("low")))
		waitBound(h.ns, "victim", 10*time.Second)
		createPod(newPod(h.ns, "preemptor", name, "2", "1Gi", withPriorityClass("high")))
		Eventually(func() string { return getPod(h.ns, "preemptor").Status.NominatedNodeName }, 10*time.Second, 20*time.Millisecond).Should(Equal("n1"))
		Eventually(func() bool {
			p, err := cs.CoreV1().Pods(h.ns).Get(context.Background(), "victim", metav1.GetOptions{})
			return err != nil || p.DeletionTimestamp != nil
		}, 10*time.Second, 20*time.Millisecond).Should(BeTrue())
		// Without a kubelet the victim stays terminating; finish it.
		zero := int64(0)
		_ = cs.CoreV1().Pods(h.ns).Delete(context.Background(), "victim", metav1.DeleteOptions{GracePeriodSeconds: &zero})
		Expect(waitBound(h.ns, "preemptor", 10*time.Second)).To(Equal("n1"))
	})

	Context("with recording plugins", func() {
		var h *harness
		var name string
		BeforeEach(func() {
			h = startScheduler(scheduler.WithOutOfTreeRegistry(testRegistry))
			recorded.reset()
			name = uniqueName("pipe")
			a := h.apply(defaultProfile(name, withHooks))
			Expect(a.Plugins.Permit.Enabled).To(ContainElement(config.Plugin{Name: hooksName}))
			createNode("n1", "4", "8Gi")
		})

		It("calls Reserve, Permit, PreBind, Bind and PostBind in order", func() {
			createPod(newPod(h.ns, "ok", name, "100m", "100Mi"))
			waitBound(h.ns, "ok", 10*time.Second)
			Eventually(func() []string { return recorded.of("ok") }, 5*time.Second, 10*time.Millisecond).Should(
				Equal([]string{"Reserve", "Permit", "PreBind", "Bind", "PostBind"}))
		})

		It("unreserves a pod that Reserve refuses", func() {
			createPod(newPod(h.ns, "refused", name, "100m", "100Mi", withPodLabels(labelReserve, "fail")))
			cond := waitUnschedulable(h.ns, "refused", 10*time.Second)
			Expect(cond.Message).To(Equal("0/1 nodes are available: 1 reserve refused by test."))
			expectAttempts("refused", "Reserve", "Unreserve")
		})

		It("unreserves a pod that Permit rejects and reports the reason", func() {
			createPod(newPod(h.ns, "rejected", name, "100m", "100Mi", withPodLabels(labelPermit, "reject")))
			cond := waitUnschedulable(h.ns, "rejected", 10*time.Second)
			Expect(cond.Message).To(Equal("0/1 nodes are available: 1 permit refused by test."))
			expectAttempts("rejected", "Reserve", "Permit", "Unreserve")
			Expect(nodeOf(h.ns, "rejected")()).To(BeEmpty())
		})

		It("finishes a binding on the framework it started with after a swap and after removal, and closes that framework only then", func() {
			createPod(newPod(h.ns, "held", name, "100m", "100Mi", withPodLabels(labelPermit, "wait")))
			Eventually(recorded.waitingCount, 10*time.Second, 10*time.Millisecond).Should(Equal(1))
			closedBefore := hooksClosed.Load()
			h.apply(defaultProfile(name, withHooks))
			Consistently(hooksClosed.Load, 300*time.Millisecond, 50*time.Millisecond).Should(Equal(closedBefore), "the replaced framework still binds a pod")
			Expect(recorded.allowWaiting()).To(Equal(1))
			Expect(waitBound(h.ns, "held", 10*time.Second)).To(Equal("n1"))
			Eventually(hooksClosed.Load, 5*time.Second, 10*time.Millisecond).Should(Equal(closedBefore + 1))

			createPod(newPod(h.ns, "held-2", name, "100m", "100Mi", withPodLabels(labelPermit, "wait")))
			Eventually(recorded.waitingCount, 10*time.Second, 10*time.Millisecond).Should(Equal(1))
			Expect(h.sched.Remove(context.Background(), name)).To(BeTrue())
			Consistently(hooksClosed.Load, 300*time.Millisecond, 50*time.Millisecond).Should(Equal(closedBefore + 1))
			Expect(recorded.allowWaiting()).To(Equal(1))
			Expect(waitBound(h.ns, "held-2", 10*time.Second)).To(Equal("n1"))
			Eventually(hooksClosed.Load, 5*time.Second, 10*time.Millisecond).Should(Equal(closedBefore + 2))
			Expect(recorded.of("held-2")).To(Equal([]string{"Reserve", "Permit", "PreBind", "Bind", "PostBind"}))
		})

		It("binds a pod held at Permit once it is allowed", func() {
			createPod(newPod(h.ns, "held", name, "100m", "100Mi", withPodLabels(labelPermit, "wait")))
			Eventually(recorded.waitingCount, 10*time.Second, 10*time.Millisecond).Should(Equal(1))
			Consistently(nodeOf(h.ns, "held"), 300*time.Millisecond, 50*time.Millisecond).Should(BeEmpty())
			Expect(recorded.allowWaiting()).To(Equal(1))
			Expect(waitBound(h.ns, "held", 10*time.Second)).To(Equal("n1"))
			Eventually(func() []string { return recorded.of("held") }, 5*time.Second, 10*time.Millisecond).Should(
				Equal([]string{"Reserve", "Permit", "PreBind", "Bind", "PostBind"}))
		})
	})
})
