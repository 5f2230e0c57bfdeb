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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// admittedExtender labels ec so that the test webhook configuration sends
// it to the operator's ExtenderConfig webhook.
func admittedExtender(ec *v1alpha1.ExtenderConfig) *v1alpha1.ExtenderConfig {
	ec.Labels = map[string]string{admissionLabel: "true"}
	return ec
}

// createThroughWebhook creates ec as kubectl apply would and returns the
// API server's answer, once the webhook server answers at all.
func createThroughWebhook(ec *v1alpha1.ExtenderConfig) error {
	var err error
	Eventually(func() error {
		err = k8s.Create(suiteCtx, ec.DeepCopy())
		if err == nil || apierrors.IsInvalid(err) {
			return nil
		}
		return err // the webhook server may still be starting
	}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
	return err
}

var _ = Describe("ExtenderConfig admission webhook", func() {
	BeforeEach(func() {
		// The operator patches its self-signed CA into every webhook of the
		// configuration.
		Eventually(func(g Gomega) {
			vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: webhookConfig}, vwc)).To(Succeed())
			g.Expect(vwc.Webhooks).To(HaveLen(2))
			for _, w := range vwc.Webhooks {
				g.Expect(w.ClientConfig.CABundle).NotTo(BeEmpty(), w.Name)
			}
		}).WithTimeout(timeout).Should(Succeed())
	})

	It("refuses a secretRef outside the extender-secrets namespace, naming the field, with the message of the status", func() {
		ec := newExtenderConfig("wh-elsewhere", "https://127.0.0.1:1/ext")
		ec.Spec.TLSConfig = &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: "kube-system", Name: "stolen"}}
		err := createThroughWebhook(admittedExtender(ec))
		Expect(err).To(HaveOccurred(), "an ExtenderConfig naming a Secret of kube-system was admitted")
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), err.Error())
		Expect(err.Error()).To(ContainSubstring(`admission webhook "vextenderconfig.scheduling.profilescheduler.io" denied the request`))
		Expect(err.Error()).To(ContainSubstring("spec.tlsConfig.secretRef.namespace: Invalid value: " + v1alpha1.ReasonSecretNamespaceNotAllowed))
		Expect(err.Error()).To(ContainSubstring(`spec.tlsConfig.secretRef.namespace "kube-system"`))
		Expect(err.Error()).To(ContainSubstring(`namespace "` + secretsNamespace + `"`))
		Expect(apierrors.IsNotFound(k8s.Get(suiteCtx, client.ObjectKeyFromObject(ec), &v1alpha1.ExtenderConfig{}))).To(BeTrue())

		By("the same object, not sent to the webhook, gets the same message in status")
		plain := newExtenderConfig("wh-elsewhere", "https://127.0.0.1:1/ext")
		plain.Spec.TLSConfig = ec.Spec.TLSConfig.DeepCopy()
		Expect(k8s.Create(suiteCtx, plain)).To(Succeed())
		DeferCleanup(func() { Expect(client.IgnoreNotFound(k8s.Delete(suiteCtx, plain))).To(Succeed()) })
		got := expectExtender(plain.Name, status.FailedStatus, v1alpha1.ReasonSecretNamespaceNotAllowed)
		_, refusal, found := strings.Cut(meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady).Message, " refused: ")
		Expect(found).To(BeTrue())
		Expect(err.Error()).To(HaveSuffix(v1alpha1.ReasonSecretNamespaceNotAllowed + ": " + refusal))

		By("now sent to the webhook, an update of metadata alone is admitted and one keeping the namespace is not")
		Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(plain), plain)).To(Succeed())
		plain.Labels = map[string]string{admissionLabel: "true", "team": "a"}
		Expect(k8s.Update(suiteCtx, plain)).To(Succeed())
		plain.Spec.FilterVerb = "filter2"
		err = k8s.Update(suiteCtx, plain)
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("spec.tlsConfig.secretRef.namespace"))
	})

	It("refuses a spec the reconciler refuses, naming the field", func() {
		ec := newExtenderConfig("wh-no-verb", "https://127.0.0.1:1/ext")
		ec.Spec.FilterVerb = ""
		err := createThroughWebhook(admittedExtender(ec))
		Expect(err).To(HaveOccurred(), "an ExtenderConfig without a verb was admitted")
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), err.Error())
		// The CRD schema lets it through; the webhook refuses it.
		Expect(err.Error()).To(ContainSubstring(`admission webhook "vextenderconfig.scheduling.profilescheduler.io" denied the request`))
		Expect(err.Error()).To(ContainSubstring("spec: Invalid value: " + v1alpha1.ReasonInvalidSpec))
		Expect(err.Error()).To(ContainSubstring("filterVerb"))

	})

	DescribeTable("admits a secretRef in the extender-secrets namespace, without reading the Secret",
		func(name, namespace string) {
			// No Secret of that name exists: the reconciler reports it, the
			// webhook does not look.
			ec := newExtenderConfig(name, "https://127.0.0.1:1/ext")
			ec.Spec.TLSConfig = &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: namespace, Name: "absent-" + name}}
			Expect(createThroughWebhook(admittedExtender(ec))).To(Succeed())
			DeferCleanup(func() { Expect(k8s.Delete(suiteCtx, ec)).To(Succeed()) })
			expectExtender(name, status.FailedStatus, v1alpha1.ReasonSecretNotFound)
		},
		Entry("namespace unset", "wh-ns-unset", ""),
		Entry("namespace named", "wh-ns-named", secretsNamespace),
	)
})
