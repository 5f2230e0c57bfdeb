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
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

const timeout = 30 * time.Second

func raw(json string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(json)} }

func newProfile(name string, spec v1alpha1.SchedulerProfileSpec) *v1alpha1.SchedulerProfile {
	return &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
}

func fitArgs(strategy string) []v1alpha1.PluginConfig {
	return []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: raw(fmt.Sprintf(
		`{"scoringStrategy":{"type":%q,"resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}}`, strategy))}}
}

func deleteProfile(name string) {
	sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}
	Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, sp))).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(suiteCtx, client.ObjectKey{Name: name}, &v1alpha1.SchedulerProfile{}))
	}).WithTimeout(timeout).Should(BeTrue(), "the finalizer is removed once the profile stopped serving")
}

// readSamples decodes every object in config/samples.
func readSamples() ([]*v1alpha1.ExtenderConfig, []*v1alpha1.SchedulerProfile) {
	files, err := filepath.Glob(repoPath("config", "samples", "*.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var ecs []*v1alpha1.ExtenderConfig
	var sps []*v1alpha1.SchedulerProfile
	for _, f := range files {
		data, err := os.ReadFile(f)
		Expect(err).NotTo(HaveOccurred())
		var tm metav1.TypeMeta
		Expect(yaml.Unmarshal(data, &tm)).To(Succeed())
		switch tm.Kind {
		case "ExtenderConfig":
			ec := &v1alpha1.ExtenderConfig{}
			Expect(yaml.UnmarshalStrict(data, ec)).To(Succeed(), f)
			ecs = append(ecs, ec)
		case "SchedulerProfile":
			sp := &v1alpha1.SchedulerProfile{}
			Expect(yaml.UnmarshalStrict(data, sp)).To(Succeed(), f)
			sps = append(sps, sp)
		}
	}
	return ecs, sps
}

var _ = Describe("SchedulerProfile", func() {
	It("makes every sample live and binds the pods that name it", func() {
		ecs, sps := readSamples()
		Expect(sps).NotTo(BeEmpty(), "config/samples holds SchedulerProfiles")
		for _, ec := range ecs {
			Expect(k8s.Create(suiteCtx, ec)).To(Succeed())
		}
		for _, sp := range sps {
			Expect(k8s.Create(suiteCtx, sp)).To(Succeed())
		}
		ns := createNamespace("samples")
		for _, sp := range sps {
			live := expectLive(sp.Name, timeout)
			Expect(live.Status.SchedulerName).To(Equal(sp.EffectiveSchedulerName()))
			Expect(live.Status.Plugins).NotTo(BeEmpty())
			Expect(live.Status.Extenders).To(HaveLen(len(sp.Spec.Extenders)))
			Expect(live.Finalizers).To(ContainElement("scheduling.profilescheduler.io/profile"))
			pod := createPod(ns, "pod-"+sp.Name, sp.EffectiveSchedulerName())
			boundNode(pod, timeout)
		}
		for _, ec := range ecs {
			Eventually(func(g Gomega) {
				got := &v1alpha1.ExtenderConfig{}
				g.Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(ec), got)).To(Succeed())
				g.Expect(kstatusOf(g, got).Status).To(Equal(status.CurrentStatus))
				g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
			}).WithTimeout(timeout).Should(Succeed())
		}

		By("kubectl get sp shows the profiles ready with their active generation")
		admin, err := env.ControlPlane.AddUser(envtest.User{Name: "kubectl-admin", Groups: []string{"system:masters"}}, nil)
		Expect(err).NotTo(HaveOccurred())
		kubectl, err := admin.Kubectl()
		Expect(err).NotTo(HaveOccurred())
		stdout, stderr, err := kubectl.Run("get", "sp")
		Expect(err).NotTo(HaveOccurred(), readAll(stderr))
		out := readAll(stdout)
		for _, sp := range sps {
			Expect(out).To(MatchRegexp(`(?m)^%s\s+%s\s+True\s+1\s`, sp.Name, sp.EffectiveSchedulerName()))
		}
	})

	It("reports the effective plugins of the default set", func() {
		Expect(k8s.Create(suiteCtx, newProfile("defaults", v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
		sp := expectLive("defaults", timeout)
		byPoint := map[string][]string{}
		for _, ep := range sp.Status.Plugins {
			for _, p := range ep.Plugins {
				byPoint[ep.ExtensionPoint] = append(byPoint[ep.ExtensionPoint], p.Name)
			}
		}
		Expect(byPoint["QueueSort"]).To(Equal([]string{"PrioritySort"}))
		Expect(byPoint["Bind"]).To(Equal([]string{"DefaultBinder"}))
		Expect(byPoint["Filter"]).To(ContainElements("NodeResourcesFit", "NodeAffinity", "TaintToleration"))
		Expect(byPoint["Score"]).To(ContainElement("NodeResourcesFit"))
		Expect(sp.Status.Loop).To(Equal(&v1alpha1.LoopStatus{Own: true}), "an idle loop of its own")

		By("a live profile is not written again: no status write loop")
		rv := sp.ResourceVersion
		Consistently(func() string { return getProfile("defaults").ResourceVersion }).
			WithTimeout(2 * time.Second).WithPolling(200 * time.Millisecond).Should(Equal(rv))
		deleteProfile("defaults")
	})

	DescribeTable("refuses a generation that cannot serve, with kstatus Failed",
		func(sp *v1alpha1.SchedulerProfile, reason string, mentions []string) {
			Expect(k8s.Create(suiteCtx, sp)).To(Succeed())
			got := expectRefused(sp.Name, reason, timeout)
			Expect(got.Status.ActiveGeneration).To(BeZero())
			Expect(refusedCount(sp.Name, reason)).To(BeEquivalentTo(1), "refused_generations_total counts the generation")
			for _, m := range mentions {
				Expect(readyMessage(got)).To(ContainSubstring(m))
			}
			Expect(readyMessage(got)).To(ContainSubstring("no generation of this profile serves pods"))
			deleteProfile(sp.Name)
		},
		refusalEntries(),
	)

	It("keeps the last known good generation serving, and makes the fixed one live", func() {
		pool := "lkg"
		for i := 1; i <= 3; i++ {
			createNode(fmt.Sprintf("lkg-%d", i), map[string]string{"pool": pool},
				[]corev1.Taint{{Key: "pool", Value: pool, Effect: corev1.TaintEffectNoSchedule}})
		}
		ns := createNamespace("lkg")
		Expect(k8s.Create(suiteCtx, newProfile("packing", v1alpha1.SchedulerProfileSpec{PluginConfig: fitArgs("MostAllocated")}))).To(Succeed())
		expectLive("packing", timeout)
		first := boundNode(createPod(ns, "a", "packing", onPool(pool)), timeout)
		Expect(boundNode(createPod(ns, "b", "packing", onPool(pool)), timeout)).To(Equal(first), "MostAllocated packs")

		By("a bad spec is refused and generation 1 keeps packing")
		countedBefore := refusedCount("packing", v1alpha1.ReasonInvalidPluginArgs)
		sp := getProfile("packing")
		sp.Spec.PluginConfig = []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{"scoringStrategy":{"type":"MostAllocated"},"typo":1}`)}}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		refused := expectRefused("packing", v1alpha1.ReasonInvalidPluginArgs, timeout)
		Expect(refused.Generation).To(BeEquivalentTo(2))
		Expect(refused.Status.ActiveGeneration).To(BeEquivalentTo(1))
		Expect(readyMessage(refused)).To(ContainSubstring("NodeResourcesFit"))
		Expect(readyMessage(refused)).To(ContainSubstring("generation 1 keeps serving"))
		Expect(refused.Status.Plugins).NotTo(BeEmpty(), "status still describes the serving framework")
		Expect(boundNode(createPod(ns, "c", "packing", onPool(pool)), timeout)).To(Equal(first))
		Expect(boundNode(createPod(ns, "d", "packing", onPool(pool)), timeout)).To(Equal(first))

		By("the refused generation is counted once, however often it is reconciled")
		Expect(refusedCount("packing", v1alpha1.ReasonInvalidPluginArgs)).To(Equal(countedBefore + 1))
		sp = getProfile("packing")
		sp.Labels = map[string]string{"touched": "true"} // a metadata change reconciles generation 2 again
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		Consistently(func() float64 { return refusedCount("packing", v1alpha1.ReasonInvalidPluginArgs) }).
			WithTimeout(time.Second).WithPolling(100 * time.Millisecond).Should(Equal(countedBefore + 1))

		By("fixing the spec makes generation 3 live without a restart")
		sp = getProfile("packing")
		sp.Spec.PluginConfig = fitArgs("LeastAllocated")
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		live := expectLive("packing", timeout)
		Expect(live.Status.ActiveGeneration).To(BeEquivalentTo(3))
		second := boundNode(createPod(ns, "e", "packing", onPool(pool)), timeout)
		Expect(second).NotTo(Equal(first), "LeastAllocated, now live, spreads")

		By("events tell the story")
		Eventually(func(g Gomega) {
			g.Expect(eventReasons("packing")).To(ContainElements(v1alpha1.EventActivated, v1alpha1.EventRefused))
		}).WithTimeout(timeout).Should(Succeed())

		By("deleting the profile stops serving its name")
		deleteProfile("packing")
		staysPending(createPod(ns, "f", "packing", onPool(pool)), 2*time.Second)
		Eventually(func(g Gomega) {
			g.Expect(eventReasons("packing")).To(ContainElement(v1alpha1.EventRemoved))
		}).WithTimeout(timeout).Should(Succeed())
	})

	It("writes a new generation's status once, when it is live", func() {
		Expect(k8s.Create(suiteCtx, newProfile("once", v1alpha1.SchedulerProfileSpec{PluginConfig: fitArgs("MostAllocated")}))).To(Succeed())
		DeferCleanup(deleteProfile, "once")
		sp := expectLive("once", timeout)

		wc, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
		Expect(err).NotTo(HaveOccurred())
		w, err := wc.Watch(suiteCtx, &v1alpha1.SchedulerProfileList{},
			client.MatchingFields{"metadata.name": "once"}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: sp.ResourceVersion}})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		sp.Spec.PluginConfig = fitArgs("LeastAllocated")
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())

		// The spec update, then exactly one status write, which makes
		// generation 2 live; nothing after it.
		var writes []*v1alpha1.SchedulerProfile
		deadline := time.After(3 * time.Second)
	collect:
		for {
			select {
			case ev := <-w.ResultChan():
				if got, ok := ev.Object.(*v1alpha1.SchedulerProfile); ok {
					writes = append(writes, got)
				}
			case <-deadline:
				break collect
			}
		}
		Expect(writes).To(HaveLen(2), "the spec update and one status write")
		Expect(writes[0].Status.ObservedGeneration).To(BeEquivalentTo(1))
		live := writes[1]
		Expect(live.Status.ObservedGeneration).To(BeEquivalentTo(2))
		Expect(live.Status.ActiveGeneration).To(BeEquivalentTo(2))
		Expect(meta.IsStatusConditionTrue(live.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		Expect(meta.IsStatusConditionFalse(live.Status.Conditions, v1alpha1.ConditionReconciling)).To(BeTrue())
	})

	It("hands a schedulerName over to the newer claimer when the older is deleted or renamed", func() {
		ns := createNamespace("conflict")
		Expect(k8s.Create(suiteCtx, newProfile("owner-a", v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("shared")}))).To(Succeed())
		expectLive("owner-a", timeout)
		Expect(k8s.Create(suiteCtx, newProfile("owner-b", v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("shared"), PluginConfig: fitArgs("MostAllocated")}))).To(Succeed())
		b := expectRefused("owner-b", v1alpha1.ReasonSchedulerNameConflict, timeout)
		Expect(readyMessage(b)).To(ContainSubstring(`"owner-a"`))
		Expect(getProfile("owner-a").Status.ActiveGeneration).To(BeEquivalentTo(1), "the older keeps serving")
		boundNode(createPod(ns, "served-by-a", "shared"), timeout)

		By("deleting the older profile makes the newer live by itself")
		deleteProfile("owner-a")
		expectLive("owner-b", timeout)
		boundNode(createPod(ns, "served-by-b", "shared"), timeout)

		By("renaming the owner hands the name over too")
		Expect(k8s.Create(suiteCtx, newProfile("owner-c", v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("shared")}))).To(Succeed())
		expectRefused("owner-c", v1alpha1.ReasonSchedulerNameConflict, timeout)
		sp := getProfile("owner-b")
		sp.Spec.SchedulerName = ptr.To("renamed")
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		Expect(expectLive("owner-b", timeout).Status.SchedulerName).To(Equal("renamed"))
		expectLive("owner-c", timeout)
		boundNode(createPod(ns, "served-by-c", "shared"), timeout)
		boundNode(createPod(ns, "served-by-b-renamed", "renamed"), timeout)
		deleteProfile("owner-b")
		deleteProfile("owner-c")
	})

	It("serves default-scheduler only when the operator allows it", func() {
		ns := createNamespace("default-sched")
		Expect(k8s.Create(suiteCtx, newProfile("takes-default", v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("default-scheduler")}))).To(Succeed())
		expectRefused("takes-default", v1alpha1.ReasonDefaultSchedulerReserved, timeout)
		pod := createPod(ns, "default", "") // the API server defaults schedulerName to default-scheduler
		staysPending(pod, time.Second)

		op.stop()
		op = startOperator(true) // --allow-default-scheduler
		expectLive("takes-default", timeout)
		boundNode(pod, timeout)

		deleteProfile("takes-default")
		op.stop()
		op = startOperator()
	})

	It("rebuilds every profile after an operator restart, the last known good one included, and binds the pods that waited", func() {
		ns := createNamespace("restart")
		Expect(k8s.Create(suiteCtx, newProfile("survivor", v1alpha1.SchedulerProfileSpec{PluginConfig: fitArgs("MostAllocated")}))).To(Succeed())
		expectLive("survivor", timeout)
		Expect(k8s.Create(suiteCtx, newProfile("kept-good", v1alpha1.SchedulerProfileSpec{PluginConfig: fitArgs("MostAllocated")}))).To(Succeed())
		goodSpec := expectLive("kept-good", timeout).Spec
		boundNode(createPod(ns, "before", "survivor"), timeout)

		By("a bad spec of kept-good is refused and generation 1 keeps serving")
		countedBefore := refusedCount("kept-good", v1alpha1.ReasonInvalidPluginArgs)
		sp := getProfile("kept-good")
		sp.Spec.PluginConfig = []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: raw(`{"scoringStrategy":{"type":"MostAllocated"},"typo":1}`)}}
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		refused := expectRefused("kept-good", v1alpha1.ReasonInvalidPluginArgs, timeout)
		Expect(refused.Status.ActiveGeneration).To(BeEquivalentTo(1))
		Expect(refused.Status.ActiveSpec).NotTo(BeNil())
		Expect(*refused.Status.ActiveSpec).To(Equal(goodSpec), "status keeps the spec of the generation that serves")
		Expect(refusedCount("kept-good", v1alpha1.ReasonInvalidPluginArgs)).To(Equal(countedBefore + 1))
		boundNode(createPod(ns, "before-good", "kept-good"), timeout)

		op.stop()
		waiting := []*corev1.Pod{createPod(ns, "waiting-1", "survivor"), createPod(ns, "waiting-2", "survivor")}
		Expect(k8s.Create(suiteCtx, newProfile("created-while-down", v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
		waiting = append(waiting, createPod(ns, "waiting-3", "created-while-down"))
		waiting = append(waiting, createPod(ns, "waiting-4", "kept-good"), createPod(ns, "waiting-5", "kept-good"))
		staysPending(waiting[0], time.Second)

		op = startOperator() // returns once /readyz says every profile was reconciled
		for _, name := range []string{"survivor", "created-while-down"} {
			sp := getProfile(name)
			Expect(meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue(), "%s is reconciled before the operator is ready", name)
		}
		By("after the restart, kept-good still says generation 2 is refused and generation 1 serves")
		kept := getProfile("kept-good")
		Expect(kept.Generation).To(BeEquivalentTo(2))
		Expect(kept.Status.ObservedGeneration).To(BeEquivalentTo(2))
		Expect(kept.Status.ActiveGeneration).To(BeEquivalentTo(1))
		Expect(*kept.Status.ActiveSpec).To(Equal(goodSpec))
		ready := meta.FindStatusCondition(kept.Status.Conditions, v1alpha1.ConditionReady)
		Expect(ready).NotTo(BeNil())
		Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		Expect(ready.Reason).To(Equal(v1alpha1.ReasonInvalidPluginArgs))
		Expect(ready.Message).To(ContainSubstring("generation 2 refused"))
		Expect(ready.Message).To(ContainSubstring("generation 1 keeps serving"))
		Expect(kept.Status.Plugins).NotTo(BeEmpty(), "status describes the restored framework")
		Expect(refusedCount("kept-good", v1alpha1.ReasonInvalidPluginArgs)).To(Equal(countedBefore+1),
			"a refusal already in status is not counted again after a restart")
		for _, p := range waiting {
			boundNode(p, timeout)
		}
		Consistently(func(g Gomega) {
			g.Expect(getProfile("kept-good").Status.ActiveGeneration).To(BeEquivalentTo(1))
		}).WithTimeout(time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())

		By("fixing the spec after the restart makes generation 3 live")
		sp = getProfile("kept-good")
		sp.Spec.PluginConfig = fitArgs("LeastAllocated")
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		live := expectLive("kept-good", timeout)
		Expect(live.Status.ActiveGeneration).To(BeEquivalentTo(3))
		Expect(*live.Status.ActiveSpec).To(Equal(live.Spec))
		boundNode(createPod(ns, "after-fix", "kept-good"), timeout)

		deleteProfile("survivor")
		deleteProfile("created-while-down")
		deleteProfile("kept-good")
	})
})

// refusedCount reads refused_generations_total of a profile and reason.
func refusedCount(profile, reason string) float64 {
	return testutil.ToFloat64(controllers.RefusedGenerations.WithLabelValues(profile, reason))
}

// eventReasons lists the reasons of the events about a profile.
func eventReasons(name string) []string {
	var list eventsv1.EventList
	Expect(k8s.List(suiteCtx, &list)).To(Succeed())
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "SchedulerProfile" && e.Regarding.Name == name {
			out = append(out, e.Reason)
		}
	}
	return out
}

func readAll(r io.Reader) string {
	data, err := io.ReadAll(r)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}

// refusalEntries are testenv's table of the profiles the operator refuses,
// which package lint's test runs through lint too.
func refusalEntries() []TableEntry {
	var out []TableEntry
	for _, r := range testenv.ProfileRefusals() {
		out = append(out, Entry(r.Description, r.Profile, r.Reason, r.Mentions))
	}
	return out
}
