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
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
)

// The same profile, as upstream reads it from its configuration file and as
// a SchedulerProfile spec: NodeResourcesFit scoring MostAllocated.
const conformanceProfile = `
schedulerName: conformance
pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
          - {name: cpu, weight: 1}
          - {name: memory, weight: 1}
`

// conformanceLabel marks this spec's nodes.
const conformanceLabel = "e2e.profilescheduler.io/conformance"

// conformanceNodes differ in size, zone and labels, so the best node for
// every pod below is unique: no outcome depends on a random tie-break.
var conformanceNodes = []local.NodeSpec{
	{Name: "conf-a-small", Zone: "conf-zone-a", CPU: "4", Memory: "16Gi", Pods: "110"},
	{Name: "conf-b-large", Zone: "conf-zone-b", CPU: "8", Memory: "32Gi", Pods: "110"},
	{Name: "conf-c-ssd", Zone: "conf-zone-c", CPU: "6", Memory: "24Gi", Pods: "110"},
	{Name: "conf-a-gpu", Zone: "conf-zone-a", CPU: "16", Memory: "64Gi", Pods: "110"},
}

// conformancePods are created one by one, each after the previous one was
// placed or refused, so both schedulers see the same cluster state.
func conformancePods(ns string) []*corev1.Pod {
	pod := func(name, cpu, mem string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}},
			Spec: corev1.PodSpec{
				SchedulerName: "conformance",
				Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
					}}}},
			},
		}
		for _, m := range mutate {
			m(p)
		}
		// Other specs share the API server and leave nodes and pods behind;
		// keep to this spec's nodes (both schedulers see the same others).
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		p.Spec.NodeSelector[conformanceLabel] = "true"
		return p
	}
	tolerateGPU := func(p *corev1.Pod) {
		p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	}
	return []*corev1.Pod{
		pod("pack-1", "1", "2Gi"),
		pod("pack-2", "2", "4Gi"),
		pod("ssd-only", "1", "1Gi", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
		pod("gpu-tolerant", "4", "8Gi", tolerateGPU),
		pod("away-from-pack-1", "500m", "1Gi", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pack-1"}},
					TopologyKey:   corev1.LabelTopologyZone,
				}},
			}}
		}),
		pod("prefers-zone-b", "1", "1Gi", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
					Weight: 100,
					Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
						Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"conf-zone-b"},
					}}},
				}},
			}}
		}),
		pod("too-big", "32", "1Gi"),
		pod("no-such-zone", "100m", "100Mi", func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{corev1.LabelTopologyZone: "conf-zone-z"}
		}),
		pod("too-big-tolerant", "17", "1Gi", tolerateGPU),
	}
}

// outcome is where a pod landed, or why it was refused.
func outcome(p *corev1.Pod) (string, bool) {
	if p.Spec.NodeName != "" {
		return "node " + p.Spec.NodeName, true
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return "refused: " + c.Message, true
		}
	}
	return "", false
}

// runConformance creates the pods in ns one by one and returns each one's
// outcome, then deletes them so the next scheduler finds the nodes empty.
func runConformance(ctx SpecContext, ns string) map[string]string {
	Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	out := map[string]string{}
	for _, p := range conformancePods(ns) {
		Expect(k8s.Create(ctx, p)).To(Succeed())
		Eventually(func(g Gomega) {
			var got corev1.Pod
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(p), &got)).To(Succeed())
			o, done := outcome(&got)
			g.Expect(done).To(BeTrue(), "pod %s neither placed nor refused", p.Name)
			out[p.Name] = o
		}).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
	}
	var pods corev1.PodList
	Expect(k8s.List(ctx, &pods, client.InNamespace(ns))).To(Succeed())
	for i := range pods.Items {
		Expect(k8s.Delete(ctx, &pods.Items[i], client.GracePeriodSeconds(0))).To(Succeed())
	}
	Eventually(func(g Gomega) {
		g.Expect(k8s.List(ctx, &pods, client.InNamespace(ns))).To(Succeed())
		g.Expect(pods.Items).To(BeEmpty())
	}).WithTimeout(30 * time.Second).Should(Succeed())
	return out
}

var _ = Describe("placements and refusals next to upstream kube-scheduler", Ordered, func() {
	BeforeAll(func(ctx SpecContext) {
		Expect(local.CreateNodes(ctx, k8s, conformanceNodes)).To(Succeed())
		for _, spec := range conformanceNodes {
			var n corev1.Node
			Expect(k8s.Get(ctx, client.ObjectKey{Name: spec.Name}, &n)).To(Succeed())
			base := n.DeepCopy()
			n.Labels[conformanceLabel] = "true"
			if spec.Name == "conf-c-ssd" {
				n.Labels["disk"] = "ssd"
			}
			Expect(k8s.Patch(ctx, &n, client.MergeFrom(base))).To(Succeed())
		}
		var gpu corev1.Node
		Expect(k8s.Get(ctx, client.ObjectKey{Name: "conf-a-gpu"}, &gpu)).To(Succeed())
		base := gpu.DeepCopy()
		gpu.Spec.Taints = append(gpu.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule})
		Expect(k8s.Patch(ctx, &gpu, client.MergeFrom(base))).To(Succeed())
	})

	It("places and refuses every pod as upstream does, with the same messages", func(ctx SpecContext) {
		By("running upstream kube-scheduler with the profile in its configuration file")
		upstreamBin := buildTool("kube-scheduler", "k8s.io/kubernetes/cmd/kube-scheduler")
		var profile map[string]any
		Expect(yaml.Unmarshal([]byte(conformanceProfile), &profile)).To(Succeed())
		cfg, err := yaml.Marshal(map[string]any{
			"apiVersion":       "kubescheduler.config.k8s.io/v1",
			"kind":             "KubeSchedulerConfiguration",
			"leaderElection":   map[string]any{"leaderElect": false},
			"clientConnection": map[string]any{"kubeconfig": writeKubeconfig("upstream", nil)},
			"profiles":         []any{profile},
		})
		Expect(err).NotTo(HaveOccurred())
		cfgPath := filepath.Join(workDir, "kube-scheduler.yaml")
		Expect(os.WriteFile(cfgPath, cfg, 0o600)).To(Succeed())
		_, port, err := net.SplitHostPort(freeAddr())
		Expect(err).NotTo(HaveOccurred())
		upstream := startProcess("kube-scheduler", upstreamBin,
			"--config="+cfgPath, "--bind-address=127.0.0.1", "--secure-port="+port,
			"--cert-dir="+filepath.Join(workDir, "kube-scheduler-certs"))
		want := runConformance(ctx, "conf-upstream")
		upstream.stop()

		By("running profile-scheduler with the same profile as a SchedulerProfile")
		var spec v1alpha1.SchedulerProfileSpec
		Expect(yaml.UnmarshalStrict([]byte(conformanceProfile), &spec)).To(Succeed())
		sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "conformance"}, Spec: spec}
		Expect(k8s.Create(ctx, sp)).To(Succeed())
		startInstance("conformance-ours")
		Eventually(func(g Gomega) int64 {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(sp), sp)).To(Succeed())
			return sp.Status.ActiveGeneration
		}).WithTimeout(60 * time.Second).Should(Equal(sp.Generation))
		got := runConformance(ctx, "conf-ours")

		for name, w := range want {
			GinkgoWriter.Printf("%-18s upstream: %s\n%-18s ours:     %s\n", name, w, "", got[name])
		}
		Expect(got).To(Equal(want))
		// The scenario must exercise both outcomes to mean anything.
		refused := 0
		for _, o := range want {
			if strings.HasPrefix(o, "refused: ") {
				refused++
			}
		}
		Expect(refused).To(Equal(3), fmt.Sprintf("upstream outcomes: %v", want))
	})
})
