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
	"crypto/tls"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv/fakeextender"
)

// startExtender starts a fake extender (plain HTTP, or TLS with a
// certificate set later) that stops when the spec ends.
func startExtender(useTLS bool) *fakeextender.Server {
	ext := fakeextender.Start(useTLS)
	DeferCleanup(ext.Close)
	return ext
}

// newCA returns a CA (PEM) and a serving certificate for 127.0.0.1 it
// signs.
func newCA() ([]byte, *tls.Certificate) {
	ca, cert, err := fakeextender.ServingCert()
	Expect(err).NotTo(HaveOccurred())
	return ca, cert
}

func newExtenderConfig(name, url string) *v1alpha1.ExtenderConfig {
	return &v1alpha1.ExtenderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ExtenderConfigSpec{
			URLPrefix:        url,
			FilterVerb:       "filter",
			NodeCacheCapable: true,
			HTTPTimeout:      &metav1.Duration{Duration: 2 * time.Second},
		},
	}
}

func expectExtender(name string, want status.Status, reason string) *v1alpha1.ExtenderConfig {
	ec := &v1alpha1.ExtenderConfig{}
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Name: name}, ec)).To(Succeed())
		g.Expect(ec.Status.ObservedGeneration).To(Equal(ec.Generation))
		g.Expect(kstatusOf(g, ec).Status).To(Equal(want))
		g.Expect(meta.FindStatusCondition(ec.Status.Conditions, v1alpha1.ConditionReady).Reason).To(Equal(reason))
	}).WithTimeout(timeout).WithPolling(100 * time.Millisecond).Should(Succeed())
	return ec
}

var _ = Describe("ExtenderConfig", func() {
	It("re-applies the profiles that use an extender when its CA is rotated in the Secret", func() {
		ns := createNamespace("tls")
		ext := startExtender(true)
		ca1, cert1 := newCA()
		ext.SetCertificate(cert1)

		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretsNamespace, Name: "extender-ca"}, Data: map[string][]byte{v1alpha1.SecretKeyCA: ca1}}
		Expect(k8s.Create(suiteCtx, secret)).To(Succeed())
		ec := newExtenderConfig("tls-extender", ext.URL)
		ec.Spec.TLSConfig = &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: secretsNamespace, Name: secret.Name}}
		Expect(k8s.Create(suiteCtx, ec)).To(Succeed())
		Expect(k8s.Create(suiteCtx, newProfile("tls-user", v1alpha1.SchedulerProfileSpec{Extenders: []string{ec.Name}}))).To(Succeed())

		sp := expectLive("tls-user", timeout)
		Expect(sp.Status.Extenders).To(Equal([]v1alpha1.ResolvedExtender{{Name: ec.Name, URLPrefix: ext.URL, Generation: 1}}))
		Expect(expectExtender(ec.Name, status.CurrentStatus, v1alpha1.ReasonActive).Status.Profiles).To(Equal([]string{"tls-user"}))
		boundNode(createPod(ns, "before-rotation", "tls-user"), timeout)
		Expect(ext.Calls()).To(BeNumerically(">", 0), "the extender filtered the pod")

		By("the extender moves to a certificate of a new CA: pods wait")
		ca2, cert2 := newCA()
		ext.SetCertificate(cert2)
		waiting := createPod(ns, "during-rotation", "tls-user")
		staysPending(waiting, 2*time.Second)

		By("the new CA in the Secret re-applies the profile, and the pod is bound")
		calls := ext.Calls()
		Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(secret), secret)).To(Succeed())
		secret.Data[v1alpha1.SecretKeyCA] = ca2
		Expect(k8s.Update(suiteCtx, secret)).To(Succeed())
		boundNode(waiting, timeout)
		Expect(ext.Calls()).To(BeNumerically(">", calls))
		expectLive("tls-user", timeout)
		deleteProfile("tls-user")
		Expect(k8s.Delete(suiteCtx, ec)).To(Succeed())
	})

	It("refuses an extender whose Secret is missing, and the profiles using it, until it appears", func() {
		ns := createNamespace("secret")
		ext := startExtender(true)
		ca, cert := newCA()
		ext.SetCertificate(cert)
		ec := newExtenderConfig("needs-secret", ext.URL)
		// No namespace: the operator's extender-secrets namespace.
		ec.Spec.TLSConfig = &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Name: "later"}}
		Expect(k8s.Create(suiteCtx, ec)).To(Succeed())
		Expect(k8s.Create(suiteCtx, newProfile("waits-for-secret", v1alpha1.SchedulerProfileSpec{Extenders: []string{ec.Name}}))).To(Succeed())
		expectExtender(ec.Name, status.FailedStatus, v1alpha1.ReasonSecretNotFound)
		sp := expectRefused("waits-for-secret", v1alpha1.ReasonExtenderNotReady, timeout)
		Expect(readyMessage(sp)).To(ContainSubstring(secretsNamespace + "/later"))

		Expect(k8s.Create(suiteCtx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretsNamespace, Name: "later"}, Data: map[string][]byte{v1alpha1.SecretKeyCA: ca}})).To(Succeed())
		expectExtender(ec.Name, status.CurrentStatus, v1alpha1.ReasonActive)
		expectLive("waits-for-secret", timeout)
		boundNode(createPod(ns, "p", "waits-for-secret"), timeout)
		deleteProfile("waits-for-secret")
		Expect(k8s.Delete(suiteCtx, ec)).To(Succeed())
	})

	It("refuses a Secret outside the extender-secrets namespace, naming the field, and never caches it", func() {
		tenant := createNamespace("tenant")
		ext := startExtender(true)
		ca, cert := newCA()
		ext.SetCertificate(cert)
		// A valid CA, in a namespace the operator must not read.
		Expect(k8s.Create(suiteCtx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "stolen"}, Data: map[string][]byte{v1alpha1.SecretKeyCA: ca}})).To(Succeed())
		ec := newExtenderConfig("elsewhere", ext.URL)
		ec.Spec.TLSConfig = &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: tenant, Name: "stolen"}}
		Expect(k8s.Create(suiteCtx, ec)).To(Succeed())
		Expect(k8s.Create(suiteCtx, newProfile("uses-elsewhere", v1alpha1.SchedulerProfileSpec{Extenders: []string{ec.Name}}))).To(Succeed())

		got := expectExtender(ec.Name, status.FailedStatus, v1alpha1.ReasonSecretNamespaceNotAllowed)
		msg := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionReady).Message
		Expect(msg).To(ContainSubstring(`spec.tlsConfig.secretRef.namespace "` + tenant + `"`))
		Expect(msg).To(ContainSubstring(`namespace "` + secretsNamespace + `"`))
		sp := expectRefused("uses-elsewhere", v1alpha1.ReasonExtenderNotReady, timeout)
		Expect(readyMessage(sp)).To(ContainSubstring("spec.tlsConfig.secretRef.namespace"))
		pending := createPod(tenant, "p", "uses-elsewhere")
		staysPending(pending, time.Second)
		Expect(ext.Calls()).To(BeZero(), "no framework calls the extender")

		By("the manager's cache holds the Secrets of the extender-secrets namespace only")
		var secrets corev1.SecretList
		Expect(op.cache.List(suiteCtx, &secrets, client.InNamespace(tenant))).NotTo(Succeed())
		Expect(op.cache.List(suiteCtx, &secrets)).To(Succeed())
		for _, s := range secrets.Items {
			Expect(s.Namespace).To(Equal(secretsNamespace))
		}

		By("the same Secret in the extender-secrets namespace, and the reference without a namespace, make both live")
		Expect(k8s.Create(suiteCtx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretsNamespace, Name: "moved"}, Data: map[string][]byte{v1alpha1.SecretKeyCA: ca}})).To(Succeed())
		Expect(k8s.Get(suiteCtx, client.ObjectKeyFromObject(ec), ec)).To(Succeed())
		ec.Spec.TLSConfig.SecretRef = &v1alpha1.SecretReference{Name: "moved"}
		Expect(k8s.Update(suiteCtx, ec)).To(Succeed())
		expectExtender(ec.Name, status.CurrentStatus, v1alpha1.ReasonActive)
		expectLive("uses-elsewhere", timeout)
		boundNode(pending, timeout)
		Expect(ext.Calls()).To(BeNumerically(">", 0))
		deleteProfile("uses-elsewhere")
		Expect(k8s.Delete(suiteCtx, ec)).To(Succeed())
	})

	It("keeps the last good framework serving when a referenced ExtenderConfig is deleted", func() {
		ns := createNamespace("ecdel")
		ext := startExtender(false)
		ec := newExtenderConfig("short-lived", ext.URL)
		Expect(k8s.Create(suiteCtx, ec)).To(Succeed())
		Expect(k8s.Create(suiteCtx, newProfile("outlives-extender", v1alpha1.SchedulerProfileSpec{Extenders: []string{ec.Name}}))).To(Succeed())
		expectLive("outlives-extender", timeout)
		boundNode(createPod(ns, "before", "outlives-extender"), timeout)

		Expect(k8s.Delete(suiteCtx, ec)).To(Succeed())
		sp := expectRefused("outlives-extender", v1alpha1.ReasonExtenderNotFound, timeout)
		Expect(sp.Status.ActiveGeneration).To(Equal(sp.Generation), "the framework built before the deletion keeps serving")
		Expect(readyMessage(sp)).To(ContainSubstring(`ExtenderConfig "short-lived" not found`))
		Expect(readyMessage(sp)).To(ContainSubstring("keeps serving"))
		calls := ext.Calls()
		boundNode(createPod(ns, "after", "outlives-extender"), timeout)
		Expect(ext.Calls()).To(BeNumerically(">", calls), "the serving framework still calls the extender")

		By("re-creating the ExtenderConfig makes the profile live again")
		Expect(k8s.Create(suiteCtx, newExtenderConfig("short-lived", ext.URL))).To(Succeed())
		expectLive("outlives-extender", timeout)
		deleteProfile("outlives-extender")
		Expect(k8s.Delete(suiteCtx, &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "short-lived"}})).To(Succeed())
	})
})
