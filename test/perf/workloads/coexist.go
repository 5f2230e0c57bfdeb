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
	"errors"
	"fmt"
)

// Coexist makes a case run two schedulers at once on the same nodes, as a
// cluster that runs kube-scheduler beside profile-scheduler does, and
// count the nodes they overcommit between them. Its steps only create
// nodes; then each scheduler gets PodsEach pods of PodTemplate, created
// interleaved (one of the first scheduler's, one of the second's, ...) as
// fast as the API server takes them, more than the nodes hold. The run
// ends once every pod was seen and no bind came for SettleSeconds. The
// harness runs it in each of its setups (harness.CoexistSetups).
type Coexist struct {
	// PodTemplate is the pod both schedulers get; the harness sets its
	// schedulerName.
	PodTemplate string `json:"podTemplate"`
	// PodsEach is how many pods each scheduler gets.
	PodsEach Count `json:"podsEach"`
	// SettleSeconds is how long without a bind ends the run.
	SettleSeconds Count `json:"settleSeconds"`
}

func (c *Case) validateCoexist(vals map[string]int, d TemplateData) error {
	x := c.Coexist
	for name, n := range map[string]Count{"podsEach": x.PodsEach, "settleSeconds": x.SettleSeconds} {
		v, err := n.Value(vals)
		if err != nil {
			return fmt.Errorf("coexist.%s: %w", name, err)
		}
		if v <= 0 {
			return fmt.Errorf("coexist.%s must be positive, got %d", name, v)
		}
	}
	for i, s := range c.Steps {
		if s.CreateNodes == nil {
			return fmt.Errorf("step %d: a coexist case only creates nodes (its pods are coexist.podTemplate)", i)
		}
	}
	if !c.hasCreateNodes() {
		return errors.New("coexist: the case needs a createNodes step")
	}
	if _, err := c.Pod(x.PodTemplate, d); err != nil {
		return fmt.Errorf("coexist: podTemplate: %w", err)
	}
	return nil
}
