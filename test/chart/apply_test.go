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
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// One control plane for the package, started by the first test that needs it.
var (
	envOnce sync.Once
	env     *envtest.Environment
	k8s     client.Client
	envErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if env != nil {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
		}
	}
	os.Exit(code)
}

// cluster returns a cluster-admin client of the package's API server. The
// server resolves webhook Services through their EndpointSlices, of which
// there are none: a webhook call fails at once, without leaving the machine.
func cluster(t *testing.T) client.Client {
	t.Helper()
	envOnce.Do(func() {
		e, restCfg, err := controlplane.Start(controlplane.WithAPIServerArg("enable-aggregator-routing", "true"))
		if err != nil {
			envErr = err
			return
		}
		env = e
		scheme := runtime.NewScheme()
		for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, v1alpha1.AddToScheme} {
			if err := add(scheme); err != nil {
				envErr = err
				return
			}
		}
		k8s, envErr = client.New(restCfg, client.Options{Scheme: scheme})
	})
	if envErr != nil {
		t.Fatal(envErr)
	}
	return k8s
}

// serviceMonitorCRD stands in for the Prometheus Operator's CRD, which the
// chart's optional ServiceMonitor needs; it accepts any spec.
func serviceMonitorCRD() *apiextensionsv1.CustomResourceDefinition {
	return monitoringCRD("servicemonitors", "ServiceMonitor")
}

// prometheusRuleCRD stands in for the Prometheus Operator's PrometheusRule
// CRD, which the chart's optional alerts need; it accepts any spec.
func prometheusRuleCRD() *apiextensionsv1.CustomResourceDefinition {
	return monitoringCRD("prometheusrules", "PrometheusRule")
}

func monitoringCRD(plural, kind string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".monitoring.coreos.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "monitoring.coreos.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: plural, Singular: strings.ToLower(kind), Kind: kind, ListKind: kind + "List",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}},
			}},
		},
	}
}

func ensureCRD(ctx context.Context, t *testing.T, c client.Client, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	g := NewWithT(t)
	if err := c.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	g.Eventually(func(g Gomega) {
		var got apiextensionsv1.CustomResourceDefinition
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(crd), &got)).To(Succeed())
		g.Expect(got.Status.Conditions).To(ContainElement(And(
			HaveField("Type", apiextensionsv1.Established), HaveField("Status", apiextensionsv1.ConditionTrue))))
	}).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
}

// applyAll server-side applies objs as fieldOwner: CRDs first, then the rest
// in the order given. It returns what it applied, for cleanup.
func applyAll(ctx context.Context, t *testing.T, c client.Client, fieldOwner string, objs []*unstructured.Unstructured) {
	t.Helper()
	g := NewWithT(t)
	sorted := slices.Clone(objs)
	slices.SortStableFunc(sorted, func(a, b *unstructured.Unstructured) int {
		rank := func(u *unstructured.Unstructured) int {
			switch u.GetKind() {
			case "Namespace":
				return 0
			case "CustomResourceDefinition":
				return 1
			default:
				return 2
			}
		}
		return rank(a) - rank(b)
	})
	for _, o := range sorted {
		err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner(fieldOwner))
		g.Expect(err).NotTo(HaveOccurred(), "server-side apply of %s", key(o))
		if o.GetKind() == "CustomResourceDefinition" {
			var crd apiextensionsv1.CustomResourceDefinition
			g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &crd)).To(Succeed())
			ensureCRD(ctx, t, c, &crd)
		}
	}
	// Everything is there, as applied.
	for _, o := range objs {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(o.GroupVersionKind())
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(o), got)).To(Succeed(), "get %s", key(o))
		g.Expect(got.GetManagedFields()).To(ContainElement(HaveField("Manager", fieldOwner)), "%s is managed by %s", key(o), fieldOwner)
	}
}

// deleteAll removes what applyAll created, except Namespaces and CRDs (the
// control plane has no namespace controller, and envtest owns the CRDs),
// and waits until it is gone.
func deleteAll(ctx context.Context, t *testing.T, c client.Client, objs []*unstructured.Unstructured) {
	t.Helper()
	g := NewWithT(t)
	for _, o := range objs {
		if o.GetKind() == "Namespace" || o.GetKind() == "CustomResourceDefinition" {
			continue
		}
		err := c.Delete(ctx, o.DeepCopy(), client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete %s: %v", key(o), err)
		}
		g.Eventually(func() bool {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(o.GroupVersionKind())
			return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(o), got))
		}).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(BeTrue(), "%s deleted", key(o))
	}
}

// releaseCRDs gives the CRDs of objs back to envtest, which created them
// and keeps them: fieldOwner applies them empty, so that what only it set
// (the chart's labels and keep annotation) goes, and another installer
// (kustomize's labels) applies them without a conflict.
func releaseCRDs(ctx context.Context, t *testing.T, c client.Client, fieldOwner string, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		empty := &unstructured.Unstructured{}
		empty.SetGroupVersionKind(o.GroupVersionKind())
		empty.SetName(o.GetName())
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(empty), client.FieldOwner(fieldOwner)); err != nil {
			t.Errorf("releasing %s: %v", key(o), err)
		}
	}
}

func ensureNamespace(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// serviceAccountUser is the identity the operator pods have.
func serviceAccountUser() (string, []string) {
	return "system:serviceaccount:" + namespace + ":profile-scheduler",
		[]string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
}

// allowed asks the API server's authorizer whether the operator's
// ServiceAccount may do p (in namespace ns for namespaced resources).
func allowed(ctx context.Context, t *testing.T, c client.Client, ns string, r rbacRequest) bool {
	t.Helper()
	user, groups := serviceAccountUser()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups}}
	if r.url != "" {
		sar.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: r.url, Verb: r.verb}
	} else {
		res, sub, _ := strings.Cut(r.resource, "/")
		sar.Spec.ResourceAttributes = &authorizationv1.ResourceAttributes{
			Namespace: ns, Group: r.group, Resource: res, Subresource: sub, Verb: r.verb, Name: r.name,
		}
	}
	if err := c.Create(ctx, sar); err != nil {
		t.Fatal(err)
	}
	return sar.Status.Allowed
}

type rbacRequest struct {
	group, resource, verb, name, url string
}

func (r rbacRequest) String() string {
	if r.url != "" {
		return r.verb + " " + r.url
	}
	return permission{Group: r.group, Resource: r.resource, Verb: r.verb, Name: r.name}.String()
}

// checkServiceAccountRBAC checks, through the API server's RBAC authorizer,
// that the applied roles give the operator's ServiceAccount every documented
// permission and nothing that is not documented.
func checkServiceAccountRBAC(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	var want []rbacRequest
	for _, r := range documentedRules(t, clusterRoleHeading, true) {
		for _, gr := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					if len(r.ResourceNames) == 0 {
						want = append(want, rbacRequest{group: gr, resource: res, verb: v})
					}
					for _, n := range r.ResourceNames {
						want = append(want, rbacRequest{group: gr, resource: res, verb: v, name: n})
					}
				}
			}
		}
	}
	for _, r := range want {
		if !allowed(ctx, t, c, "some-namespace", r) {
			t.Errorf("the ServiceAccount may not %s, which the README documents", r)
		}
	}
	for _, v := range []string{"get", "create", "update"} {
		r := rbacRequest{group: "coordination.k8s.io", resource: "leases", verb: v, name: "profile-scheduler.profilescheduler.io"}
		if !allowed(ctx, t, c, namespace, r) {
			t.Errorf("the ServiceAccount may not %s in %s", r, namespace)
		}
	}
	for _, r := range []rbacRequest{
		{resource: "pods", verb: "create"},
		{resource: "pods", verb: "update"},
		{resource: "nodes", verb: "update"},
		{resource: "nodes", verb: "patch"},
		{resource: "secrets", verb: "create"},
		{resource: "configmaps", verb: "get"},
		{resource: "serviceaccounts/token", verb: "create"},
		{group: "scheduling.profilescheduler.io", resource: "schedulerprofiles", verb: "create"},
		{group: "scheduling.profilescheduler.io", resource: "schedulerprofiles", verb: "delete"},
		{group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", verb: "update", name: "someone-elses-webhook"},
		{group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", verb: "delete", name: "profile-scheduler-validating-webhook"},
		{group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations", verb: "update"},
		// No right at all on admission policies and their bindings: the
		// routes program is the installer's.
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicies", verb: "create"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicies", verb: "list"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicies", verb: "get", name: "profile-scheduler-routes"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicies", verb: "update", name: "profile-scheduler-routes"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicies", verb: "patch", name: "profile-scheduler-routes"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicies", verb: "delete", name: "profile-scheduler-routes"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicies", verb: "update", name: "someone-elses-policy"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicybindings", verb: "create"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicybindings", verb: "get", name: "profile-scheduler-routes"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicybindings", verb: "update", name: "profile-scheduler-routes"},
		{group: "admissionregistration.k8s.io", resource: "mutatingadmissionpolicybindings", verb: "delete", name: "profile-scheduler-routes"},
		{group: "scheduling.profilescheduler.io", resource: "routingtables", verb: "delete", name: "profile-scheduler-routes"},
		{group: "admissionregistration.k8s.io", resource: "validatingadmissionpolicies", verb: "update"},
		{group: "admissionregistration.k8s.io", resource: "validatingadmissionpolicybindings", verb: "delete"},
		{group: "rbac.authorization.k8s.io", resource: "clusterroles", verb: "escalate"},
		{group: "coordination.k8s.io", resource: "leases", verb: "delete"},
		{url: "/metrics", verb: "get"},
	} {
		if allowed(ctx, t, c, "some-namespace", r) {
			t.Errorf("the ServiceAccount may %s, which the README does not document", r)
		}
	}
	if allowed(ctx, t, c, "kube-system", rbacRequest{group: "coordination.k8s.io", resource: "leases", verb: "update", name: "kube-scheduler"}) {
		t.Error("the ServiceAccount may update leases outside its namespace")
	}
	if allowed(ctx, t, c, namespace, rbacRequest{group: "coordination.k8s.io", resource: "leases", verb: "update", name: "someone-elses-lease"}) {
		t.Error("the ServiceAccount may update another Lease of its namespace")
	}
}

// checkWebhookFailurePolicy shows what the README says of failurePolicy: with
// the operator unreachable, Ignore lets a profile and an ExtenderConfig in
// and Fail refuses them.
func checkWebhookFailurePolicy(ctx context.Context, t *testing.T, c client.Client, fieldOwner string) {
	t.Helper()
	g := NewWithT(t)
	sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "webhook-" + fieldOwner}}
	g.Expect(c.Create(ctx, sp)).To(Succeed(), "failurePolicy Ignore lets the write through")
	g.Expect(c.Delete(ctx, sp)).To(Succeed())
	ec := extenderConfig("webhook-" + fieldOwner)
	g.Expect(c.Create(ctx, ec)).To(Succeed(), "failurePolicy Ignore lets the write through")
	g.Expect(c.Delete(ctx, ec)).To(Succeed())

	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "profile-scheduler-validating-webhook"}, &vwc)).To(Succeed())
	before := vwc.DeepCopy()
	for i := range vwc.Webhooks {
		vwc.Webhooks[i].FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	}
	g.Expect(c.Patch(ctx, &vwc, client.MergeFrom(before))).To(Succeed())
	g.Eventually(func() error {
		return c.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "webhook-fail-" + fieldOwner}})
	}).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).Should(
		MatchError(ContainSubstring("vschedulerprofile.profilescheduler.io")), "failurePolicy Fail refuses the write")
	g.Eventually(func() error {
		return c.Create(ctx, extenderConfig("webhook-fail-"+fieldOwner))
	}).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).Should(
		MatchError(ContainSubstring("vextenderconfig.profilescheduler.io")), "failurePolicy Fail refuses the write")
}

func extenderConfig(name string) *v1alpha1.ExtenderConfig {
	return &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ExtenderConfigSpec{URLPrefix: "http://127.0.0.1:1/ext", FilterVerb: "filter"}}
}

func TestServerSideApplyChart(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	ensureNamespace(ctx, t, c)
	ensureCRD(ctx, t, c, serviceMonitorCRD())
	ensureCRD(ctx, t, c, prometheusRuleCRD())

	objs := renderChart(t, "--set", "serviceMonitor.enabled=true,serviceMonitor.insecureSkipVerify=true,samples.enabled=true,prometheusRule.enabled=true,grafanaDashboard.enabled=true")
	for _, kind := range []string{"CustomResourceDefinition", "ServiceMonitor", "PrometheusRule", "ConfigMap", "SchedulerProfile", "ValidatingWebhookConfiguration", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"} {
		if !slices.ContainsFunc(objs, func(u *unstructured.Unstructured) bool { return u.GetKind() == kind }) {
			t.Fatalf("rendered chart has no %s", kind)
		}
	}
	t.Cleanup(func() {
		deleteAll(context.Background(), t, c, objs)
		releaseCRDs(context.Background(), t, c, "chart-test", objs)
	})
	applyAll(ctx, t, c, "chart-test", objs)
	// Applying again changes nothing and conflicts with nothing.
	applyAll(ctx, t, c, "chart-test", objs)

	t.Run("service account permissions", func(t *testing.T) { checkServiceAccountRBAC(ctx, t, c) })
	t.Run("webhook failure policy", func(t *testing.T) { checkWebhookFailurePolicy(ctx, t, c, "chart") })
}

func TestServerSideApplyKustomize(t *testing.T) {
	requireGeneratedRole(t)
	c := cluster(t)
	ctx := t.Context()
	ensureCRD(ctx, t, c, serviceMonitorCRD())

	objs := append(renderKustomize(t, "default"), renderKustomize(t, "prometheus")...)
	for _, o := range objs {
		if o.GetNamespace() == "system" {
			o.SetNamespace(namespace) // config/default would set it when it includes ../prometheus
		}
	}
	t.Cleanup(func() { deleteAll(context.Background(), t, c, objs) })
	applyAll(ctx, t, c, "kustomize-test", objs)
	applyAll(ctx, t, c, "kustomize-test", objs)

	t.Run("service account permissions", func(t *testing.T) { checkServiceAccountRBAC(ctx, t, c) })
	t.Run("webhook failure policy", func(t *testing.T) { checkWebhookFailurePolicy(ctx, t, c, "kustomize") })
}
