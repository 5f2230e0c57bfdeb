package main

import (
	"bytes"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

func TestRouteOutput(t *testing.T) {
	routes := []v1alpha1.ProfileRoute{{
		ObjectMeta: metav1.ObjectMeta{Name: "batch"},
		Spec: v1alpha1.ProfileRouteSpec{Profile: "bin-packing",
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "batch"}}},
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
