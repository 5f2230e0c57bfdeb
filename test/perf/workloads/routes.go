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

package workloads

import (
	"fmt"
)

// Routes makes a case measure what ProfileRoutes cost pod creation
// (profile-scheduler only: upstream has no routes). With the operator
// running and no nodes (nothing binds, so creation alone is measured),
// Pods pods of PodTemplate asking for default-scheduler are created as
// fast as the API server takes them, spread over as many namespaces as
// there are routes, with no route, with Count routes in force (route i
// selects namespace i and takes its pods to the case's profile) and with
// Most (Most-Count more routes, tried first, that select no namespace of
// the run), each run by the routes program reading the operator's
// RoutingTable and by the CEL the operator compiled every route into
// before the routes became data, side by side, who goes first
// alternating.
type Routes struct {
	// Count is how many routes select the run's namespaces.
	Count Count `json:"count"`
	// Most, when set, is a larger number of routes in force in runs of
	// their own: Count that select the namespaces, after Most-Count that
	// select none.
	Most *Count `json:"most,omitempty"`
	// Pods is how many pods each run creates.
	Pods Count `json:"pods"`
	// PodTemplate is the pod created; the harness sets its schedulerName
	// to default-scheduler.
	PodTemplate string `json:"podTemplate"`
}

func (c *Case) validateRoutes(vals map[string]int, d TemplateData) error {
	x := c.Routes
	counts := map[string]Count{"count": x.Count, "pods": x.Pods}
	if x.Most != nil {
		counts["most"] = *x.Most
	}
	for name, n := range counts {
		v, err := n.Value(vals)
		if err != nil {
			return fmt.Errorf("routes.%s: %w", name, err)
		}
		if v <= 0 {
			return fmt.Errorf("routes.%s must be positive, got %d", name, v)
		}
	}
	if len(c.Steps) > 0 {
		return fmt.Errorf("a routes case has no steps (it creates its pods, on no node), got %d", len(c.Steps))
	}
	if _, err := c.Pod(x.PodTemplate, d); err != nil {
		return fmt.Errorf("routes: podTemplate: %w", err)
	}
	return nil
}
