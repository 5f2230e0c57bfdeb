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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// requestedName is the CEL of the schedulerName a pod asks for.
// Defaulting (default-scheduler for an empty schedulerName) happens when
// kube-apiserver decodes the request, before admission; the expression
// defaults it again so it holds for an object that reached admission
// without it.
const requestedName = `has(object.spec.schedulerName) && object.spec.schedulerName != "" ? object.spec.schedulerName : "default-scheduler"`

const isProbe = `has(object.metadata.annotations) && ` + `"` + ProbeAnnotation + `" in object.metadata.annotations`

// isOwnProbe is the CEL of a probe pod of the policy named name.
func isOwnProbe(name string) string {
	return fmt.Sprintf(`%s && object.metadata.annotations[%s] == %s`, isProbe, quote(ProbeAnnotation), quote(name))
}

// CompiledPolicy returns the MutatingAdmissionPolicy and binding, both
// named name, that ran the table inside kube-apiserver before the routes
// became data: every route compiled into the CEL of the policy, which
// the operator wrote. The operator no longer writes it; the chart's
// upgrade test installs it as the operator of that chart left it, and
// the admission benchmark runs it beside Program. It returns the
// revision a probe pod gets.
//
// Only pod CREATE is matched (schedulerName is immutable afterwards); a
// pod is rewritten only when it asks for one of the first matching
// route's fromSchedulerNames. failurePolicy is Ignore: an error in a
// policy never refuses a pod. reinvocationPolicy IfNeeded runs the
// routes again when a later mutation changed the pod (its labels): a
// routed pod asks for the route's target by then, so it is not routed
// twice unless a route takes pods from that name.
func (t Table) CompiledPolicy(name string) (*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding, string) {
	route := t.routeExpression()
	targets := t.targetsExpression()
	// JSON patches rather than apply configurations: a pod no route
	// takes gets an empty list, which kube-apiserver applies for nothing,
	// where an apply configuration, even an empty one, merges the whole
	// pod (about 1 ms of kube-apiserver's CPU per pod and mutation). The
	// annotation is added under metadata.annotations, or with it where
	// the pod has none.
	mutation := fmt.Sprintf(`variables.route == "" ? [] : `+
		`(has(object.metadata.annotations) ? [JSONPatch{op: "add", path: %s, value: variables.route}] : [JSONPatch{op: "add", path: "/metadata/annotations", value: {%s: variables.route}}]) + `+
		`[JSONPatch{op: "add", path: "/spec/schedulerName", value: %s[variables.route]}]`,
		quote(annotationPath(v1alpha1.RouteAnnotation)), quote(v1alpha1.RouteAnnotation), targets)
	sum := sha256.Sum256([]byte(route + "\x00" + mutation))
	revision := hex.EncodeToString(sum[:8])
	// A probe pod has annotations (its ProbeAnnotation).
	probe := fmt.Sprintf(`variables.ownProbe ? [JSONPatch{op: "add", path: %s, value: %s}] : []`, quote(annotationPath(RevisionAnnotation)), quote(revision))

	from := sets.New[string]()
	for _, e := range t.Entries {
		from.Insert(e.from...)
	}
	meta := metav1.ObjectMeta{
		Name:        name,
		Labels:      map[string]string{OwnerLabel: OwnerValue, "app.kubernetes.io/managed-by": OwnerValue},
		Annotations: map[string]string{RevisionAnnotation: revision},
	}
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: meta,
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
							Scope: ptr.To(admissionregistrationv1.NamespacedScope),
						},
					},
				}},
			},
			// Cheap before the routes: the pod asks for a name some route
			// takes from, or is a probe.
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name:       "routable-or-probe",
				Expression: fmt.Sprintf("(%s) || ((%s) in %s)", isProbe, requestedName, quoteList(sets.List(from))),
			}},
			Variables: []admissionregistrationv1.Variable{
				{Name: "probe", Expression: isProbe},
				{Name: "ownProbe", Expression: isOwnProbe(name)},
				{Name: "from", Expression: requestedName},
				{Name: "namespaceLabels", Expression: `has(namespaceObject.metadata.labels) ? namespaceObject.metadata.labels : {}`},
				{Name: "podLabels", Expression: `has(object.metadata.labels) ? object.metadata.labels : {}`},
				{Name: "route", Expression: route},
			},
			Mutations: []admissionregistrationv1.Mutation{
				{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: probe}},
				{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: mutation}},
			},
			FailurePolicy:      ptr.To(admissionregistrationv1.Ignore),
			ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
		},
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: *meta.DeepCopy(),
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name},
	}
	return policy, binding, revision
}

// annotationPath is the JSON pointer (RFC 6901) of annotation key.
func annotationPath(key string) string {
	return "/metadata/annotations/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// routeExpression is the CEL that names the first route of the table
// selecting the pod, or "".
func (t Table) routeExpression() string {
	var b strings.Builder
	b.WriteString("variables.probe ? \"\" : ")
	for _, e := range t.Entries {
		fmt.Fprintf(&b, "(%s) ? %s : ", e.cel(), quote(e.Route))
	}
	b.WriteString(`""`)
	return b.String()
}

// cel is the condition under which the entry selects a pod, the CEL twin
// of Table.Route.
func (e *Entry) cel() string {
	terms := []string{fmt.Sprintf("variables.from in %s", quoteList(e.from))}
	if len(e.excluded) > 0 {
		terms = append(terms, fmt.Sprintf("!(request.namespace in %s)", quoteList(e.excluded)))
	}
	if !e.all {
		terms = append(terms, e.namespace.cel("variables.namespaceLabels"))
	}
	if e.pod != nil && len(e.pod.reqs) > 0 {
		terms = append(terms, e.pod.cel("variables.podLabels"))
	}
	return strings.Join(terms, " && ")
}

// targetsExpression is the CEL map from route name to schedulerName.
func (t Table) targetsExpression() string {
	pairs := make([]string, 0, len(t.Entries))
	for _, e := range t.Entries {
		pairs = append(pairs, fmt.Sprintf("%s: %s", quote(e.Route), quote(e.SchedulerName)))
	}
	slices.Sort(pairs)
	if len(pairs) == 0 {
		return `{"": ""}`
	}
	return "{" + strings.Join(pairs, ", ") + "}"
}
