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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	upstream "k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

// startUpstream runs upstream kube-scheduler's scheduler in-process on the
// same control plane: by default one default profile, "default-scheduler";
// opts change that as they would upstream.
func startUpstream(opts ...upstream.Option) {
	GinkgoHelper()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Background()))
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	factory := upstream.NewInformerFactory(cs, 0, nil)
	s, err := upstream.New(ctx, cs, factory, nil, profile.NewRecorderFactory(broadcaster), opts...)
	Expect(err).NotTo(HaveOccurred())
	broadcaster.StartRecordingToSink(ctx.Done())
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	Expect(s.WaitForHandlersSync(ctx)).To(Succeed())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	DeferCleanup(func() {
		cancel()
		Eventually(done, 30*time.Second).Should(BeClosed())
		broadcaster.Shutdown()
		factory.Shutdown()
	})
}

func deleteNow(ns, name string) {
	GinkgoHelper()
	zero := int64(0)
	Expect(cs.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero})).To(Succeed())
	Eventually(func() bool {
		_, err := cs.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 10*time.Second, 10*time.Millisecond).Should(BeTrue())
}

var _ = Describe("Parity with upstream kube-scheduler", func() {
	It("refuses the same pods with the same message and places the same pods on the same nodes", func() {
		h := startScheduler()
		startUpstream()
		name := uniqueName("parity")
		h.apply(defaultProfile(name))
		createNode("small-1", "1", "2Gi")
		createNode("small-2", "2", "4Gi", withLabels("zone", "b"))
		createNode("tainted", "16", "32Gi", withTaint("dedicated", "gpu", v1.TaintEffectNoSchedule))

		refused := map[string][]podOption{
			"too-big":  nil,
			"nowhere":  {withRequiredNodeLabel("kubernetes.io/hostname", "n9")},
			"zone-big": {withRequiredNodeLabel("zone", "b")},
		}
		for pod, opts := range refused {
			createPod(newPod(h.ns, "ours-"+pod, name, "3", "1Gi", opts...))
			createPod(newPod(h.ns, "upstream-"+pod, v1.DefaultSchedulerName, "3", "1Gi", opts...))
		}
		for pod := range refused {
			ours := waitUnschedulable(h.ns, "ours-"+pod, 10*time.Second)
			theirs := waitUnschedulable(h.ns, "upstream-"+pod, 10*time.Second)
			GinkgoWriter.Printf("%s: %s\n", pod, ours.Message)
			Expect(ours.Message).To(Equal(theirs.Message), pod)
		}
		for pod := range refused {
			deleteNow(h.ns, "ours-"+pod)
			deleteNow(h.ns, "upstream-"+pod)
		}

		// Nodes full of higher-priority pods: preemption finds no victim.
		createPod(newPod(h.ns, "filler-1", "someone-else", "1", "1Gi", withNodeName("small-1"), withPriorityClass("high")))
		createPod(newPod(h.ns, "filler-2", "someone-else", "2", "1Gi", withNodeName("small-2"), withPriorityClass("high")))
		createPod(newPod(h.ns, "ours-low", name, "1", "1Gi", withPriorityClass("low")))
		createPod(newPod(h.ns, "upstream-low", v1.DefaultSchedulerName, "1", "1Gi", withPriorityClass("low")))
		ours := waitUnschedulable(h.ns, "ours-low", 10*time.Second)
		theirs := waitUnschedulable(h.ns, "upstream-low", 10*time.Second)
		GinkgoWriter.Printf("low: %s\n", ours.Message)
		Expect(ours.Message).To(Equal(theirs.Message))
		Expect(ours.Message).To(ContainSubstring("No preemption victims found for incoming pod"))
		for _, pod := range []string{"filler-1", "filler-2", "ours-low", "upstream-low"} {
			deleteNow(h.ns, pod)
		}

		// One scheduler at a time on the same state: the same node.
		placed := map[string][]podOption{
			"small":     nil,
			"prefers-b": {withPreferredNodeLabel("zone", "b")},
			"tolerating": {func(p *v1.Pod) {
				p.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists}}
			}},
		}
		for pod, opts := range placed {
			createPod(newPod(h.ns, "ours-"+pod, name, "500m", "1Gi", opts...))
			ours := waitBound(h.ns, "ours-"+pod, 10*time.Second)
			deleteNow(h.ns, "ours-"+pod)
			createPod(newPod(h.ns, "upstream-"+pod, v1.DefaultSchedulerName, "500m", "1Gi", opts...))
			theirs := waitBound(h.ns, "upstream-"+pod, 10*time.Second)
			deleteNow(h.ns, "upstream-"+pod)
			GinkgoWriter.Printf("%s: ours %s, upstream %s\n", pod, ours, theirs)
			Expect(ours).To(Equal(theirs), pod)
		}
	})
})
