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

// Explain makes a case also measure SchedulingReviews (profile-scheduler
// only: upstream kube-scheduler has no reviews). Its steps are a normal
// case's (nodes, unmeasured pods, one measured step) and serve two
// measures:
//
//   - Answer time: for each of Sizes, the case's first createNodes step
//     with that many nodes and its unmeasured pod steps, then Reviews
//     reviews of a pod from PodTemplate, one at a time, each timed from its
//     create to its Complete condition.
//   - Throughput beside reviews: the measured step's throughput run, once
//     without reviews and once with Rate reviews per second created from
//     the scheduler's resume to the last bind, in the same harness run.
//   - Throughput beside a capacity scenario: the same run once without and
//     once with one drain scenario of every tenth node always running
//     beside it, the operator's CPU per pod and lock contention read from
//     its profiles in both (as many pairs as the reviews').
type Explain struct {
	// Sizes are the node counts the answer time is measured on.
	Sizes []Count `json:"sizes"`
	// Reviews is how many reviews are timed per size.
	Reviews Count `json:"reviews"`
	// Rate is reviews per second beside the throughput run.
	Rate Count `json:"rate"`
	// PodTemplate is the pod the reviews ask about (spec.podTemplate).
	PodTemplate string `json:"podTemplate"`
	// Scenarios, when set, also times that many capacity scenarios of
	// each kind per size, one at a time after the reviews: a drain of
	// every tenth node, and a minimize search for the nodes of a new pool
	// that 50 one-CPU pods need.
	Scenarios Count `json:"scenarios,omitempty"`
}

func (c *Case) validateExplain(vals map[string]int, d TemplateData) error {
	x := c.Explain
	if len(x.Sizes) == 0 {
		return errors.New("explain: sizes needs at least one node count")
	}
	named := map[string]Count{"reviews": x.Reviews, "rate": x.Rate}
	if x.Scenarios != (Count{}) {
		named["scenarios"] = x.Scenarios
	}
	for i, n := range x.Sizes {
		named[fmt.Sprintf("sizes[%d]", i)] = n
	}
	for name, n := range named {
		v, err := n.Value(vals)
		if err != nil {
			return fmt.Errorf("explain.%s: %w", name, err)
		}
		if v <= 0 {
			return fmt.Errorf("explain.%s must be positive, got %d", name, v)
		}
	}
	if !c.hasCreateNodes() {
		return errors.New("explain: the case needs a createNodes step (sizes set its count)")
	}
	if _, err := c.Pod(x.PodTemplate, d); err != nil {
		return fmt.Errorf("explain: podTemplate: %w", err)
	}
	return nil
}

func (c *Case) hasCreateNodes() bool {
	for _, s := range c.Steps {
		if s.CreateNodes != nil {
			return true
		}
	}
	return false
}

// Literal returns a count of n.
func Literal(n int) Count { return Count{literal: n} }
