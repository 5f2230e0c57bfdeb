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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

// permission is one thing a rule allows: a verb on a resource (with its
// subresource) of a group, optionally only on one name; or a verb on a
// non-resource URL.
type permission struct {
	Group, Resource, Verb, Name string
	URL                         string
}

func (p permission) String() string {
	if p.URL != "" {
		return p.Verb + " " + p.URL
	}
	s := fmt.Sprintf("%s %s.%s", p.Verb, p.Resource, p.Group)
	if p.Group == "" {
		s = fmt.Sprintf("%s %s", p.Verb, p.Resource)
	}
	if p.Name != "" {
		s += "/" + p.Name
	}
	return s
}

// expand lists every permission that rules grant, sorted, without repeats.
func expand(rules []rbacv1.PolicyRule) []string {
	set := map[string]bool{}
	for _, r := range rules {
		for _, v := range r.Verbs {
			for _, u := range r.NonResourceURLs {
				set[permission{Verb: v, URL: u}.String()] = true
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					if len(r.ResourceNames) == 0 {
						set[permission{Group: g, Resource: res, Verb: v}.String()] = true
					}
					for _, n := range r.ResourceNames {
						set[permission{Group: g, Resource: res, Verb: v, Name: n}.String()] = true
					}
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func rulesOf(t *testing.T, u *unstructured.Unstructured) []rbacv1.PolicyRule {
	t.Helper()
	var role rbacv1.ClusterRole // Role has the same rules field
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &role); err != nil {
		t.Fatal(err)
	}
	return role.Rules
}

func permissions(t *testing.T, u *unstructured.Unstructured) []string {
	return expand(rulesOf(t, u))
}

// documentedRules reads the README table under heading: API group,
// resources, verbs, and (when withNames) resource names.
func documentedRules(t *testing.T, heading string, withNames bool) []rbacv1.PolicyRule {
	t.Helper()
	var rules []rbacv1.PolicyRule
	for _, row := range tableRows(t, section(t, readme(t), heading)) {
		if len(row) < 4 {
			t.Fatalf("README row %v under %q has too few cells", row, heading)
		}
		r := rbacv1.PolicyRule{APIGroups: list(row[0]), Resources: list(row[1]), Verbs: list(row[2])}
		if withNames {
			r.ResourceNames = list(row[3])
		}
		if len(r.APIGroups) == 0 || len(r.Resources) == 0 || len(r.Verbs) == 0 {
			t.Fatalf("README row %v under %q lacks a group, resource or verb", row, heading)
		}
		rules = append(rules, r)
	}
	return rules
}

const clusterRoleHeading = "### ClusterRole `<fullname>`"

func TestClusterRoleIsDocumented(t *testing.T) {
	g := NewWithT(t)
	documented := expand(documentedRules(t, clusterRoleHeading, true))
	objs := renderChart(t)
	role := find(objs, "ClusterRole", releaseName)
	g.Expect(role).NotTo(BeNil())
	g.Expect(permissions(t, role)).To(Equal(documented), "chart ClusterRole against the README table")

	reader := find(objs, "ClusterRole", releaseName+"-metrics-reader")
	g.Expect(reader).NotTo(BeNil())
	g.Expect(permissions(t, reader)).To(Equal([]string{"get /metrics"}))

	// The webhook rule is limited to the configuration the chart creates.
	g.Expect(documented).To(ContainElement("patch validatingwebhookconfigurations.admissionregistration.k8s.io/" +
		find(objs, "ValidatingWebhookConfiguration", "profile-scheduler-validating-webhook").GetName()))
}

func TestGeneratedRoleIsDocumented(t *testing.T) {
	requireGeneratedRole(t)
	g := NewWithT(t)
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "config", "rbac", "role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	objs, err := decode(data)
	g.Expect(err).NotTo(HaveOccurred())
	role := find(objs, "ClusterRole", "profile-scheduler")
	g.Expect(role).NotTo(BeNil(), "config/rbac/role.yaml has ClusterRole profile-scheduler")
	g.Expect(permissions(t, role)).To(Equal(expand(documentedRules(t, clusterRoleHeading, true))),
		"the +kubebuilder:rbac markers against the README table")
}

func TestLeaderElectionRoleIsDocumented(t *testing.T) {
	g := NewWithT(t)
	documented := expand(documentedRules(t, "### Role `<fullname>-leader-election`", true))
	g.Expect(documented).To(Equal([]string{
		"create leases.coordination.k8s.io",
		"get leases.coordination.k8s.io/profile-scheduler.profilescheduler.io",
		"update leases.coordination.k8s.io/profile-scheduler.profilescheduler.io",
	}))
	role := find(renderChart(t), "Role", releaseName+"-leader-election")
	g.Expect(role).NotTo(BeNil())
	g.Expect(role.GetNamespace()).To(Equal(namespace))
	g.Expect(permissions(t, role)).To(Equal(documented))
}

// leftOut are the permissions of upstream's system:kube-scheduler and
// system:volume-scheduler that the operator does not need; the README says
// why under "Left out on purpose".
var leftOut = map[string]string{
	"create bindings":                                  "binds through pods/binding",
	"get replicasets.extensions":                       "extensions/v1beta1 is gone since 1.16",
	"list replicasets.extensions":                      "extensions/v1beta1 is gone since 1.16",
	"watch replicasets.extensions":                     "extensions/v1beta1 is gone since 1.16",
	"create leases.coordination.k8s.io":                "the leader-election Role, namespaced",
	"get leases.coordination.k8s.io/kube-scheduler":    "the operator's lease has its own name, in its Role",
	"list leases.coordination.k8s.io/kube-scheduler":   "the operator's lease has its own name, in its Role",
	"watch leases.coordination.k8s.io/kube-scheduler":  "the operator's lease has its own name, in its Role",
	"update leases.coordination.k8s.io/kube-scheduler": "the operator's lease has its own name, in its Role",
}

func init() {
	for _, v := range []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"} {
		leftOut[v+" leasecandidates.coordination.k8s.io"] = "coordinated leader election is off by default"
	}
}

// TestClusterRoleCoversUpstreamScheduler compares the ClusterRole with the
// roles upstream grants kube-scheduler, with the feature gates at their
// defaults, so that a Kubernetes bump that adds a permission the in-tree
// plugins need fails here.
func TestClusterRoleCoversUpstreamScheduler(t *testing.T) {
	g := NewWithT(t)
	var upstream []rbacv1.PolicyRule
	for _, r := range bootstrappolicy.ClusterRoles() {
		if r.Name == "system:kube-scheduler" || r.Name == "system:volume-scheduler" {
			upstream = append(upstream, r.Rules...)
		}
	}
	g.Expect(upstream).NotTo(BeEmpty())
	ours := map[string]bool{}
	for _, p := range permissions(t, find(renderChart(t), "ClusterRole", releaseName)) {
		ours[p] = true
	}
	var missing []string
	for _, p := range expand(upstream) {
		if !ours[p] && leftOut[p] == "" {
			missing = append(missing, p)
		}
	}
	g.Expect(missing).To(BeEmpty(), "upstream kube-scheduler has these and the chart neither grants nor documents leaving them out:\n%s",
		strings.Join(missing, "\n"))
	// Nothing is listed as left out that upstream no longer grants.
	up := map[string]bool{}
	for _, p := range expand(upstream) {
		up[p] = true
	}
	for p := range leftOut {
		g.Expect(up).To(HaveKey(p), "leftOut lists %q, which upstream no longer grants", p)
	}
}

// TestExtenderSecretsRoleIsDocumented checks that Secrets are granted in
// one namespace only, by a Role the README documents, that the ClusterRole
// grants no Secret access at all, and that the operator is told the same
// namespace the Role is in.
func TestExtenderSecretsRoleIsDocumented(t *testing.T) {
	g := NewWithT(t)
	documented := expand(documentedRules(t, "### Role `<fullname>` (extender-secrets namespace)", true))
	g.Expect(documented).To(Equal([]string{"get secrets", "list secrets", "watch secrets"}))

	secretsArg := func(objs []*unstructured.Unstructured) []string {
		var out []string
		for _, a := range deployment(t, objs).Spec.Template.Spec.Containers[0].Args {
			if strings.HasPrefix(a, "--extender-secrets-namespace=") {
				out = append(out, a)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name, set, namespace, arg string
	}{
		{"defaults", "", namespace, "--extender-secrets-namespace=$(POD_NAMESPACE)"},
		{"own namespace", "extenderSecrets.namespace=extender-tls", "extender-tls", "--extender-secrets-namespace=extender-tls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			var objs []*unstructured.Unstructured
			if tc.set == "" {
				objs = renderChart(t)
			} else {
				objs = renderChart(t, "--set", tc.set)
			}
			role := find(objs, "Role", releaseName)
			g.Expect(role).NotTo(BeNil())
			g.Expect(role.GetNamespace()).To(Equal(tc.namespace))
			g.Expect(permissions(t, role)).To(Equal(documented))
			binding := find(objs, "RoleBinding", releaseName)
			g.Expect(binding).NotTo(BeNil())
			g.Expect(binding.GetNamespace()).To(Equal(tc.namespace))
			var rb rbacv1.RoleBinding
			g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(binding.Object, &rb)).To(Succeed())
			g.Expect(rb.RoleRef).To(Equal(rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: releaseName}))
			g.Expect(rb.Subjects).To(Equal([]rbacv1.Subject{{Kind: "ServiceAccount", Name: releaseName, Namespace: namespace}}))
			g.Expect(secretsArg(objs)).To(Equal([]string{tc.arg}))

			for _, o := range objs {
				if o.GetKind() == "ClusterRole" {
					for _, p := range permissions(t, o) {
						g.Expect(p).NotTo(HaveSuffix(" secrets"), "ClusterRole %s grants %s cluster-wide", o.GetName(), p)
					}
				}
			}
		})
	}

	// The markers generate the same Role, and no cluster-wide Secret rule.
	requireGeneratedRole(t)
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "config", "rbac", "role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	objs, err := decode(data)
	g.Expect(err).NotTo(HaveOccurred())
	role := find(objs, "Role", "profile-scheduler")
	g.Expect(role).NotTo(BeNil(), "config/rbac/role.yaml has Role profile-scheduler")
	g.Expect(permissions(t, role)).To(Equal(documented))
}

const historyRoleHeading = "### Role `<fullname>-history` (release namespace)"

// TestHistoryRoleIsDocumented checks that the chart grants the history's
// ControllerRevisions in the release namespace only, as the README says,
// and that config/rbac grants the same.
func TestHistoryRoleIsDocumented(t *testing.T) {
	g := NewWithT(t)
	documented := expand(documentedRules(t, historyRoleHeading, true))
	g.Expect(documented).To(ContainElement("create controllerrevisions.apps"))
	objs := renderChart(t)
	role := find(objs, "Role", releaseName+"-history")
	g.Expect(role).NotTo(BeNil())
	g.Expect(role.GetNamespace()).To(Equal(namespace))
	g.Expect(permissions(t, role)).To(Equal(documented))
	binding := find(objs, "RoleBinding", releaseName+"-history")
	g.Expect(binding).NotTo(BeNil())
	var rb rbacv1.RoleBinding
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(binding.Object, &rb)).To(Succeed())
	g.Expect(rb.Subjects).To(Equal([]rbacv1.Subject{{Kind: "ServiceAccount", Name: releaseName, Namespace: namespace}}))
	for _, o := range objs {
		if o.GetKind() == "ClusterRole" {
			for _, p := range permissions(t, o) {
				g.Expect(p).NotTo(HaveSuffix(" controllerrevisions.apps"), "ClusterRole %s grants %s cluster-wide", o.GetName(), p)
			}
		}
	}
	// config/rbac writes the same Role by hand (TestKustomizeMatchesChart
	// compares the two).
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "config", "rbac", "history_role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	written, err := decode(data)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(permissions(t, find(written, "Role", "profile-scheduler-history"))).To(Equal(documented))
}
