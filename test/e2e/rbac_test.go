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
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
)

const chartNamespace = "profile-scheduler-system"

// secretsNamespaceFlag is what the chart's --extender-secrets-namespace=$(POD_NAMESPACE)
// expands to in a pod of the release namespace.
const secretsNamespaceFlag = "--extender-secrets-namespace=" + chartNamespace

// renderChartRBAC renders the chart as an admin installs it on a cluster
// that serves MutatingAdmissionPolicy v1, and returns its ServiceAccount,
// RBAC objects and routes policy and binding.
func renderChartRBAC() []*unstructured.Unstructured {
	root, err := controlplane.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	build := exec.Command("make", "--no-print-directory", "helm")
	build.Dir = root
	out, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))

	tmpl := exec.Command(filepath.Join(root, "bin", "helm"), "template", "profile-scheduler",
		filepath.Join(root, "charts", "profile-scheduler"), "--namespace", chartNamespace,
		"--api-versions", "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy")
	var stderr bytes.Buffer
	tmpl.Stderr = &stderr
	rendered, err := tmpl.Output()
	Expect(err).NotTo(HaveOccurred(), stderr.String())

	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			Expect(err).NotTo(HaveOccurred())
		}
		switch u.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
			"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
			objs = append(objs, u)
		}
	}
	return objs
}

func applyObjects(ctx SpecContext, objs []*unstructured.Unstructured) {
	for _, u := range objs {
		Expect(k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()), client.FieldOwner("e2e"), client.ForceOwnership)).
			To(Succeed(), "applying %s %s", u.GetKind(), u.GetName())
	}
}

// withoutRule returns a copy of the ClusterRole with every rule on resource
// removed, under a new name.
func withoutRule(role *unstructured.Unstructured, name, resource string) *unstructured.Unstructured {
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	out := &unstructured.Unstructured{}
	out.SetAPIVersion(role.GetAPIVersion())
	out.SetKind(role.GetKind())
	out.SetName(name)
	kept := rules[:0]
	removed := 0
	for _, r := range rules {
		res, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "resources")
		drop := false
		for _, x := range res {
			drop = drop || x == resource
		}
		if drop {
			removed++
			continue
		}
		kept = append(kept, r)
	}
	Expect(removed).To(BeNumerically(">", 0), "the chart's ClusterRole has no rule on %s", resource)
	Expect(unstructured.SetNestedSlice(out.Object, kept, "rules")).To(Succeed())
	return out
}

func serviceAccount(name string) *identity {
	return &identity{
		User:   "system:serviceaccount:" + chartNamespace + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + chartNamespace, "system:authenticated"},
	}
}

var _ = Describe("the chart's RBAC", Ordered, func() {
	const ns = "rbac"
	var rbacObjs []*unstructured.Unstructured

	BeforeAll(func(ctx SpecContext) {
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chartNamespace}})).To(Succeed())
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		rbacObjs = renderChartRBAC()
		applyObjects(ctx, rbacObjs)
		Expect(local.CreateNodes(ctx, k8s, []local.NodeSpec{
			{Name: "rbac-1", Zone: "zone-a", CPU: "16", Memory: "64Gi", Pods: "110"},
		})).To(Succeed())
	})

	pod := func(name, schedulerName string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.PodSpec{
				SchedulerName: schedulerName,
				Containers:    []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}},
			},
		}
	}
	podBound := func(ctx SpecContext, name string) {
		Eventually(func(g Gomega) {
			var p corev1.Pod
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &p)).To(Succeed())
			g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "pod %s/%s is not bound", ns, name)
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
	}
	profileReady := func(ctx SpecContext, name string) {
		Eventually(func(g Gomega) {
			var sp v1alpha1.SchedulerProfile
			g.Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, &sp)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
			g.Expect(sp.Status.ObservedGeneration).To(Equal(sp.Generation))
		}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
	}

	// routeReason waits until the route's latest generation is decided
	// with reason, and returns the Ready condition's message.
	routeReason := func(ctx SpecContext, name, reason string) string {
		GinkgoHelper()
		var msg string
		Eventually(func(g Gomega) {
			var pr v1alpha1.ProfileRoute
			g.Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, &pr)).To(Succeed())
			g.Expect(pr.Status.ObservedGeneration).To(Equal(pr.Generation))
			ready := meta.FindStatusCondition(pr.Status.Conditions, v1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Reason).To(Equal(reason), ready.Message)
			msg = ready.Message
		}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		return msg
	}

	It("lets the operator, as the chart's ServiceAccount, reconcile profiles, elect a leader and bind pods", func(ctx SpecContext) {
		metricsAddr := freeAddr()
		op := startInstanceAs("rbac-chart", serviceAccount("profile-scheduler"), secretsNamespaceFlag,
			"--leader-elect", "--leader-elect-namespace="+chartNamespace,
			"--metrics-bind-address="+metricsAddr, "--metrics-secure=false")
		Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "rbac-ok"}})).To(Succeed())
		profileReady(ctx, "rbac-ok")
		for i := range 5 {
			Expect(k8s.Create(ctx, pod(fmt.Sprintf("ok-%d", i), "rbac-ok"))).To(Succeed())
		}
		Eventually(func(g Gomega) {
			for i := range 5 {
				var p corev1.Pod
				g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: fmt.Sprintf("ok-%d", i)}, &p)).To(Succeed())
				g.Expect(p.Spec.NodeName).NotTo(BeEmpty()) // other specs' nodes may be there too
			}
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		Eventually(op.ready).WithTimeout(10 * time.Second).Should(Succeed())
		// The audit log shows who bound them: the ServiceAccount, nobody else.
		bound := 0
		for _, b := range bindings(ctx) {
			if strings.HasPrefix(b.Pod, ns+"/ok-") {
				Expect(b.User).To(Equal(serviceAccount("profile-scheduler").User))
				Expect(b.Code).To(Equal(201))
				bound++
			}
		}
		Expect(bound).To(Equal(5))

		By("scraping /metrics: upstream scheduler metrics per profile, and the operator's own")
		Eventually(func(g Gomega) string {
			resp, err := http.Get("http://" + metricsAddr + "/metrics")
			g.Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			g.Expect(err).NotTo(HaveOccurred())
			return string(body)
		}).WithTimeout(10 * time.Second).Should(And(
			MatchRegexp(`scheduler_schedule_attempts_total\{profile="rbac-ok",result="scheduled"\} 5`),
			MatchRegexp(`scheduler_pod_scheduling_sli_duration_seconds_count\{.*\} \d+`),
			MatchRegexp(`profile_scheduler_profile_swaps_total\{profile="rbac-ok"\} 1`),
			MatchRegexp(`profile_scheduler_active_profiles [1-9]`),
			ContainSubstring(`controller_runtime_reconcile_total{controller="schedulerprofile"`),
		))
		// Stop it cleanly: it releases the lease for whoever comes next.
		op.stop()
	})

	It("schedules a gang with GenericWorkload on, as the chart's ServiceAccount, and writes the PodGroup's condition", func(ctx SpecContext) {
		op := startInstanceAs("rbac-gang", serviceAccount("profile-scheduler"), secretsNamespaceFlag,
			"--feature-gates=GenericWorkload=true")
		Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "rbac-gang"}})).To(Succeed())
		profileReady(ctx, "rbac-gang")
		Expect(k8s.Create(ctx, &schedulingv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gang"},
			Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
				Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 3},
			}},
		})).To(Succeed())
		for i := range 3 {
			p := pod(fmt.Sprintf("gang-%d", i), "rbac-gang")
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("gang")}
			Expect(k8s.Create(ctx, p)).To(Succeed())
		}
		for i := range 3 {
			podBound(ctx, fmt.Sprintf("gang-%d", i))
		}
		Eventually(func(g Gomega) {
			var pg schedulingv1beta1.PodGroup
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "gang"}, &pg)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(pg.Status.Conditions, "PodGroupInitiallyScheduled")).To(BeTrue())
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		op.stop()
	})

	It("reads extender Secrets in its own namespace only, and extender TLS still follows rotation", func(ctx SpecContext) {
		sa := serviceAccount("profile-scheduler")
		asSA := rest.CopyConfig(cfg)
		asSA.Impersonate = rest.ImpersonationConfig{UserName: sa.User, Groups: sa.Groups}
		saClient, err := client.New(asSA, client.Options{Scheme: k8s.Scheme()})
		Expect(err).NotTo(HaveOccurred())

		By("under the chart's RBAC the ServiceAccount cannot read a Secret of another namespace, nor list Secrets cluster-wide")
		tenantCA, _ := newServingCert()
		tenant := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant-tls"}, Data: map[string][]byte{v1alpha1.SecretKeyCA: tenantCA}}
		Expect(k8s.Create(ctx, tenant)).To(Succeed())
		err = saClient.Get(ctx, client.ObjectKeyFromObject(tenant), &corev1.Secret{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "get Secret %s/%s as the operator: %v", ns, tenant.Name, err)
		err = saClient.List(ctx, &corev1.SecretList{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "list Secrets cluster-wide as the operator: %v", err)
		probed := time.Now()

		By("an HTTPS extender whose CA is a Secret of the operator's namespace")
		ext := newTLSExtender()
		ca1, cert1 := newServingCert()
		ext.SetCertificate(cert1)
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: chartNamespace, Name: "extender-tls"}, Data: map[string][]byte{v1alpha1.SecretKeyCA: ca1}}
		Expect(k8s.Create(ctx, secret)).To(Succeed())
		ec := &v1alpha1.ExtenderConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "rbac-tls"},
			Spec: v1alpha1.ExtenderConfigSpec{
				URLPrefix: ext.URL, FilterVerb: "filter", NodeCacheCapable: true,
				HTTPTimeout: &metav1.Duration{Duration: 2 * time.Second},
				TLSConfig:   &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Name: secret.Name}},
			},
		}
		Expect(k8s.Create(ctx, ec)).To(Succeed())
		foreign := &v1alpha1.ExtenderConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "rbac-foreign"},
			Spec: v1alpha1.ExtenderConfigSpec{
				URLPrefix: ext.URL, FilterVerb: "filter",
				TLSConfig: &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: ns, Name: tenant.Name}},
			},
		}
		Expect(k8s.Create(ctx, foreign)).To(Succeed())
		Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "rbac-tls"},
			Spec: v1alpha1.SchedulerProfileSpec{Extenders: []string{ec.Name}}})).To(Succeed())

		startInstanceAs("rbac-secrets", sa, secretsNamespaceFlag)
		profileReady(ctx, "rbac-tls")
		Expect(k8s.Create(ctx, pod("tls-0", "rbac-tls"))).To(Succeed())
		podBound(ctx, "tls-0")
		Expect(ext.Calls()).To(BeNumerically(">", 0), "the extender filtered the pod over TLS")

		By("an ExtenderConfig naming a Secret of another namespace is refused, naming the field")
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(foreign), foreign)).To(Succeed())
			c := meta.FindStatusCondition(foreign.Status.Conditions, v1alpha1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(v1alpha1.ReasonSecretNamespaceNotAllowed))
			return c.Message
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(
			ContainSubstring(`spec.tlsConfig.secretRef.namespace "` + ns + `"`))

		By("the extender moves to a certificate of a new CA: pods wait until the Secret has it")
		ca2, cert2 := newServingCert()
		ext.SetCertificate(cert2)
		Expect(k8s.Create(ctx, pod("tls-1", "rbac-tls"))).To(Succeed())
		Consistently(func(g Gomega) string {
			var p corev1.Pod
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "tls-1"}, &p)).To(Succeed())
			return p.Spec.NodeName
		}).WithTimeout(2 * time.Second).WithPolling(250 * time.Millisecond).Should(BeEmpty())
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(secret), secret)).To(Succeed())
		secret.Data[v1alpha1.SecretKeyCA] = ca2
		Expect(k8s.Update(ctx, secret)).To(Succeed())
		podBound(ctx, "tls-1")

		By("the audit log: the operator asked for Secrets of its namespace only, and was never refused one")
		own := 0
		for _, ev := range auditEvents() {
			if ev.Resource != "secrets" || ev.User != sa.User || ev.At.Before(probed) {
				continue
			}
			Expect(ev.Namespace).To(Equal(chartNamespace), "%s secrets %s/%s", ev.Verb, ev.Namespace, ev.Name)
			Expect(ev.Code).To(BeNumerically("<", 400), "%s secrets %s/%s", ev.Verb, ev.Namespace, ev.Name)
			own++
		}
		Expect(own).To(BeNumerically(">", 0), "the operator lists and watches the Secrets of its namespace")
	})

	It("routes pods as the chart's ServiceAccount; a namespace edit user can neither create routes nor change the policy", func(ctx SpecContext) {
		// The chart sets POD_NAMESPACE: probe pods go to the release
		// namespace, where the route-probe Role lets the operator create
		// them (dry-run).
		GinkgoT().Setenv("POD_NAMESPACE", chartNamespace)
		op := startInstanceAs("rbac-routes", serviceAccount("profile-scheduler"), secretsNamespaceFlag)
		Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "rbac-routed"}})).To(Succeed())
		profileReady(ctx, "rbac-routed")
		route := &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: "rbac-routes"}, Spec: v1alpha1.ProfileRouteSpec{
			Profile: "rbac-routed",
			NamespaceSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: []string{ns}}}},
		}}
		Expect(k8s.Create(ctx, route)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(route), route)).To(Succeed())
			ready := meta.FindStatusCondition(route.Status.Conditions, v1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
		}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(route.Status.ExcludedNamespaces).To(Equal([]string{"kube-system", chartNamespace}))
		Expect(k8s.Create(ctx, pod("routed-0", ""))).To(Succeed())
		var routed corev1.Pod
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "routed-0"}, &routed)).To(Succeed())
		Expect(routed.Spec.SchedulerName).To(Equal("rbac-routed"))
		Expect(routed.Annotations).To(HaveKeyWithValue(v1alpha1.RouteAnnotation, "rbac-routes"))
		podBound(ctx, "routed-0")

		By("a user with the built-in edit role in the namespace")
		// envtest runs no clusterrole-aggregation controller, so edit is
		// empty here: bind what it aggregates, the chart's review role
		// included.
		for _, role := range []string{"system:aggregate-to-edit", "system:aggregate-to-view", "profile-scheduler-review-edit"} {
			Expect(k8s.Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "alice-" + strings.ReplaceAll(role, ":", "-")},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
				Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "alice"}},
			})).To(Succeed())
		}
		asAlice := rest.CopyConfig(cfg)
		asAlice.Impersonate = rest.ImpersonationConfig{UserName: "alice", Groups: []string{"system:authenticated"}}
		alice, err := client.New(asAlice, client.Options{Scheme: k8s.Scheme()})
		Expect(err).NotTo(HaveOccurred())
		Expect(alice.Create(ctx, pod("alice-0", ""))).To(Succeed(), "edit creates pods in its namespace")
		err = alice.Create(ctx, &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: "alice"}, Spec: route.Spec})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "create a ProfileRoute as an edit user: %v", err)
		var policy admissionregistrationv1.MutatingAdmissionPolicy
		Expect(k8s.Get(ctx, client.ObjectKey{Name: "profile-scheduler-routes"}, &policy)).To(Succeed())
		policy.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
		err = alice.Update(ctx, &policy)
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "update the route policy as an edit user: %v", err)
		err = alice.Delete(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "profile-scheduler-routes"}})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "delete the route policy's binding as an edit user: %v", err)

		By("deleting the route: the operator lets it go once kube-apiserver no longer runs it")
		Expect(k8s.Delete(ctx, route)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(route), route))
		}).WithTimeout(30 * time.Second).Should(BeTrue())
		Expect(k8s.Create(ctx, pod("unrouted-0", ""))).To(Succeed())
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "unrouted-0"}, &routed)).To(Succeed())
		Expect(routed.Spec.SchedulerName).To(Equal(corev1.DefaultSchedulerName))
		op.stop()
	})

	It("gives the operator's ServiceAccount no right on admission policies; routes route with the operator killed; a refused table or a deleted policy shows on every route", func(ctx SpecContext) {
		GinkgoT().Setenv("POD_NAMESPACE", chartNamespace)
		sa := serviceAccount("profile-scheduler")
		asSA := rest.CopyConfig(cfg)
		asSA.Impersonate = rest.ImpersonationConfig{UserName: sa.User, Groups: sa.Groups}
		saClient, err := client.New(asSA, client.Options{Scheme: k8s.Scheme()})
		Expect(err).NotTo(HaveOccurred())

		op := startInstanceAs("rbac-guard", sa, secretsNamespaceFlag)
		Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "rbac-guarded"}})).To(Succeed())
		profileReady(ctx, "rbac-guarded")
		route := &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: "rbac-guarded"}, Spec: v1alpha1.ProfileRouteSpec{
			Profile: "rbac-guarded",
			NamespaceSelector: &v1alpha1.LabelSelector{MatchExpressions: []v1alpha1.LabelSelectorRequirement{
				{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: []string{ns}}}},
		}}
		Expect(k8s.Create(ctx, route)).To(Succeed())
		routeReason(ctx, route.Name, v1alpha1.ReasonActive)
		routed := func(name string) {
			GinkgoHelper()
			Expect(k8s.Create(ctx, pod(name, ""))).To(Succeed())
			var p corev1.Pod
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &p)).To(Succeed())
			Expect(p.Spec.SchedulerName).To(Equal("rbac-guarded"), "pod %s is routed", name)
		}
		routed("guarded-0")

		By("as the operator's ServiceAccount: no right at all on the routes program and its binding")
		mine := &admissionregistrationv1.MutatingAdmissionPolicy{}
		Expect(k8s.Get(ctx, client.ObjectKey{Name: "profile-scheduler-routes"}, mine)).To(Succeed())
		forbidden := func(what string, err error) {
			GinkgoHelper()
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%s as the operator: %v", what, err)
		}
		forbidden("get the routes policy", saClient.Get(ctx, client.ObjectKey{Name: "profile-scheduler-routes"}, &admissionregistrationv1.MutatingAdmissionPolicy{}))
		forbidden("get the routes binding", saClient.Get(ctx, client.ObjectKey{Name: "profile-scheduler-routes"}, &admissionregistrationv1.MutatingAdmissionPolicyBinding{}))
		failClosed := mine.DeepCopy()
		failClosed.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
		forbidden("update the routes policy", saClient.Update(ctx, failClosed))
		forbidden("create a MutatingAdmissionPolicy", saClient.Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "rbac-own-policy"}, Spec: mine.Spec}))
		forbidden("create a MutatingAdmissionPolicyBinding", saClient.Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "rbac-own-policy"},
			Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "profile-scheduler-routes"}}))
		forbidden("list MutatingAdmissionPolicies", saClient.List(ctx, &admissionregistrationv1.MutatingAdmissionPolicyList{}))
		forbidden("delete the routes policy", saClient.Delete(ctx, mine.DeepCopy()))
		forbidden("delete the routes binding", saClient.Delete(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "profile-scheduler-routes"}}))
		routed("guarded-1")

		By("the operator killed: pods are still routed")
		op.kill()
		for i := range 3 {
			routed(fmt.Sprintf("guarded-down-%d", i))
		}

		By("the operator's own write of the table refused: every route says so, and the table in force keeps routing")
		op = startInstanceAs("rbac-guard-2", sa, secretsNamespaceFlag)
		marked := &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: "rbac-refuse-me"}, Spec: v1alpha1.ProfileRouteSpec{
			Profile: "rbac-guarded", Priority: 10, NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"e2e-guard": "refuse-me"}}}}
		Expect(k8s.Create(ctx, marked)).To(Succeed())
		for _, name := range []string{marked.Name, route.Name} {
			Expect(routeReason(ctx, name, v1alpha1.ReasonRoutingTableRefused)).To(And(
				ContainSubstring("RoutingTable profile-scheduler-routes"),
				ContainSubstring("e2e test guard: a route selects refuse-me")))
		}
		routed("guarded-refused-0")
		Expect(k8s.Delete(ctx, marked)).To(Succeed())
		routeReason(ctx, route.Name, v1alpha1.ReasonActive)
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(marked), marked))
		}).WithTimeout(30 * time.Second).Should(BeTrue())

		By("the policy deleted by hand: a probe shows it within seconds, on every route, and none is Ready")
		Expect(k8s.Delete(ctx, mine.DeepCopy())).To(Succeed())
		Expect(routeReason(ctx, route.Name, v1alpha1.ReasonAdmissionPolicyNotInForce)).To(
			ContainSubstring("it came back with no revision"))
		By("restored as the chart installs it: Ready again")
		applyObjects(ctx, rbacObjs)
		routeReason(ctx, route.Name, v1alpha1.ReasonActive)
		routed("guarded-restored-0")

		Expect(k8s.Delete(ctx, route)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(route), route))
		}).WithTimeout(30 * time.Second).Should(BeTrue())
		op.stop()
	})

	It("breaks when one needed rule is dropped: without pods/binding no pod is bound", func(ctx SpecContext) {
		var role *unstructured.Unstructured
		for _, o := range rbacObjs {
			if o.GetKind() == "ClusterRole" && o.GetName() == "profile-scheduler" {
				role = o
			}
		}
		Expect(role).NotTo(BeNil(), "the chart renders ClusterRole profile-scheduler")
		broken := withoutRule(role, "profile-scheduler-no-binding", "pods/binding")
		sa := &unstructured.Unstructured{}
		sa.SetAPIVersion("v1")
		sa.SetKind("ServiceAccount")
		sa.SetNamespace(chartNamespace)
		sa.SetName("profile-scheduler-no-binding")
		binding := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1",
			"kind":       "ClusterRoleBinding",
			"metadata":   map[string]any{"name": "profile-scheduler-no-binding"},
			"roleRef":    map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": broken.GetName()},
			"subjects": []any{map[string]any{
				"kind": "ServiceAccount", "name": sa.GetName(), "namespace": chartNamespace,
			}},
		}}
		// The chart's namespaced Secrets Role, unchanged.
		secrets := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1",
			"kind":       "RoleBinding",
			"metadata":   map[string]any{"name": "profile-scheduler-no-binding", "namespace": chartNamespace},
			"roleRef":    map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "profile-scheduler"},
			"subjects": []any{map[string]any{
				"kind": "ServiceAccount", "name": sa.GetName(), "namespace": chartNamespace,
			}},
		}}
		applyObjects(ctx, []*unstructured.Unstructured{sa, broken, binding, secrets})

		startInstanceAs("rbac-broken", serviceAccount("profile-scheduler-no-binding"), secretsNamespaceFlag)
		Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "rbac-broken"}})).To(Succeed())
		// Everything else still works: the profile goes live.
		profileReady(ctx, "rbac-broken")
		Expect(k8s.Create(ctx, pod("broken-0", "rbac-broken"))).To(Succeed())

		By("the API server refuses the binding, and the pod stays unbound")
		Eventually(func(g Gomega) {
			refused := 0
			for _, b := range bindings(ctx) {
				if b.Pod == ns+"/broken-0" && b.Code == 403 && b.User == serviceAccount("profile-scheduler-no-binding").User {
					refused++
				}
			}
			g.Expect(refused).To(BeNumerically(">", 0))
		}).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		Consistently(func(g Gomega) string {
			var p corev1.Pod
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "broken-0"}, &p)).To(Succeed())
			return p.Spec.NodeName
		}).WithTimeout(3 * time.Second).WithPolling(250 * time.Millisecond).Should(BeEmpty())
	})
})
