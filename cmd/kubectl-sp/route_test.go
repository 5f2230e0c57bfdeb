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

package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

func TestRouteOutput(t *testing.T) {
	routes := []v1alpha1.ProfileRoute{{
		ObjectMeta: metav1.ObjectMeta{Name: "batch"},
		Spec: v1alpha1.ProfileRouteSpec{Profile: "bin-packing",
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"team": "batch"}}},
		Status: v1alpha1.ProfileRouteStatus{ExcludedNamespaces: []string{"kube-system", "ops"}},
	}}
	profiles := []v1alpha1.SchedulerProfile{{ObjectMeta: metav1.ObjectMeta{Name: "bin-packing"},
		Status: v1alpha1.SchedulerProfileStatus{ActiveGeneration: 1, SchedulerName: "bin-packing"}}}
	protected := protectedNamespaces(routes, "")
	if got, want := protected, []string{"kube-system", "ops"}; !slices.Equal(got, want) {
		t.Fatalf("protected namespaces %v, want %v (from the routes' status)", got, want)
	}
	table, _ := routing.Build(routing.Input{Routes: routes, Profiles: profiles, Protected: protected})
	for _, tc := range []struct {
		namespace, schedulerName string
		nsLabels                 map[string]string
		want                     string
	}{
		{"etl", "", map[string]string{"team": "batch"},
			"route batch: profile bin-packing, schedulerName bin-packing (priority 0; every pod of namespaces team=batch but kube-system, ops asking for default-scheduler)\n"},
		{"etl", "spread", map[string]string{"team": "batch"}, "none: spread\n"},
		{"web", "", nil, "none: default-scheduler\n"},
		{"ops", "", map[string]string{"team": "batch"}, "none: default-scheduler\n"},
	} {
		var out, errOut bytes.Buffer
		e := table.Route(tc.namespace, tc.nsLabels, nil, tc.schedulerName)
		if err := printRoute(streamsFor(&out, &errOut), e, tc.schedulerName); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("namespace %s %v, schedulerName %q:\n got %q\nwant %q", tc.namespace, tc.nsLabels, tc.schedulerName, out.String(), tc.want)
		}
	}
}

// TestPodLabelSets: -l is a selector, as kubectl's; the answer is for the
// label sets of the pods it selects.
func TestPodLabelSets(t *testing.T) {
	for _, tc := range []struct {
		selector string
		want     []string
		wantErr  string
	}{
		{"", []string{""}, ""},
		{"app=spark", []string{"app=spark"}, ""},
		{"app in (spark)", []string{"app=spark"}, ""},
		{"app in (spark,flink),tier=gold", []string{"app=flink,tier=gold", "app=spark,tier=gold"}, ""},
		{"app=spark,tier!=gold,!legacy", []string{"app=spark"}, ""},
		{"app=spark,app in (spark,flink)", []string{"app=spark"}, ""},
		{"app=spark,app=flink", nil, "no pod's labels can meet it"},
		{"app", nil, `"app" names no value`},
		{"app in (spark", nil, "found '', expected: ',' or ')'"},
	} {
		got, err := podLabelSets(tc.selector)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: got error %v, want one containing %q", tc.selector, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.selector, err)
			continue
		}
		var names []string
		for _, set := range got {
			names = append(names, set.String())
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.selector, names, tc.want)
		}
	}
}

func TestRouteTable(t *testing.T) {
	routes := []v1alpha1.ProfileRoute{{
		ObjectMeta: metav1.ObjectMeta{Name: "spark"},
		Spec: v1alpha1.ProfileRouteSpec{Profile: "spread", Priority: 10, AllNamespaces: true,
			PodSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"app": "spark"}}},
	}}
	profiles := []v1alpha1.SchedulerProfile{{ObjectMeta: metav1.ObjectMeta{Name: "spread"},
		Status: v1alpha1.SchedulerProfileStatus{ActiveGeneration: 1, SchedulerName: "spread"}}}
	table, _ := routing.Build(routing.Input{Routes: routes, Profiles: profiles, Protected: []string{"kube-system"}})
	sets, err := podLabelSets("app in (spark,flink)")
	if err != nil {
		t.Fatal(err)
	}
	var answers []routeAnswer
	for _, ns := range []string{"etl", "web"} {
		for _, set := range sets {
			answers = append(answers, routeAnswer{Namespace: ns, Labels: set, Entry: table.Route(ns, nil, set, "")})
		}
	}
	var out, errOut bytes.Buffer
	if err := printRouteTable(streamsFor(&out, &errOut), answers, "", true, true); err != nil {
		t.Fatal(err)
	}
	want := `NAMESPACE   LABELS      ROUTE    PROFILE   SCHEDULERNAME       PRIORITY   SELECTS
etl         app=flink   <none>   <none>    default-scheduler   <none>     <none>
etl         app=spark   spark    spread    spread              10         pods app=spark of all namespaces but kube-system asking for default-scheduler
web         app=flink   <none>   <none>    default-scheduler   <none>     <none>
web         app=spark   spark    spread    spread              10         pods app=spark of all namespaces but kube-system asking for default-scheduler
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}

	out.Reset()
	if err := printRoutes(streamsFor(&out, &errOut), answers[:2], ""); err != nil {
		t.Fatal(err)
	}
	want = "app=flink: none: default-scheduler\napp=spark: route spark: profile spread, schedulerName spread (priority 10; pods app=spark of all namespaces but kube-system asking for default-scheduler)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
