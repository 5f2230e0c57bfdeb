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

package chart

import (
	"testing"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestBindArbiterWebhook: with bindArbiter.enabled the operator runs with
// --bind-arbiter and the webhook configuration sends every pods/binding
// CREATE, but those of the release's namespace and the excluded ones, to
// it, failing open with the timeout asked for; without it, neither.
func TestBindArbiterWebhook(t *testing.T) {
	g := NewWithT(t)
	webhooks := func(set ...string) (map[string]admissionregistrationv1.ValidatingWebhook, []string) {
		objs := renderChart(t, set...)
		cfg := find(objs, "ValidatingWebhookConfiguration", "profile-scheduler-validating-webhook")
		g.Expect(cfg).NotTo(BeNil())
		var vwc admissionregistrationv1.ValidatingWebhookConfiguration
		g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(cfg.Object, &vwc)).To(Succeed())
		out := map[string]admissionregistrationv1.ValidatingWebhook{}
		for _, w := range vwc.Webhooks {
			out[w.Name] = w
		}
		return out, deployment(t, objs).Spec.Template.Spec.Containers[0].Args
	}
	const name = "vbinding.bindarbiter.profilescheduler.io"

	hooks, args := webhooks()
	g.Expect(hooks).NotTo(HaveKey(name))
	g.Expect(args).NotTo(ContainElement("--bind-arbiter"))

	hooks, args = webhooks("--set", "bindArbiter.enabled=true,bindArbiter.excludedNamespaces={kube-system,monitoring}")
	g.Expect(args).To(ContainElement("--bind-arbiter"))
	g.Expect(hooks).To(HaveKey(name))
	w := hooks[name]
	g.Expect(*w.FailurePolicy).To(Equal(admissionregistrationv1.Ignore))
	g.Expect(*w.TimeoutSeconds).To(BeEquivalentTo(1))
	g.Expect(*w.SideEffects).To(Equal(admissionregistrationv1.SideEffectClassNone))
	g.Expect(w.ClientConfig.Service.Path).To(HaveValue(Equal("/validate-pods-binding")))
	g.Expect(w.Rules).To(HaveLen(1))
	g.Expect(w.Rules[0].Operations).To(ConsistOf(admissionregistrationv1.Create))
	g.Expect(w.Rules[0].Resources).To(ConsistOf("pods/binding", "bindings"))
	g.Expect(w.Rules[0].APIGroups).To(ConsistOf(""))
	g.Expect(w.NamespaceSelector.MatchExpressions).To(HaveLen(1))
	g.Expect(w.NamespaceSelector.MatchExpressions[0].Key).To(Equal("kubernetes.io/metadata.name"))
	g.Expect(w.NamespaceSelector.MatchExpressions[0].Values).To(ConsistOf(namespace, "kube-system", "monitoring"))
}

// TestBindArbiterReachesTheLeaderOnly: the arbiter's webhook calls a
// Service of its own, which selects the label only the leader's pod has;
// the operator may patch pods of its namespace only (its own, to set the
// label), as the README documents; its certificate covers that Service.
func TestBindArbiterReachesTheLeaderOnly(t *testing.T) {
	g := NewWithT(t)
	objs := renderChart(t, "--set", "bindArbiter.enabled=true,webhook.certManager.enabled=true")
	svcName := releaseName + "-bind-arbiter"
	svc := find(objs, "Service", svcName)
	g.Expect(svc).NotTo(BeNil())
	var s corev1.Service
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(svc.Object, &s)).To(Succeed())
	g.Expect(s.Spec.Selector).To(HaveKeyWithValue("scheduling.profilescheduler.io/bind-arbiter", "leader"))
	webhookSvc := find(objs, "Service", releaseName+"-webhook")
	g.Expect(webhookSvc).NotTo(BeNil())
	for k, v := range webhookSvc.Object["spec"].(map[string]any)["selector"].(map[string]any) {
		g.Expect(s.Spec.Selector).To(HaveKeyWithValue(k, v), "the arbiter's Service selects the operator's pods")
	}

	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(find(objs, "ValidatingWebhookConfiguration", "profile-scheduler-validating-webhook").Object, &vwc)).To(Succeed())
	for _, w := range vwc.Webhooks {
		want := releaseName + "-webhook"
		if w.Name == "vbinding.bindarbiter.profilescheduler.io" {
			want = svcName
		}
		g.Expect(w.ClientConfig.Service.Name).To(Equal(want), w.Name)
	}

	role := find(objs, "Role", releaseName+"-bind-arbiter")
	g.Expect(role).NotTo(BeNil())
	g.Expect(role.GetNamespace()).To(Equal(namespace))
	documented := expand(documentedRules(t, "### Role `<fullname>-bind-arbiter`", true))
	g.Expect(documented).To(Equal([]string{"patch pods"}))
	g.Expect(permissions(t, role)).To(Equal(documented))
	g.Expect(find(objs, "RoleBinding", releaseName+"-bind-arbiter")).NotTo(BeNil())

	args := deployment(t, objs).Spec.Template.Spec.Containers[0].Args
	g.Expect(args).To(ContainElements("--bind-arbiter-service-name="+svcName, "--bind-arbiter-excluded-namespaces=kube-system", "--bind-arbiter-concurrency=64"))
	cert := find(objs, "Certificate", releaseName+"-webhook")
	g.Expect(cert).NotTo(BeNil())
	g.Expect(cert.Object["spec"].(map[string]any)["dnsNames"]).To(ContainElement(svcName + "." + namespace + ".svc"))

	for _, kind := range []string{"Service", "Role", "RoleBinding"} {
		g.Expect(find(renderChart(t), kind, releaseName+"-bind-arbiter")).To(BeNil(), "without the arbiter, no %s of its own", kind)
	}
}

// TestWebhookNetworkPolicy: opt-in, the webhook port open to the
// control plane's addresses only, metrics and health to all; enabled
// without addresses, the chart fails, saying what to set.
func TestWebhookNetworkPolicy(t *testing.T) {
	g := NewWithT(t)
	g.Expect(find(renderChart(t), "NetworkPolicy", releaseName+"-webhook")).To(BeNil(), "off by default")
	objs := renderChart(t, "--set", "webhook.networkPolicy.enabled=true,webhook.networkPolicy.from[0].ipBlock.cidr=10.0.0.10/32")
	u := find(objs, "NetworkPolicy", releaseName+"-webhook")
	g.Expect(u).NotTo(BeNil())
	var np networkingv1.NetworkPolicy
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &np)).To(Succeed())
	g.Expect(np.Spec.PolicyTypes).To(ConsistOf(networkingv1.PolicyTypeIngress))
	g.Expect(np.Spec.Ingress).To(HaveLen(2))
	g.Expect(np.Spec.Ingress[0].Ports).To(HaveLen(1))
	g.Expect(np.Spec.Ingress[0].Ports[0].Port.String()).To(Equal("webhook"))
	g.Expect(np.Spec.Ingress[0].From).To(HaveLen(1))
	g.Expect(np.Spec.Ingress[0].From[0].IPBlock.CIDR).To(Equal("10.0.0.10/32"))
	g.Expect(np.Spec.Ingress[1].From).To(BeEmpty(), "metrics and health stay open")
	sel := deployment(t, objs).Spec.Selector.MatchLabels
	g.Expect(np.Spec.PodSelector.MatchLabels).To(Equal(sel))

	_, err := helm(t, "template", releaseName, chartDir(t), "--namespace", namespace, "--set", "webhook.networkPolicy.enabled=true")
	g.Expect(err).To(MatchError(ContainSubstring("webhook.networkPolicy.enabled needs webhook.networkPolicy.from")))
}
