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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The routes policy and binding follow the release's full name, and the
// ClusterRole and the operator's flag name the same two objects, so that
// two releases in one cluster each keep their own.
func TestRoutesPolicyFollowsTheRelease(t *testing.T) {
	for _, tc := range []struct {
		release, fullname, want string
	}{
		{releaseName, "profile-scheduler", "profile-scheduler-routes"},
		{"team-b", "team-b-profile-scheduler", "team-b-profile-scheduler-routes"},
	} {
		t.Run(tc.release, func(t *testing.T) {
			g := NewWithT(t)
			out, err := helm(t, "template", tc.release, chartDir(t), "--namespace", namespace, "--api-versions", mutatingAdmissionPolicyV1)
			g.Expect(err).NotTo(HaveOccurred())
			objs, err := decode(out)
			g.Expect(err).NotTo(HaveOccurred())

			policy := find(objs, "MutatingAdmissionPolicy", tc.want)
			g.Expect(policy).NotTo(BeNil(), "MutatingAdmissionPolicy %s", tc.want)
			g.Expect(policy.GetLabels()).To(HaveKeyWithValue("scheduling.profilescheduler.io/owned-by", "profile-scheduler"))
			conds, _, _ := unstructured.NestedSlice(policy.Object, "spec", "matchConditions")
			g.Expect(conds).To(ConsistOf(HaveKeyWithValue("expression", "false")), "installed inert")
			binding := find(objs, "MutatingAdmissionPolicyBinding", tc.want)
			g.Expect(binding).NotTo(BeNil())
			name, _, _ := unstructured.NestedString(binding.Object, "spec", "policyName")
			g.Expect(name).To(Equal(tc.want))

			role := find(objs, "ClusterRole", tc.fullname)
			g.Expect(role).NotTo(BeNil())
			perms := permissions(t, role)
			for _, res := range []string{"mutatingadmissionpolicies", "mutatingadmissionpolicybindings"} {
				var onKind []string
				for _, p := range perms {
					if strings.HasPrefix(p, strings.Fields(p)[0]+" "+res+".") {
						onKind = append(onKind, p)
					}
				}
				g.Expect(onKind).To(ConsistOf(
					"get "+res+".admissionregistration.k8s.io/"+tc.want,
					"patch "+res+".admissionregistration.k8s.io/"+tc.want,
					"update "+res+".admissionregistration.k8s.io/"+tc.want,
				), "the ClusterRole's only rights on %s", res)
			}
			d := find(objs, "Deployment", tc.fullname)
			g.Expect(d).NotTo(BeNil())
			args, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			g.Expect(args).To(HaveLen(1))
			g.Expect(args[0]).To(HaveKeyWithValue("args", ContainElement("--routes-policy-name="+tc.want)))
		})
	}
}

// On a cluster without MutatingAdmissionPolicy v1 the chart installs
// without the routes policy (routes are refused there).
func TestChartWithoutMutatingAdmissionPolicy(t *testing.T) {
	g := NewWithT(t)
	objs := renderChartWithout(t)
	g.Expect(find(objs, "Deployment", releaseName)).NotTo(BeNil())
	for _, o := range objs {
		g.Expect(o.GetKind()).NotTo(HavePrefix("MutatingAdmissionPolicy"))
	}
}
