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
