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
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// Entry is a route in force: the pods it selects get SchedulerName.
type Entry struct {
	// Route is the name of the ProfileRoute.
	Route string
	// Profile is spec.profile.
	Profile string
	// SchedulerName the selected pods get.
	SchedulerName string
	// Priority of the route.
	Priority int32

	from      []string
	all       bool
	namespace *selector
	pod       *selector
	// excluded are the protected namespaces this route does not name.
	excluded []string
}

// Table is the routes in force, in the order kube-apiserver tries them:
// the first entry that selects a pod rewrites it.
type Table struct {
	Entries []Entry
	// Protected namespaces, routed only by a route that names them.
	Protected []string
}

// Verdict is what Build decided about one route.
type Verdict struct {
	// Reason is v1alpha1.ReasonActive when the route is in the Table, or
	// the reason it is not.
	Reason string
	// Message says why, naming the field at fault.
	Message string
	// SchedulerName the route rewrites pods to; empty when it is not in
	// the Table.
	SchedulerName string
	// ProfileServing is false when the route is in the Table only because
	// of whenProfileNotServing: Hold.
	ProfileServing bool
	// MatchedNamespaces are the names of the namespaces the route selects,
	// sorted (set only when Build was given namespaces).
	MatchedNamespaces []string
	// ExcludedNamespaces are the protected namespaces the route leaves
	// alone.
	ExcludedNamespaces []string
}

// InTable reports whether the route is in force.
func (v Verdict) InTable() bool { return v.Reason == v1alpha1.ReasonActive }

// Input is what Build decides from.
type Input struct {
	// Routes, in any order. Routes being deleted are left out.
	Routes []v1alpha1.ProfileRoute
	// Profiles, in any order.
	Profiles []v1alpha1.SchedulerProfile
	// Namespaces, for Verdict.MatchedNamespaces; optional.
	Namespaces []corev1.Namespace
	// Protected namespaces are routed only by a route whose
	// namespaceSelector names them (kube-system, the operator's own).
	Protected []string
}

// DefaultProtected returns kube-system and the operator's namespace.
func DefaultProtected(operatorNamespace string) []string {
	return sets.List(sets.New(metav1.NamespaceSystem, operatorNamespace).Delete(""))
}

// Order sorts routes the way they are tried: the higher priority first,
// then the older, then by name.
func Order(routes []v1alpha1.ProfileRoute) {
	slices.SortStableFunc(routes, func(a, b v1alpha1.ProfileRoute) int {
		if c := cmp.Compare(b.Spec.Priority, a.Spec.Priority); c != 0 {
			return c
		}
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

// Build decides which routes are in force and in which order, and why
// the others are not. It is pure.
//
// A route is refused when older routes take the routes' budget
// (TooManyRoutes, see overBudget), when a selector is invalid
// (InvalidSelector), when
// an older route of equal priority may select the same pods
// (RouteConflict), and, with whenProfileNotServing: Fallback, when its
// profile does not exist (ProfileNotFound) or no generation of it serves
// (ProfileNotServing). Conflicts are decided on the specs alone, so that
// a profile coming and going never moves a conflict from one route to
// another.
func Build(in Input) (Table, map[string]Verdict) {
	routes := make([]v1alpha1.ProfileRoute, 0, len(in.Routes))
	for _, r := range in.Routes {
		if r.DeletionTimestamp.IsZero() {
			routes = append(routes, r)
		}
	}
	tooMany := overBudget(routes, in.Protected)
	Order(routes)
	profiles := make(map[string]*v1alpha1.SchedulerProfile, len(in.Profiles))
	for i := range in.Profiles {
		profiles[in.Profiles[i].Name] = &in.Profiles[i]
	}

	verdicts := make(map[string]Verdict, len(routes))
	table := Table{Protected: slices.Clone(in.Protected)}
	var accepted []Entry
	for i := range routes {
		r := &routes[i]
		if msg, ok := tooMany[r.Name]; ok {
			verdicts[r.Name] = Verdict{Reason: v1alpha1.ReasonTooManyRoutes, Message: msg}
			continue
		}
		e, err := compile(r, in.Protected)
		if err != nil {
			verdicts[r.Name] = Verdict{Reason: v1alpha1.ReasonInvalidSelector, Message: err.Error()}
			continue
		}
		v := Verdict{MatchedNamespaces: matchedNamespaces(e, in.Namespaces), ExcludedNamespaces: e.excluded}
		if other := conflicting(e, accepted); other != "" {
			v.Reason = v1alpha1.ReasonRouteConflict
			v.Message = fmt.Sprintf("the older ProfileRoute %q of equal spec.priority %d selects some of the same pods; "+
				"give one route another spec.priority, or make their selectors exclude each other (one label key with disjoint values)", other, e.Priority)
			verdicts[r.Name] = v
			continue
		}
		accepted = append(accepted, e)
		name, serving, found := servedName(profiles[r.Spec.Profile])
		hold := r.Spec.WhenProfileNotServing == v1alpha1.ProfileNotServingHold
		switch {
		case !found && !hold:
			v.Reason = v1alpha1.ReasonProfileNotFound
			v.Message = fmt.Sprintf("spec.profile: SchedulerProfile %q not found; the route routes nothing until it serves (whenProfileNotServing: Fallback)", r.Spec.Profile)
		case !serving && !hold:
			v.Reason = v1alpha1.ReasonProfileNotServing
			v.Message = fmt.Sprintf("spec.profile: no generation of SchedulerProfile %q serves; the route routes nothing until one does (whenProfileNotServing: Fallback)", r.Spec.Profile)
		default:
			if !found {
				name = r.Spec.Profile
			}
			e.SchedulerName = name
			v.Reason, v.SchedulerName, v.ProfileServing = v1alpha1.ReasonActive, name, serving
			table.Entries = append(table.Entries, e)
		}
		verdicts[r.Name] = v
	}
	return table, verdicts
}

// compile validates the selectors of r.
func compile(r *v1alpha1.ProfileRoute, protected []string) (Entry, error) {
	spec := field.NewPath("spec")
	e := Entry{Route: r.Name, Profile: r.Spec.Profile, Priority: r.Spec.Priority, all: r.Spec.AllNamespaces, from: FromSchedulerNames(r)}
	if !r.Spec.AllNamespaces && r.Spec.NamespaceSelector == nil {
		return e, fmt.Errorf("%s: set a selector, or spec.allNamespaces: true", spec.Child("namespaceSelector"))
	}
	var err error
	if !e.all {
		if e.namespace, err = compileSelector(r.Spec.NamespaceSelector.AsMeta(), spec.Child("namespaceSelector")); err != nil {
			return e, err
		}
		if len(e.namespace.reqs) == 0 {
			return e, fmt.Errorf("%s: an empty selector selects every namespace; set spec.allNamespaces: true instead", spec.Child("namespaceSelector"))
		}
	}
	if e.pod, err = compileSelector(r.Spec.PodSelector.AsMeta(), spec.Child("podSelector")); err != nil {
		return e, err
	}
	for _, ns := range protected {
		if !e.namespace.names(ns) {
			e.excluded = append(e.excluded, ns)
		}
	}
	return e, nil
}

// FromSchedulerNames is spec.fromSchedulerNames, or default-scheduler.
func FromSchedulerNames(r *v1alpha1.ProfileRoute) []string {
	if len(r.Spec.FromSchedulerNames) == 0 {
		return []string{corev1.DefaultSchedulerName}
	}
	return r.Spec.FromSchedulerNames
}

// conflicting returns the first accepted route of equal priority that may
// select a pod e selects.
func conflicting(e Entry, accepted []Entry) string {
	for _, o := range accepted {
		if o.Priority == e.Priority && overlap(e, o) {
			return o.Route
		}
	}
	return ""
}

// overlap reports whether a pod may exist that both a and b select. It
// errs on the side of overlap: it sees exclusion only through the
// schedulerNames they take from, or one label key (of namespaces, or of
// pods) on which their selectors want disjoint values.
func overlap(a, b Entry) bool {
	if !sets.New(a.from...).HasAny(b.from...) {
		return false
	}
	if !a.all && !b.all && excludes(a.namespace, b.namespace) {
		return false
	}
	return !excludes(a.pod, b.pod)
}

// servedName returns the schedulerName profile p serves (or would serve),
// whether a generation of it serves, and whether it exists. Whether it
// serves is what the operator last wrote in status: activeGeneration,
// and the spec of that generation.
func servedName(p *v1alpha1.SchedulerProfile) (name string, serving, found bool) {
	if p == nil {
		return "", false, false
	}
	if !p.DeletionTimestamp.IsZero() || p.Status.ActiveGeneration == 0 {
		return p.EffectiveSchedulerName(), false, true
	}
	if p.Status.ActiveSpec != nil {
		active := v1alpha1.SchedulerProfile{ObjectMeta: p.ObjectMeta, Spec: *p.Status.ActiveSpec}
		return active.EffectiveSchedulerName(), true, true
	}
	if p.Status.SchedulerName != "" {
		return p.Status.SchedulerName, true, true
	}
	return p.EffectiveSchedulerName(), true, true
}

// selectsNamespace reports whether e routes pods of the namespace.
func (e *Entry) selectsNamespace(name string, nsLabels map[string]string) bool {
	if slices.Contains(e.excluded, name) {
		return false
	}
	return e.all || e.namespace.matches(nsLabels)
}

func matchedNamespaces(e Entry, namespaces []corev1.Namespace) []string {
	var out []string
	for _, ns := range namespaces {
		if e.selectsNamespace(ns.Name, ns.Labels) {
			out = append(out, ns.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Route returns the entry that rewrites a new pod with podLabels and
// spec.schedulerName schedulerName ("" asks for default-scheduler) in
// the namespace, or nil when the pod keeps its scheduler. The namespace's
// labels are its own; kube-apiserver adds kubernetes.io/metadata.name to
// every namespace, and Route does too when it is missing.
func (t Table) Route(namespace string, nsLabels, podLabels map[string]string, schedulerName string) *Entry {
	if schedulerName == "" {
		schedulerName = corev1.DefaultSchedulerName
	}
	if _, ok := nsLabels[corev1.LabelMetadataName]; !ok {
		l := make(map[string]string, len(nsLabels)+1)
		for k, v := range nsLabels {
			l[k] = v
		}
		l[corev1.LabelMetadataName] = namespace
		nsLabels = l
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		if slices.Contains(e.from, schedulerName) && e.selectsNamespace(namespace, nsLabels) && e.pod.matches(podLabels) {
			return e
		}
	}
	return nil
}

// String describes the entry for people: its selectors in kubectl's
// syntax.
func (e *Entry) String() string {
	ns := "all namespaces"
	if !e.all {
		ns = "namespaces " + e.namespace.match.String()
	}
	if len(e.excluded) > 0 {
		ns += " but " + strings.Join(e.excluded, ", ")
	}
	pods := "every pod"
	if e.pod != nil && !e.pod.match.Empty() {
		pods = "pods " + e.pod.match.String()
	}
	return fmt.Sprintf("%s of %s asking for %s", pods, ns, strings.Join(e.from, ", "))
}

// overBudget returns the routes refused, with why: those past the
// oldest v1alpha1.MaxProfileRoutes, and those whose share of the
// RoutingTable would take it past MaxTableSize once the older routes'
// is counted. Routes are counted by age, whether they end up in force or
// not, so that a new route never pushes an older one out, and a profile
// that comes and goes never moves a route in or out (a route's share
// counts the longest schedulerName).
func overBudget(routes []v1alpha1.ProfileRoute, protected []string) map[string]string {
	byAge := slices.Clone(routes)
	slices.SortStableFunc(byAge, func(a, b v1alpha1.ProfileRoute) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	out := map[string]string{}
	size := 0
	for i, r := range byAge {
		if i >= v1alpha1.MaxProfileRoutes {
			out[r.Name] = fmt.Sprintf("%d older ProfileRoutes exist, the most in force at once; this route routes nothing until one of them is deleted", v1alpha1.MaxProfileRoutes)
			continue
		}
		e, err := compile(&r, protected)
		if err != nil {
			continue
		}
		e.SchedulerName = strings.Repeat("x", 253)
		n := e.tableSize()
		if size+n > MaxTableSize {
			out[r.Name] = fmt.Sprintf("the older ProfileRoutes take %d of the %d bytes of the RoutingTable and this route needs %d more "+
				"(its selectors and fromSchedulerNames); it routes nothing until it, or an older route, is made smaller or deleted", size, MaxTableSize, n)
			continue
		}
		size += n
	}
	return out
}
