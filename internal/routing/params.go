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
	"encoding/json"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// MaxTableSize bounds the JSON of a RoutingTable's routes, in bytes, so
// that the table stays well under what kube-apiserver stores in one
// object (etcd's 1.5 MiB request limit). The schema bounds each list and
// string (the CEL cost of the program at its maxima, which a test
// checks), not the total; the operator admits routes, the oldest first,
// while their share of the table fits (TooManyRoutes past it). A route
// at the ProfileRoute schema's maxima takes about 18 kB, a route of a
// few labels a hundred bytes.
const MaxTableSize = 1_000_000

// Params returns the RoutingTable named name that makes the routes
// program run the table: its routes in the table's order, and a
// revision that names its content (whatever the name).
func (t Table) Params(name string) *v1alpha1.RoutingTable {
	spec := v1alpha1.RoutingTableSpec{ProtectedNamespaces: slices.Clone(t.Protected)}
	for i := range t.Entries {
		spec.Routes = append(spec.Routes, t.Entries[i].tableRoute(t.Protected))
	}
	spec.Revision = Revision(spec)
	return &v1alpha1.RoutingTable{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "RoutingTable"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{OwnerLabel: OwnerValue, "app.kubernetes.io/managed-by": OwnerValue},
		},
		Spec: spec,
	}
}

// Revision names a table's content (its revision aside): the first 8
// bytes of the SHA-256 of its JSON, in hexadecimal.
func Revision(spec v1alpha1.RoutingTableSpec) string {
	spec.Revision = ""
	data, err := json.Marshal(spec)
	if err != nil {
		// Strings, maps and lists of strings always marshal.
		panic(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// tableRoute is the entry as the routes program reads it, protected the
// table's protected namespaces.
func (e *Entry) tableRoute(protected []string) v1alpha1.TableRoute {
	out := v1alpha1.TableRoute{Name: e.Route, SchedulerName: e.SchedulerName}
	if !slices.Equal(e.from, []string{corev1.DefaultSchedulerName}) {
		out.FromSchedulerNames = slices.Clone(e.from)
	}
	for _, ns := range protected {
		if !slices.Contains(e.excluded, ns) {
			out.ProtectedNamespacesNamed = append(out.ProtectedNamespacesNamed, ns)
		}
	}
	if !e.all {
		out.NamespaceLabels, out.NamespaceExpressions = e.namespace.tableForm()
	}
	out.PodLabels, out.PodExpressions = e.pod.tableForm()
	return out
}

// tableForm is the selector as labels (its requirements of one value:
// In with one value, as matchLabels are) and the other requirements;
// nil and nil for a selector of everything.
func (s *selector) tableForm() (map[string]v1alpha1.LabelValue, []v1alpha1.TableRequirement) {
	if s == nil {
		return nil, nil
	}
	var labels map[string]v1alpha1.LabelValue
	var exprs []v1alpha1.TableRequirement
	for _, r := range s.reqs {
		if r.op == metav1.LabelSelectorOpIn && len(r.values) == 1 {
			if _, taken := labels[r.key]; !taken {
				if labels == nil {
					labels = map[string]v1alpha1.LabelValue{}
				}
				labels[r.key] = v1alpha1.LabelValue(r.values[0])
				continue
			}
		}
		exprs = append(exprs, v1alpha1.TableRequirement{Key: r.key, Operator: r.op, Values: slices.Clone(r.values)})
	}
	return labels, exprs
}

// tableSize is the bytes the entry takes in a RoutingTable's JSON.
func (e *Entry) tableSize() int {
	data, err := json.Marshal(e.tableRoute(nil))
	if err != nil {
		panic(err)
	}
	return len(data) + 1
}
