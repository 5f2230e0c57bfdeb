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
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// The bind arbiter through kube-apiserver: a webhook on pods/binding for
// one namespace, served by the suite's operator (--bind-arbiter).
var _ = Describe("The bind arbiter", func() {
	It("refuses, through kube-apiserver, a bind onto room another bind just took, and admits exactly what fits of binds sent at once", func() {
		ns := createNamespace("arbiter")
		addBindingWebhook(ns)
		cs, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		node := controlplane.Node("arbiter-1", corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("1"),
			corev1.ResourceMemory: resource.MustParse("8Gi"),
			corev1.ResourcePods:   resource.MustParse("110"),
		})
		// Tainted, so that no profile of the other specs places a pod
		// there (binds ignore taints), and deleted when the spec ends.
		node.Spec.Taints = []corev1.Taint{{Key: "arbiter-spec", Effect: corev1.TaintEffectNoSchedule}}
		Expect(controlplane.CreateReadyNode(suiteCtx, k8s, node)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, node))).To(Succeed()) })
		requesting := func(cpu string) podOption {
			return func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
			}
		}
		bind := func(pod string) error {
			return cs.CoreV1().Pods(ns).Bind(context.Background(), &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pod},
				Target:     corev1.ObjectReference{Kind: "Node", Name: "arbiter-1"},
			}, metav1.CreateOptions{})
		}
		createPod(ns, "a", "another-scheduler", requesting("700m"))
		createPod(ns, "b", "another-scheduler", requesting("700m"))
		// The operator's cache has the node once a bind the node has no
		// room for is refused (a node it does not know yet is admitted
		// unjudged: the probe, bound then, is deleted and another tried).
		probe := 0
		Eventually(func() string {
			name := fmt.Sprintf("probe-%d", probe)
			probe++
			createPod(ns, name, "another-scheduler", requesting("2"))
			err := bind(name)
			Expect(cs.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})).To(Succeed())
			if err == nil {
				return "admitted"
			}
			return err.Error()
		}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(ContainSubstring("has no room for"))
		Eventually(func() int {
			pods, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "spec.nodeName=arbiter-1"})
			Expect(err).NotTo(HaveOccurred())
			return len(pods.Items)
		}).WithTimeout(timeout).Should(BeZero(), "no probe left on the node")

		Expect(bind("a")).To(Succeed())
		err = bind("b")
		Expect(err).To(HaveOccurred(), "700m + 700m on a node of 1 CPU")
		Expect(err.Error()).To(ContainSubstring(fmt.Sprintf("node arbiter-1 has no room for %s/b: cpu 700m requested, 300m free", ns)))
		Eventually(func() []string {
			var reasons []string
			list, err := cs.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=b"})
			Expect(err).NotTo(HaveOccurred())
			for _, e := range list.Items {
				reasons = append(reasons, e.Reason+": "+e.Message)
			}
			return reasons
		}).WithTimeout(timeout).WithPolling(50 * time.Millisecond).Should(ContainElement(HavePrefix(controllers.EventReasonBindRefused + ": node arbiter-1 has no room")))
		p := &corev1.Pod{}
		Expect(k8s.Get(suiteCtx, client.ObjectKey{Namespace: ns, Name: "b"}, p)).To(Succeed())
		Expect(p.Spec.NodeName).To(BeEmpty())
		// The legacy bindings resource, which takes the same Binding,
		// is judged too.
		err = cs.CoreV1().RESTClient().Post().Namespace(ns).Resource("bindings").Body(&corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b"},
			Target:     corev1.ObjectReference{Kind: "Node", Name: "arbiter-1"},
		}).Do(context.Background()).Error()
		Expect(err).To(HaveOccurred(), "bound through the bindings resource")
		Expect(err.Error()).To(ContainSubstring(fmt.Sprintf("node arbiter-1 has no room for %s/b", ns)))

		By("sending ten binds of 100m at once: the node has 300m, so exactly three land")
		for i := range 10 {
			createPod(ns, fmt.Sprintf("s-%d", i), "another-scheduler", requesting("100m"))
		}
		var wg sync.WaitGroup
		var landed atomic.Int32
		var refusals sync.Map
		start := make(chan struct{})
		for i := range 10 {
			wg.Go(func() {
				<-start
				if err := bind(fmt.Sprintf("s-%d", i)); err == nil {
					landed.Add(1)
				} else {
					refusals.Store(i, err.Error())
				}
			})
		}
		close(start)
		wg.Wait()
		Expect(landed.Load()).To(BeEquivalentTo(3))
		refusals.Range(func(_, v any) bool {
			Expect(v.(string)).To(ContainSubstring("has no room for"))
			return true
		})
	})
})

// addBindingWebhook adds, to the suite's webhook configuration, the bind
// arbiter's webhook for the binds of ns only (the other specs' binds are
// not judged), trusting the CA the other webhooks trust; removed when the
// spec ends.
func addBindingWebhook(ns string) {
	GinkgoHelper()
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: webhookConfig}, vwc)).To(Succeed())
		g.Expect(vwc.Webhooks).NotTo(BeEmpty())
		g.Expect(vwc.Webhooks[0].ClientConfig.CABundle).NotTo(BeEmpty())
	}).WithTimeout(timeout).Should(Succeed())
	url := fmt.Sprintf("https://127.0.0.1:%d%s", webhookPort, controllers.BindingWebhookPath)
	hook := admissionregistrationv1.ValidatingWebhook{
		Name:                    "vbinding.bindarbiter.profilescheduler.io",
		AdmissionReviewVersions: []string{"v1"},
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
		TimeoutSeconds:          ptr.To[int32](5),
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: vwc.Webhooks[0].ClientConfig.CABundle},
		NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/binding", "bindings"},
				Scope: ptr.To(admissionregistrationv1.NamespacedScope),
			},
		}},
	}
	base := vwc.DeepCopy()
	vwc.Webhooks = append(vwc.Webhooks, hook)
	Expect(k8s.Patch(suiteCtx, vwc, client.MergeFrom(base))).To(Succeed())
	DeferCleanup(func() {
		cur := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: webhookConfig}, cur)).To(Succeed())
		before := cur.DeepCopy()
		var kept []admissionregistrationv1.ValidatingWebhook
		for _, w := range cur.Webhooks {
			if !strings.HasPrefix(w.Name, "vbinding.") {
				kept = append(kept, w)
			}
		}
		cur.Webhooks = kept
		Expect(k8s.Patch(suiteCtx, cur, client.MergeFrom(before))).To(Succeed())
	})
}
