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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// excludingEveryNode sets NodeAffinity's addedAffinity to a label no node
// has: a candidate that places nothing.
func excludingEveryNode(p *config.KubeSchedulerProfile) {
	for i := range p.PluginConfig {
		if args, ok := p.PluginConfig[i].Args.(*config.NodeAffinityArgs); ok {
			args.AddedAffinity = &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "nowhere", Operator: v1.NodeSelectorOpExists}}}},
			}}
			return
		}
	}
	Fail("the default profile has no NodeAffinityArgs")
}

var _ = Describe("A rollout's shadow and pod groups (GenericWorkload)", func() {
	BeforeEach(enableGenericWorkload)

	It("judges a gang's members together, all or nothing, and counts groups apart from pods", func() {
		h := startScheduler()
		h.sched.SetShadowJudge(h.reviews)
		name := uniqueName("sg")
		h.apply(defaultProfile(name))
		createNode("sg-a", "8", "16Gi")
		createNode("sg-b", "8", "16Gi")
		ctx := context.Background()
		window := func() scheduler.ShadowCounts {
			w, ok := h.sched.Window(name, false)
			Expect(ok).To(BeTrue())
			return w.Shadow
		}

		By("a candidate that places nothing: the gang the serving generation placed, it would not")
		bad := defaultProfile(name, excludingEveryNode)
		bad.Generation = 2
		_, err := h.sched.StartRollout(ctx, bad, scheduler.RolloutStep{})
		Expect(err).NotTo(HaveOccurred())
		createPodGroup(h.ns, "g1", 3)
		for _, p := range createGang(h.ns, "g1", "g1", name, 3, "1") {
			waitBound(h.ns, p, 20*time.Second)
		}
		Eventually(func() scheduler.ShadowGroupCounts { return window().Groups }).WithTimeout(20 * time.Second).
			Should(Equal(scheduler.ShadowGroupCounts{Judged: 1, ServingPlaced: 1, WouldNotPlace: 1}))
		Expect(window().Judged).To(BeZero(), "the members are judged as a group, not one by one")
		Expect(window().Disagreements).To(ContainElement(HaveField("Pod", "podgroup "+h.ns+"/g1")))
		Expect(h.sched.Rollback(ctx, name)).To(BeTrue())

		By("a candidate like the serving generation places the next gang too")
		good := defaultProfile(name)
		good.Generation = 3
		_, err = h.sched.StartRollout(ctx, good, scheduler.RolloutStep{})
		Expect(err).NotTo(HaveOccurred())
		createPodGroup(h.ns, "g2", 3)
		for _, p := range createGang(h.ns, "g2", "g2", name, 3, "1") {
			waitBound(h.ns, p, 20*time.Second)
		}
		Eventually(func() scheduler.ShadowGroupCounts { return window().Groups }).WithTimeout(20 * time.Second).
			Should(Equal(scheduler.ShadowGroupCounts{Judged: 1, ServingPlaced: 1, PlacedWhereServingPlaced: 1}))
	})
})
