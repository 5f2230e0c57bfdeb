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
	"encoding/json"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// Routes at the schema's maxima are admitted, the oldest first, while
// their RoutingTable stays under MaxTableSize (and so well under what
// kube-apiserver stores in one object); the next one is refused.
// controllers' tests run the program over such a table in a real
// kube-apiserver.
func TestLargestRoutesBudget(t *testing.T) {
	g := NewWithT(t)
	set := testenv.NewLargestRoutes("largest", "pack", 60)
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
		g.Expect(verdicts[r.Name].Message).To(ContainSubstring("bytes of the RoutingTable"))
	}
	g.Expect(active).To(HaveLen(LargestRoutesInBudget), "a route at the maxima takes about 18 kB of the table")
	g.Expect(active).To(Equal(names(set.Routes[:LargestRoutesInBudget])), "the oldest first")
	data, err := json.Marshal(table.Params(PolicyName))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(len(data)).To(BeNumerically("<=", MaxTableSize+1000))
	e := table.Route("some-namespace", set.NamespaceLabels, set.PodLabels(2), set.FromSchedulerName)
	g.Expect(e).NotTo(BeNil())
	g.Expect(e.Route).To(Equal("largest-2"))
}

// LargestRoutesInBudget is how many routes at the ProfileRoute schema's
// maxima a RoutingTable holds (testenv.NewLargestRoutes).
const LargestRoutesInBudget = 56

func names(routes []v1alpha1.ProfileRoute) []string {
	out := make([]string, 0, len(routes))
	for _, r := range routes {
		out = append(out, r.Name)
	}
	return out
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
	g.Expect(table.Params(PolicyName).Spec.Routes).To(HaveLen(v1alpha1.MaxTableRoutes))
}
