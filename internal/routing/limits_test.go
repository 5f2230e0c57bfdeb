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

package routing

import (
	"fmt"
	"testing"
	"time"
	"unicode/utf8"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// Routes at the schema's maxima are admitted, the oldest first, while
// the policy's CEL expressions stay under MaxExpressionSize (and so
// under kube-apiserver's parser limit of 100,000 code points); the next
// one is refused. controllers' tests run the policy in a real
// kube-apiserver.
func TestLargestRoutesBudget(t *testing.T) {
	g := NewWithT(t)
	set := testenv.NewLargestRoutes("largest", "pack", 5)
	for i := range set.Routes {
		set.Routes[i].CreationTimestamp = metav1.NewTime(t0.Add(time.Duration(i) * time.Second))
	}
	table, verdicts := Build(Input{Routes: set.Routes, Profiles: []v1alpha1.SchedulerProfile{serving("pack", "pack")}})
	var active []string
	for _, r := range set.Routes {
		if verdicts[r.Name].InTable() {
			active = append(active, r.Name)
			continue
		}
		g.Expect(verdicts[r.Name].Reason).To(Equal(v1alpha1.ReasonTooManyRoutes), r.Name)
		g.Expect(verdicts[r.Name].Message).To(ContainSubstring("characters of the routes' CEL expression"))
	}
	g.Expect(active).To(Equal([]string{"largest-0", "largest-1", "largest-2"}), "a route at the maxima takes about a third of the budget")
	policy, _, _ := table.Policy(PolicyName)
	for _, v := range policy.Spec.Variables {
		g.Expect(utf8.RuneCountInString(v.Expression)).To(BeNumerically("<=", MaxExpressionSize), v.Name)
	}
	for _, m := range policy.Spec.Mutations {
		g.Expect(utf8.RuneCountInString(m.JSONPatch.Expression)).To(BeNumerically("<=", MaxExpressionSize))
	}
	for _, c := range policy.Spec.MatchConditions {
		g.Expect(utf8.RuneCountInString(c.Expression)).To(BeNumerically("<=", MaxExpressionSize))
	}
	e := table.Route("some-namespace", set.NamespaceLabels, set.PodLabels(2), set.FromSchedulerName)
	g.Expect(e).NotTo(BeNil())
	g.Expect(e.Route).To(Equal("largest-2"))
}

// Routes beyond MaxProfileRoutes are refused, the newest first, whatever
// their priority: a new route never pushes an older one out.
func TestTooManyRoutes(t *testing.T) {
	g := NewWithT(t)
	var routes []v1alpha1.ProfileRoute
	for i := range v1alpha1.MaxProfileRoutes + 2 {
		routes = append(routes, route(fmt.Sprintf("r%03d", i), "pack", i, ns("team", fmt.Sprint(i)), func(r *v1alpha1.ProfileRoute) {
			r.Spec.Priority = int32(i)
		}))
	}
	table, verdicts := Build(Input{Routes: routes, Profiles: []v1alpha1.SchedulerProfile{serving("pack", "pack")}})
	g.Expect(table.Entries).To(HaveLen(v1alpha1.MaxProfileRoutes))
	for i, r := range routes {
		want := v1alpha1.ReasonActive
		if i >= v1alpha1.MaxProfileRoutes {
			want = v1alpha1.ReasonTooManyRoutes
		}
		g.Expect(verdicts[r.Name].Reason).To(Equal(want), r.Name)
	}
	g.Expect(verdicts["r200"].Message).To(ContainSubstring("200 older ProfileRoutes exist"))
	policy, _, _ := table.Policy(PolicyName)
	for _, v := range policy.Spec.Variables {
		g.Expect(utf8.RuneCountInString(v.Expression)).To(BeNumerically("<=", MaxExpressionSize), v.Name)
	}
}
