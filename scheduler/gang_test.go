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
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// enableGenericWorkload turns the GenericWorkload gate on for one spec, in
// this process (our scheduler and upstream's read it at construction); the
// suite's kube-apiserver serves scheduling.k8s.io/v1beta1 with it on.
func enableGenericWorkload() {
	featuregatetesting.SetFeatureGateDuringTest(GinkgoTB(), utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
}

func createPodGroup(ns, name string, minCount int32, mutate ...func(*schedulingv1beta1.PodGroup)) {
	GinkgoHelper()
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
				Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount},
			},
		},
	}
	for _, m := range mutate {
		m(pg)
	}
	_, err := cs.SchedulingV1beta1().PodGroups(ns).Create(context.Background(), pg, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

func inGroup(group string) podOption {
	return func(p *v1.Pod) { p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)} }
}

// createGang creates n members of group, named prefix-0 … prefix-(n-1).
func createGang(ns, prefix, group, schedulerName string, n int, cpu string, opts ...podOption) []string {
	GinkgoHelper()
	var names []string
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		createPod(newPod(ns, name, schedulerName, cpu, "1Gi", append([]podOption{inGroup(group)}, opts...)...))
		names = append(names, name)
	}
	return names
}

// groupCondition returns the PodGroup's PodGroupInitiallyScheduled condition.
func groupCondition(ns, name string) func() *metav1.Condition {
	return func() *metav1.Condition {
		pg, err := cs.SchedulingV1beta1().PodGroups(ns).Get(context.Background(), name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		return apimeta.FindStatusCondition(pg.Status.Conditions, "PodGroupInitiallyScheduled")
	}
}

func waitGroupCondition(ns, name string, status metav1.ConditionStatus) *metav1.Condition {
	GinkgoHelper()
	var c *metav1.Condition
	Eventually(func() metav1.ConditionStatus {
		c = groupCondition(ns, name)()
		if c == nil {
			return ""
		}
		return c.Status
	}, 20*time.Second, 20*time.Millisecond).Should(Equal(status))
	return c
}

// boundOf counts the bound pods among names.
func boundOf(ns string, names []string) int {
	GinkgoHelper()
	nodes := podNodes(ns)
	n := 0
	for _, name := range names {
		if nodes[name] != "" && nodes[name] != "<deleted>" {
			n++
		}
	}
	return n
}

// nodesOf returns the sorted node names of names.
func nodesOf(ns string, names []string) []string {
	GinkgoHelper()
	nodes := podNodes(ns)
	var out []string
	for _, name := range names {
		out = append(out, nodes[name])
	}
	sort.Strings(out)
	return out
}

func deleteAll(ns string, names []string) {
	GinkgoHelper()
	for _, n := range names {
		deleteNow(ns, n)
	}
}

var _ = Describe("Pod groups (GenericWorkload), side by side with upstream kube-scheduler", func() {
	BeforeEach(enableGenericWorkload)

	It("schedules a gang that fits all at once, on the nodes upstream picks, and marks the PodGroup scheduled", func() {
		h := startScheduler()
		startUpstream()
		name := uniqueName("gang")
		h.apply(defaultProfile(name))
		// Nodes of different sizes: each member's best node is unique.
		createNode("g-8", "8", "16Gi")
		createNode("g-6", "6", "12Gi")
		createNode("g-4", "4", "8Gi")

		createPodGroup(h.ns, "ours", 4)
		ours := createGang(h.ns, "ours", "ours", name, 4, "1")
		for _, p := range ours {
			waitBound(h.ns, p, 20*time.Second)
		}
		c := waitGroupCondition(h.ns, "ours", metav1.ConditionTrue)
		Expect(c.Reason).To(Equal("Scheduled"))
		oursNodes := nodesOf(h.ns, ours)
		Expect(eventsFor(h.ns, ours[0])).To(ContainElement("Scheduled"))
		deleteAll(h.ns, ours)

		createPodGroup(h.ns, "theirs", 4)
		theirs := createGang(h.ns, "theirs", "theirs", v1.DefaultSchedulerName, 4, "1")
		for _, p := range theirs {
			waitBound(h.ns, p, 20*time.Second)
		}
		tc := waitGroupCondition(h.ns, "theirs", metav1.ConditionTrue)
		Expect(c.Reason).To(Equal(tc.Reason))
		Expect(c.Message).To(Equal(tc.Message))
		Expect(oursNodes).To(Equal(nodesOf(h.ns, theirs)))
		GinkgoWriter.Printf("gang nodes: %v\n", oursNodes)
	})

	It("binds no member of a gang that does not fit, with upstream's messages on the pods and the PodGroup", func() {
		h := startScheduler()
		startUpstream()
		name := uniqueName("gang")
		h.apply(defaultProfile(name))
		// Room for three 1-CPU members, not four.
		createNode("g-a", "2", "8Gi")
		createNode("g-b", "1", "8Gi")

		createPodGroup(h.ns, "ours", 4)
		ours := createGang(h.ns, "ours", "ours", name, 4, "1")
		createPodGroup(h.ns, "theirs", 4)
		theirs := createGang(h.ns, "theirs", "theirs", v1.DefaultSchedulerName, 4, "1")

		oc := waitGroupCondition(h.ns, "ours", metav1.ConditionFalse)
		tc := waitGroupCondition(h.ns, "theirs", metav1.ConditionFalse)
		GinkgoWriter.Printf("ours: %s: %s\ntheirs: %s: %s\n", oc.Reason, oc.Message, tc.Reason, tc.Message)
		Expect(oc.Reason).To(Equal(tc.Reason))
		Expect(oc.Message).To(Equal(tc.Message))
		// Per pod: the same messages, as a multiset (the members that fit on
		// the snapshot get the group's message, the one that does not its
		// own), and never a member bound.
		var oursMsgs, theirsMsgs []string
		for i := range ours {
			oursMsgs = append(oursMsgs, waitUnschedulable(h.ns, ours[i], 20*time.Second).Message)
			theirsMsgs = append(theirsMsgs, waitUnschedulable(h.ns, theirs[i], 20*time.Second).Message)
		}
		Expect(oursMsgs).To(ConsistOf(theirsMsgs))
		Consistently(func() int { return boundOf(h.ns, append(ours, theirs...)) }, 2*time.Second, 100*time.Millisecond).Should(BeZero())

		// Room for the fourth: the whole gang goes.
		createNode("g-c", "2", "8Gi")
		deleteAll(h.ns, theirs)
		for _, p := range ours {
			waitBound(h.ns, p, 30*time.Second)
		}
	})

	It("waits, as upstream, for a missing PodGroup and for minCount members, then schedules the group", func() {
		h := startScheduler()
		startUpstream()
		name := uniqueName("gang")
		h.apply(defaultProfile(name))
		createNode("g-big", "16", "32Gi")

		for sched, prefix := range map[string]string{name: "ours", v1.DefaultSchedulerName: "theirs"} {
			// No PodGroup yet.
			early := createGang(h.ns, prefix+"-early", prefix+"-late-group", sched, 2, "500m")
			// minCount 3 with two members.
			createPodGroup(h.ns, prefix+"-short", 3)
			short := createGang(h.ns, prefix+"-short", prefix+"-short", sched, 2, "500m")
			Consistently(func() int { return boundOf(h.ns, append(early, short...)) }, 2*time.Second, 100*time.Millisecond).Should(BeZero(), sched)
			for _, p := range append(early, short...) {
				// Gated: no attempt, so no condition (both schedulers).
				Expect(scheduledCondition(h.ns, p)()).To(BeNil(), p)
			}
			createPodGroup(h.ns, prefix+"-late-group", 2)
			createPod(newPod(h.ns, prefix+"-short-2", sched, "500m", "1Gi", inGroup(prefix+"-short")))
			for _, p := range append(early, append(short, prefix+"-short-2")...) {
				waitBound(h.ns, p, 20*time.Second)
			}
		}
	})

	It("schedules a group whose PodGroup is being deleted, and holds one whose PodGroup is gone, as upstream", func() {
		h := startScheduler()
		startUpstream()
		name := uniqueName("gang")
		h.apply(defaultProfile(name))
		createNode("g-big", "16", "32Gi")
		ctx := context.Background()
		pgs := cs.SchedulingV1beta1().PodGroups(h.ns)

		for sched, prefix := range map[string]string{name: "ours", v1.DefaultSchedulerName: "theirs"} {
			By(sched + ": deleted while its pods exist, the PodGroup stays (finalizer) and its group is scheduled")
			terminating := prefix + "-terminating"
			createPodGroup(h.ns, terminating, 3)
			members := createGang(h.ns, terminating, terminating, sched, 2, "500m")
			Expect(pgs.Delete(ctx, terminating, metav1.DeleteOptions{})).To(Succeed())
			pg, err := pgs.Get(ctx, terminating, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(pg.DeletionTimestamp).NotTo(BeNil())
			createPod(newPod(h.ns, terminating+"-2", sched, "500m", "1Gi", inGroup(terminating)))
			for _, p := range append(members, terminating+"-2") {
				waitBound(h.ns, p, 20*time.Second)
			}

			By(sched + ": once the PodGroup is gone, its pods wait for it")
			gone := prefix + "-gone"
			createPodGroup(h.ns, gone, 3)
			members = createGang(h.ns, gone, gone, sched, 2, "500m")
			Expect(pgs.Delete(ctx, gone, metav1.DeleteOptions{})).To(Succeed())
			Eventually(func() error {
				pg, err := pgs.Get(ctx, gone, metav1.GetOptions{})
				if err != nil {
					return client.IgnoreNotFound(err)
				}
				pg.Finalizers = nil
				_, err = pgs.Update(ctx, pg, metav1.UpdateOptions{})
				if err == nil {
					err = errors.New("finalizer removed, waiting for the deletion")
				}
				return err
			}, 10*time.Second, 50*time.Millisecond).Should(Succeed())
			createPod(newPod(h.ns, gone+"-2", sched, "500m", "1Gi", inGroup(gone)))
			members = append(members, gone+"-2")
			Consistently(func() int { return boundOf(h.ns, members) }, 2*time.Second, 100*time.Millisecond).Should(BeZero(), sched)
			createPodGroup(h.ns, gone, 3)
			for _, p := range members {
				waitBound(h.ns, p, 20*time.Second)
			}
		}
	})

	It("refuses a group whose members disagree, with upstream's message, and binds none of them", func() {
		h := startScheduler()
		startUpstream()
		name := uniqueName("gang")
		h.apply(defaultProfile(name))
		createNode("g-big", "16", "32Gi")

		msgs := map[string]string{}
		for sched, prefix := range map[string]string{name: "ours", v1.DefaultSchedulerName: "theirs"} {
			createPodGroup(h.ns, prefix, 2)
			createPod(newPod(h.ns, prefix+"-low", sched, "500m", "1Gi", inGroup(prefix), withPriorityClass("low")))
			createPod(newPod(h.ns, prefix+"-high", sched, "500m", "1Gi", inGroup(prefix), withPriorityClass("high")))
			c := waitGroupCondition(h.ns, prefix, metav1.ConditionFalse)
			Expect(c.Reason).To(Equal("SchedulerError"))
			msgs[prefix] = c.Message
			Expect(boundOf(h.ns, []string{prefix + "-low", prefix + "-high"})).To(BeZero())
		}
		GinkgoWriter.Printf("mixed priorities: %s\n", msgs["ours"])
		Expect(msgs["ours"]).To(Equal(msgs["theirs"]))

		// One member for a schedulerName nobody serves: the served ones
		// never reach minCount, for either scheduler.
		for sched, prefix := range map[string]string{name: "ours-split", v1.DefaultSchedulerName: "theirs-split"} {
			createPodGroup(h.ns, prefix, 3)
			createGang(h.ns, prefix, prefix, sched, 2, "500m")
			createPod(newPod(h.ns, prefix+"-elsewhere", "nobody-serves-this", "500m", "1Gi", inGroup(prefix)))
		}
		Consistently(func() int {
			return boundOf(h.ns, []string{"ours-split-0", "ours-split-1", "theirs-split-0", "theirs-split-1"})
		}, 2*time.Second, 100*time.Millisecond).Should(BeZero())
	})

	It("preempts for a gang as upstream's workload-aware preemption does", func() {
		h := startScheduler()
		startUpstream()
		name := uniqueName("gang")
		h.apply(defaultProfile(name))
		createNode("g-p1", "2", "8Gi")
		createNode("g-p2", "2", "8Gi")

		run := func(sched, prefix string) (victims int) {
			// Low-priority pods fill both nodes. Without a kubelet a victim
			// is gone at once only with no grace period.
			var low []string
			for i := range 4 {
				n := fmt.Sprintf("%s-low-%d", prefix, i)
				createPod(newPod(h.ns, n, sched, "1", "1Gi", withPriorityClass("low"), func(p *v1.Pod) {
					p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0)
				}))
				low = append(low, n)
			}
			for _, p := range low {
				waitBound(h.ns, p, 20*time.Second)
			}
			createPodGroup(h.ns, prefix, 2, func(pg *schedulingv1beta1.PodGroup) { pg.Spec.PriorityClassName = "high" })
			gang := createGang(h.ns, prefix, prefix, sched, 2, "1", withPriorityClass("high"))
			for _, p := range gang {
				waitBound(h.ns, p, 30*time.Second)
			}
			for _, p := range low {
				if nodeOf(h.ns, p)() == "<deleted>" {
					victims++
				}
			}
			deleteAll(h.ns, gang)
			for _, p := range low {
				if nodeOf(h.ns, p)() != "<deleted>" {
					deleteNow(h.ns, p)
				}
			}
			return victims
		}
		ours := run(name, "ours")
		theirs := run(v1.DefaultSchedulerName, "theirs")
		GinkgoWriter.Printf("victims: ours %d, upstream %d\n", ours, theirs)
		Expect(ours).To(Equal(theirs))
		Expect(ours).To(BeNumerically(">", 0))
	})
})

var _ = Describe("Pod groups and profile swaps", func() {
	BeforeEach(enableGenericWorkload)

	It("schedules a gang whose pods were created before their profile went live", func() {
		h := startScheduler()
		name := uniqueName("gang-late")
		createNode("gl-1", "8", "16Gi")
		createPodGroup(h.ns, "early", 4)
		members := createGang(h.ns, "early", "early", name, 4, "1")
		Consistently(func() int { return boundOf(h.ns, members) }, time.Second, 100*time.Millisecond).Should(BeZero())
		h.apply(defaultProfile(name))
		for _, p := range members {
			waitBound(h.ns, p, 20*time.Second)
		}
	})

	It("never binds a group partially while its profile is swapped under load", func() {
		h := startScheduler()
		name := uniqueName("gang-swap")
		h.apply(defaultProfile(name))
		for i := range 8 {
			createNode(fmt.Sprintf("gs-%d", i), "8", "32Gi")
		}
		failsBefore := bindFails.Load()
		const groups, size = 24, 6
		// Odd groups cannot fit on their own (a member asks for more than
		// any node has), so they must stay wholly pending.
		var wg sync.WaitGroup
		stop := make(chan struct{})
		swaps := 0
		wg.Add(1)
		go func() {
			defer GinkgoRecover()
			defer wg.Done()
			weights := []int32{1, 2, 3}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				w := weights[i%len(weights)]
				_, err := h.sched.Apply(context.Background(), defaultProfile(name, func(p *config.KubeSchedulerProfile) {
					for j := range p.Plugins.MultiPoint.Enabled {
						if p.Plugins.MultiPoint.Enabled[j].Name == "NodeResourcesFit" {
							p.Plugins.MultiPoint.Enabled[j].Weight = w
						}
					}
				}))
				Expect(err).NotTo(HaveOccurred())
				swaps++
				time.Sleep(20 * time.Millisecond)
			}
		}()
		members := map[string][]string{}
		for g := range groups {
			group := fmt.Sprintf("swap-%d", g)
			createPodGroup(h.ns, group, size)
			for i := range size {
				cpu := "500m"
				if g%2 == 1 && i == size-1 {
					cpu = "9"
				}
				p := fmt.Sprintf("%s-%d", group, i)
				createPod(newPod(h.ns, p, name, cpu, "1Gi", inGroup(group)))
				members[group] = append(members[group], p)
			}
		}
		Eventually(func() int {
			n := 0
			for g := 0; g < groups; g += 2 {
				n += boundOf(h.ns, members[fmt.Sprintf("swap-%d", g)])
			}
			return n
		}, 60*time.Second, 100*time.Millisecond).Should(Equal(groups / 2 * size))
		close(stop)
		wg.Wait()
		Expect(swaps).To(BeNumerically(">", 5))
		Consistently(func() []string {
			var partial []string
			for group, names := range members {
				if b := boundOf(h.ns, names); b != 0 && b != len(names) {
					partial = append(partial, fmt.Sprintf("%s: %d of %d", group, b, len(names)))
				}
			}
			return partial
		}, 2*time.Second, 200*time.Millisecond).Should(BeEmpty())
		for g := 1; g < groups; g += 2 {
			Expect(boundOf(h.ns, members[fmt.Sprintf("swap-%d", g)])).To(BeZero())
		}
		Expect(bindFails.Load()).To(Equal(failsBefore), "no binding was refused: no pod was bound twice")
		GinkgoWriter.Printf("swaps during the run: %d\n", swaps)
	})
})
