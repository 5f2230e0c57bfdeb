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
// few labels a few hundred bytes.
const MaxTableSize = 1_000_000

// Params returns the RoutingTable named name that makes the routes
// program run the table: its routes in the table's order, and a
// revision that names its content (whatever the name).
func (t Table) Params(name string) *v1alpha1.RoutingTable {
	routes := make([]v1alpha1.TableRoute, 0, len(t.Entries))
	for i := range t.Entries {
		routes = append(routes, t.Entries[i].tableRoute())
	}
	return &v1alpha1.RoutingTable{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "RoutingTable"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{OwnerLabel: OwnerValue, "app.kubernetes.io/managed-by": OwnerValue},
		},
		Spec: v1alpha1.RoutingTableSpec{Revision: Revision(routes), Routes: routes},
	}
}

// Revision names a table's routes: the first 8 bytes of the SHA-256 of
// their JSON, in hexadecimal.
func Revision(routes []v1alpha1.TableRoute) string {
	data, err := json.Marshal(routes)
	if err != nil {
		// Strings and lists of strings always marshal.
		panic(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// tableRoute is the entry as the routes program reads it.
func (e *Entry) tableRoute() v1alpha1.TableRoute {
	out := v1alpha1.TableRoute{
		Name:               e.Route,
		SchedulerName:      e.SchedulerName,
		FromSchedulerNames: slices.Clone(e.from),
		ExcludedNamespaces: slices.Clone(e.excluded),
		PodSelector:        e.pod.requirements(),
	}
	if !e.all {
		out.NamespaceSelector = e.namespace.requirements()
	}
	return out
}

// requirements are the selector's, matchLabels first (In with one
// value); nil for a selector of everything.
func (s *selector) requirements() []v1alpha1.TableRequirement {
	if s == nil || len(s.reqs) == 0 {
		return nil
	}
	out := make([]v1alpha1.TableRequirement, 0, len(s.reqs))
	for _, r := range s.reqs {
		out = append(out, v1alpha1.TableRequirement{Key: r.key, Operator: r.op, Values: slices.Clone(r.values)})
	}
	return out
}

// tableSize is the bytes the entry takes in a RoutingTable's JSON.
func (e *Entry) tableSize() int {
	data, err := json.Marshal(e.tableRoute())
	if err != nil {
		panic(err)
	}
	return len(data) + 1
}
