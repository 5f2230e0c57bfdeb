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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type routeOpt func(*v1alpha1.ProfileRoute)

func route(name, profile string, age int, opts ...routeOpt) v1alpha1.ProfileRoute {
	r := v1alpha1.ProfileRoute{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Second))},
		Spec:       v1alpha1.ProfileRouteSpec{Profile: profile, WhenProfileNotServing: v1alpha1.ProfileNotServingFallback},
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func ns(kv ...string) routeOpt {
	return func(r *v1alpha1.ProfileRoute) { r.Spec.NamespaceSelector = sel(kv...) }
}

func pods(kv ...string) routeOpt {
	return func(r *v1alpha1.ProfileRoute) { r.Spec.PodSelector = sel(kv...) }
}

func all(r *v1alpha1.ProfileRoute) { r.Spec.AllNamespaces = true }

func hold(r *v1alpha1.ProfileRoute) { r.Spec.WhenProfileNotServing = v1alpha1.ProfileNotServingHold }

func prio(p int32) routeOpt { return func(r *v1alpha1.ProfileRoute) { r.Spec.Priority = p } }

func from(names ...string) routeOpt {
	return func(r *v1alpha1.ProfileRoute) { r.Spec.FromSchedulerNames = names }
}

func expr(key string, op metav1.LabelSelectorOperator, values ...string) routeOpt {
	return func(r *v1alpha1.ProfileRoute) {
		if r.Spec.PodSelector == nil {
			r.Spec.PodSelector = &v1alpha1.LabelSelector{}
		}
		r.Spec.PodSelector.MatchExpressions = append(r.Spec.PodSelector.MatchExpressions, v1alpha1.LabelSelectorRequirement{Key: key, Operator: op, Values: values})
	}
}

func sel(kv ...string) *v1alpha1.LabelSelector {
	s := &v1alpha1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

func serving(name string, schedulerName ...string) v1alpha1.SchedulerProfile {
	p := v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1}}
	if len(schedulerName) > 0 {
		p.Spec.SchedulerName = ptr.To(schedulerName[0])
	}
	p.Status.ActiveGeneration = 1
	p.Status.ActiveSpec = p.Spec.DeepCopy()
	return p
}

func notServing(name string) v1alpha1.SchedulerProfile {
	return v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: 1}}
}

func TestBuildVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		routes   []v1alpha1.ProfileRoute
		profiles []v1alpha1.SchedulerProfile
		want     map[string]string // route -> reason
		message  map[string]string // route -> part of the message
		order    []string
	}{{
		name:     "a route of a serving profile is in force",
		routes:   []v1alpha1.ProfileRoute{route("batch", "bin-packing", 0, ns("team", "batch"))},
		profiles: []v1alpha1.SchedulerProfile{serving("bin-packing")},
		want:     map[string]string{"batch": v1alpha1.ReasonActive},
		order:    []string{"batch"},
	}, {
		name:    "fallback: a missing profile routes nothing",
		routes:  []v1alpha1.ProfileRoute{route("batch", "bin-packing", 0, ns("team", "batch"))},
		want:    map[string]string{"batch": v1alpha1.ReasonProfileNotFound},
		message: map[string]string{"batch": `spec.profile: SchedulerProfile "bin-packing" not found`},
	}, {
		name:     "fallback: a profile with no serving generation routes nothing",
		routes:   []v1alpha1.ProfileRoute{route("batch", "bin-packing", 0, ns("team", "batch"))},
		profiles: []v1alpha1.SchedulerProfile{notServing("bin-packing")},
		want:     map[string]string{"batch": v1alpha1.ReasonProfileNotServing},
	}, {
		name:   "hold: a missing profile is taken to serve its name",
		routes: []v1alpha1.ProfileRoute{route("batch", "bin-packing", 0, ns("team", "batch"), hold)},
		want:   map[string]string{"batch": v1alpha1.ReasonActive},
		order:  []string{"batch"},
	}, {
		name: "equal priority, overlapping: the newer is refused naming the older",
		routes: []v1alpha1.ProfileRoute{
			route("newer", "spread", 10, ns("team", "batch")),
			route("older", "bin-packing", 0, ns("tier", "gold")),
		},
		profiles: []v1alpha1.SchedulerProfile{serving("bin-packing"), serving("spread")},
		want:     map[string]string{"older": v1alpha1.ReasonActive, "newer": v1alpha1.ReasonRouteConflict},
		message:  map[string]string{"newer": `ProfileRoute "older"`},
		order:    []string{"older"},
	}, {
		name: "equal priority, disjoint values of one key: both in force",
		routes: []v1alpha1.ProfileRoute{
			route("a", "spread", 10, ns("team", "a")),
			route("b", "bin-packing", 0, ns("team", "b")),
		},
		profiles: []v1alpha1.SchedulerProfile{serving("bin-packing"), serving("spread")},
		want:     map[string]string{"a": v1alpha1.ReasonActive, "b": v1alpha1.ReasonActive},
		order:    []string{"b", "a"},
	}, {
		name: "equal priority, pod label In against NotIn: disjoint",
		routes: []v1alpha1.ProfileRoute{
			route("a", "spread", 0, all, expr("tier", metav1.LabelSelectorOpIn, "gold")),
			route("b", "bin-packing", 1, all, expr("tier", metav1.LabelSelectorOpNotIn, "gold")),
		},
		profiles: []v1alpha1.SchedulerProfile{serving("bin-packing"), serving("spread")},
		want:     map[string]string{"a": v1alpha1.ReasonActive, "b": v1alpha1.ReasonActive},
	}, {
		name: "equal priority, disjoint fromSchedulerNames: both in force",
		routes: []v1alpha1.ProfileRoute{
			route("a", "spread", 0, all),
			route("b", "bin-packing", 1, all, from("legacy")),
		},
		profiles: []v1alpha1.SchedulerProfile{serving("bin-packing"), serving("spread")},
		want:     map[string]string{"a": v1alpha1.ReasonActive, "b": v1alpha1.ReasonActive},
	}, {
		name: "higher priority first, whatever the age",
		routes: []v1alpha1.ProfileRoute{
			route("low", "spread", 0, all),
			route("high", "bin-packing", 5, ns("team", "batch"), prio(10)),
		},
		profiles: []v1alpha1.SchedulerProfile{serving("bin-packing"), serving("spread")},
		want:     map[string]string{"low": v1alpha1.ReasonActive, "high": v1alpha1.ReasonActive},
		order:    []string{"high", "low"},
	}, {
		name:    "invalid selector names the field",
		routes:  []v1alpha1.ProfileRoute{route("bad", "spread", 0, all, expr("tier", metav1.LabelSelectorOpIn))},
		want:    map[string]string{"bad": v1alpha1.ReasonInvalidSelector},
		message: map[string]string{"bad": "spec.podSelector.matchExpressions[0].values"},
	}, {
		name:    "an empty namespaceSelector is refused",
		routes:  []v1alpha1.ProfileRoute{route("empty", "spread", 0, ns())},
		want:    map[string]string{"empty": v1alpha1.ReasonInvalidSelector},
		message: map[string]string{"empty": "spec.allNamespaces: true"},
	}, {
		name: "an invalid route does not conflict",
		routes: []v1alpha1.ProfileRoute{
			route("bad", "spread", 0, all, expr("tier", "Bogus", "x")),
			route("good", "spread", 1, all),
		},
		profiles: []v1alpha1.SchedulerProfile{serving("spread")},
		want:     map[string]string{"bad": v1alpha1.ReasonInvalidSelector, "good": v1alpha1.ReasonActive},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			table, verdicts := Build(Input{Routes: tc.routes, Profiles: tc.profiles, Protected: DefaultProtected("ops")})
			got := map[string]string{}
			for name, v := range verdicts {
				got[name] = v.Reason
				if want, ok := tc.message[name]; ok {
					g.Expect(v.Message).To(ContainSubstring(want))
				}
			}
			g.Expect(got).To(Equal(tc.want))
			if tc.order != nil {
				var order []string
				for _, e := range table.Entries {
					order = append(order, e.Route)
				}
				g.Expect(order).To(Equal(tc.order))
			}
		})
	}
}

func TestServedName(t *testing.T) {
	g := NewWithT(t)
	// A refused later generation renamed the profile: the serving one keeps
	// its name.
	p := serving("bin-packing", "packer")
	p.Spec.SchedulerName = ptr.To("renamed")
	p.Generation = 2
	name, ok, found := servedName(&p)
	g.Expect([]any{name, ok, found}).To(Equal([]any{"packer", true, true}))

	d := serving("gone")
	d.DeletionTimestamp = ptr.To(metav1.Now())
	_, ok, _ = servedName(&d)
	g.Expect(ok).To(BeFalse())
}

// TestRoute is the matrix the policy must reproduce (the envtest suite
// runs the same kind of matrix through kube-apiserver).
func TestRoute(t *testing.T) {
	table, _ := Build(Input{
		Routes: []v1alpha1.ProfileRoute{
			route("batch", "bin-packing", 0, ns("team", "batch")),
			route("gold", "spread", 1, all, pods("tier", "gold"), prio(10)),
			route("legacy", "legacy-profile", 2, ns("team", "batch"), from("legacy"), hold),
			route("system", "spread", 3, ns(corev1.LabelMetadataName, "kube-system"), prio(-1)),
		},
		Profiles:  []v1alpha1.SchedulerProfile{serving("bin-packing"), serving("spread")},
		Protected: DefaultProtected("ops"),
	})
	for _, tc := range []struct {
		namespace     string
		nsLabels      map[string]string
		podLabels     map[string]string
		schedulerName string
		want          string
	}{
		{"a", map[string]string{"team": "batch"}, nil, "", "batch"},
		{"a", map[string]string{"team": "batch"}, nil, "default-scheduler", "batch"},
		{"a", map[string]string{"team": "batch"}, map[string]string{"tier": "gold"}, "", "gold"},
		{"a", map[string]string{"team": "batch"}, nil, "other", ""},
		{"a", map[string]string{"team": "batch"}, nil, "legacy", "legacy"},
		{"a", map[string]string{"team": "web"}, nil, "", ""},
		{"a", map[string]string{"team": "web"}, map[string]string{"tier": "gold"}, "", "gold"},
		// Protected namespaces: only a route that names them.
		{"ops", map[string]string{"team": "batch"}, map[string]string{"tier": "gold"}, "", ""},
		{"kube-system", nil, map[string]string{"tier": "gold"}, "", "system"},
	} {
		got := ""
		if e := table.Route(tc.namespace, tc.nsLabels, tc.podLabels, tc.schedulerName); e != nil {
			got = e.Route
		}
		if got != tc.want {
			t.Errorf("namespace %s %v, pod %v, schedulerName %q: route %q, want %q", tc.namespace, tc.nsLabels, tc.podLabels, tc.schedulerName, got, tc.want)
		}
	}
}

func TestPolicyCEL(t *testing.T) {
	g := NewWithT(t)
	table, _ := Build(Input{
		Routes: []v1alpha1.ProfileRoute{
			route("batch", "bin-packing", 0, ns("team", "batch"), pods("app", "x"),
				expr("tier", metav1.LabelSelectorOpNotIn, "gold"), expr("canary", metav1.LabelSelectorOpDoesNotExist)),
		},
		Profiles:  []v1alpha1.SchedulerProfile{serving("bin-packing")},
		Protected: DefaultProtected("ops"),
	})
	policy, binding, revision := table.CompiledPolicy(PolicyName)
	g.Expect(binding.Spec.PolicyName).To(Equal(policy.Name))
	g.Expect(*policy.Spec.FailurePolicy).To(BeEquivalentTo("Ignore"))
	g.Expect(policy.Annotations[RevisionAnnotation]).To(Equal(revision))
	route := policy.Spec.Variables[len(policy.Spec.Variables)-1].Expression
	for _, want := range []string{
		`variables.from in ["default-scheduler"]`,
		`!(request.namespace in ["kube-system", "ops"])`,
		`("team" in variables.namespaceLabels && variables.namespaceLabels["team"] in ["batch"])`,
		`(!("tier" in variables.podLabels) || !(variables.podLabels["tier"] in ["gold"]))`,
		`!("canary" in variables.podLabels)`,
	} {
		g.Expect(route).To(ContainSubstring(want))
	}
	// Another table, another revision; the same table, the same one.
	empty, _, r2 := Table{}.CompiledPolicy(PolicyName)
	g.Expect(r2).NotTo(Equal(revision))
	_, _, r3 := table.CompiledPolicy(PolicyName)
	g.Expect(r3).To(Equal(revision))
	g.Expect(strings.Count(empty.Spec.Variables[len(empty.Spec.Variables)-1].Expression, "?")).To(Equal(1))

	// Another name: its own objects, which stamp only its own probes.
	other, otherBinding, r4 := table.CompiledPolicy("team-b-routes")
	g.Expect(r4).To(Equal(revision), "the revision is the routes', whatever the name")
	g.Expect(other.Name).To(Equal("team-b-routes"))
	g.Expect(otherBinding.Name).To(Equal("team-b-routes"))
	g.Expect(otherBinding.Spec.PolicyName).To(Equal("team-b-routes"))
	g.Expect(other.Spec.Variables).To(ContainElement(HaveField("Expression", ContainSubstring(`== "team-b-routes"`))))
	g.Expect(ProbePod("ops", "team-b-routes").Annotations).To(HaveKeyWithValue(ProbeAnnotation, "team-b-routes"))
}

// The RoutingTable of a table: routes in order, selectors as labels (one
// value) and expressions, the default fromSchedulerNames and protected
// namespaces left out, a revision of the content whatever the name.
func TestParams(t *testing.T) {
	g := NewWithT(t)
	table, _ := Build(Input{
		Routes: []v1alpha1.ProfileRoute{
			route("batch", "bin-packing", 0, ns("team", "batch"), pods("app", "x"),
				expr("tier", metav1.LabelSelectorOpNotIn, "gold"), expr("canary", metav1.LabelSelectorOpDoesNotExist)),
			route("system", "bin-packing", 1, ns(corev1.LabelMetadataName, "kube-system"), prio(5), from("legacy", "default-scheduler")),
		},
		Profiles:  []v1alpha1.SchedulerProfile{serving("bin-packing")},
		Protected: DefaultProtected("ops"),
	})
	params := table.Params(PolicyName)
	g.Expect(params.Name).To(Equal(PolicyName))
	g.Expect(params.Spec.ProtectedNamespaces).To(Equal([]string{"kube-system", "ops"}))
	g.Expect(params.Spec.Routes).To(Equal([]v1alpha1.TableRoute{{
		Name: "system", SchedulerName: "bin-packing", FromSchedulerNames: []string{"legacy", "default-scheduler"},
		ProtectedNamespacesNamed: []string{"kube-system"},
		NamespaceLabels:          map[string]v1alpha1.LabelValue{corev1.LabelMetadataName: "kube-system"},
	}, {
		Name: "batch", SchedulerName: "bin-packing",
		NamespaceLabels: map[string]v1alpha1.LabelValue{"team": "batch"},
		PodLabels:       map[string]v1alpha1.LabelValue{"app": "x"},
		PodExpressions: []v1alpha1.TableRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"gold"}},
			{Key: "canary", Operator: metav1.LabelSelectorOpDoesNotExist},
		},
	}}))
	g.Expect(table.Params("team-b-routes").Spec).To(Equal(params.Spec), "the revision is the routes', whatever the name")
	empty := Table{}.Params(PolicyName)
	g.Expect(empty.Spec.Revision).NotTo(Equal(params.Spec.Revision))
	g.Expect(Revision(params.Spec)).To(Equal(params.Spec.Revision))
}
