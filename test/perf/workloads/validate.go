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

func (c *Case) validate() error {
	if c.Name == "" {
		return errors.New("name is required")
	}
	vals, err := c.Values(ScaleDefault, nil)
	if err != nil {
		return err
	}
	for scale := range c.Scales {
		for k := range c.Scales[scale] {
			if _, ok := c.Params[k]; !ok {
				return fmt.Errorf("scale %s sets %q, which is not a parameter", scale, k)
			}
		}
	}
	if _, err := c.TimeoutSeconds.Value(vals); err != nil {
		return err
	}
	if _, err := SchedulerProfile(c.Profile, "validate"); err != nil {
		return err
	}
	d := TemplateData{Name: "validate-0", Namespace: "validate", SchedulerName: "validate", Params: vals}
	measured, podsSeen := 0, false
	prefixes := map[string]bool{}
	prefix := func(p string) error {
		if p == "" {
			return errors.New("prefix is required")
		}
		if prefixes[p] {
			return fmt.Errorf("prefix %q used twice", p)
		}
		prefixes[p] = true
		return nil
	}
	for i, s := range c.Steps {
		n := 0
		for _, set := range []bool{s.CreateNodes != nil, s.CreatePods != nil, s.Churn != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("step %d: exactly one of createNodes, createPods, churn", i)
		}
		switch {
		case s.CreateNodes != nil:
			if podsSeen {
				return fmt.Errorf("step %d: createNodes after createPods (nodes come first)", i)
			}
			if err := prefix(s.CreateNodes.Prefix); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if _, err := s.CreateNodes.Count.Value(vals); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if _, err := c.Node(s.CreateNodes.Template, d); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
		case s.CreatePods != nil:
			podsSeen = true
			if err := prefix(s.CreatePods.Prefix); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if err := c.validateGroups(s.CreatePods, vals); err != nil {
				return fmt.Errorf("step %d (%s): %w", i, s.CreatePods.Prefix, err)
			}
			if _, err := c.Pod(s.CreatePods.Template, d); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if s.CreatePods.Measure {
				measured++
				if s.CreatePods.SkipWait || s.CreatePods.ExpectPending {
					return fmt.Errorf("step %d: a measured step waits for its pods (no skipWait, no expectPending)", i)
				}
				rate, err := s.CreatePods.Rate.Value(vals)
				if err != nil {
					return fmt.Errorf("step %d: rate: %w", i, err)
				}
				if rate <= 0 {
					return fmt.Errorf("step %d: a measured step needs rate (pods per second of its latency run)", i)
				}
			}
		case s.Churn != nil:
			if err := prefix(s.Churn.Prefix); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if _, err := s.Churn.IntervalMillis.Value(vals); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if _, err := c.Node(s.Churn.Template, d); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
			if s.Churn.PodTemplate != "" {
				if _, err := c.Pod(s.Churn.PodTemplate, d); err != nil {
					return fmt.Errorf("step %d: churn podTemplate: %w", i, err)
				}
			}
			if s.Churn.ServiceTemplate != "" {
				if _, err := c.Service(s.Churn.ServiceTemplate, d); err != nil {
					return fmt.Errorf("step %d: churn serviceTemplate: %w", i, err)
				}
			}
		}
	}
	kinds := 0
	for _, set := range []bool{c.Swap != nil, c.Explain != nil, c.Coexist != nil, c.Routes != nil, c.Rollout != nil, c.Isolation != nil} {
		if set {
			kinds++
		}
	}
	if kinds > 1 {
		return errors.New("at most one of swap, explain, coexist, routes, rollout and isolation")
	}
	if c.Swap != nil || c.Explain != nil || c.Rollout != nil {
		for i, s := range c.Steps {
			if s.CreatePods != nil && (len(s.CreatePods.Groups) > 0 || s.CreatePods.ExpectPending) {
				return fmt.Errorf("step %d: groups and expectPending are for plain cases, not swap, explain or rollout", i)
			}
		}
	}
	if c.Swap != nil {
		if measured != 0 {
			return errors.New("a swap case measures its own load: no measured createPods step")
		}
		return c.validateSwap(vals, d, prefix)
	}
	if c.Coexist != nil {
		return c.validateCoexist(vals, d)
	}
	if c.Routes != nil {
		return c.validateRoutes(vals, d)
	}
	if c.Isolation != nil {
		return c.validateIsolation(vals, d)
	}
	if measured != 1 {
		return fmt.Errorf("want exactly one measured createPods step, got %d", measured)
	}
	if c.Explain != nil {
		return c.validateExplain(vals, d)
	}
	if c.Rollout != nil {
		return c.validateRollout(vals, d)
	}
	return nil
}

// validateGroups checks a createPods step's count or groups: groups need
// the GenericWorkload gate and replace count.
func (c *Case) validateGroups(s *CreatePods, vals map[string]int) error {
	if len(s.Groups) == 0 {
		if s.ExpectPending {
			return errors.New("expectPending counts groups: give the step groups")
		}
		_, err := s.Count.Value(vals)
		return err
	}
	if s.Count != (Count{}) {
		return errors.New("count and groups: leave count out, the groups' members are the pods")
	}
	if !c.PodGroups() {
		return fmt.Errorf("groups need featureGates: {%s: true} (PodGroups are served and scheduled only with it)", GenericWorkload)
	}
	groups, err := s.Layout(vals)
	if err != nil {
		return err
	}
	if len(groups) == 0 {
		return errors.New("groups: no group (every set has count 0)")
	}
	return nil
}

func (c *Case) validateSwap(vals map[string]int, d TemplateData, prefix func(string) error) error {
	s := c.Swap
	for _, n := range []Count{s.Rate, s.Updates, s.Restarts, s.DwellMillis, s.WarmupMillis} {
		if _, err := n.Value(vals); err != nil {
			return fmt.Errorf("swap: %w", err)
		}
	}
	if err := prefix(s.Prefix); err != nil {
		return fmt.Errorf("swap: %w", err)
	}
	if _, err := c.Pod(s.PodTemplate, d); err != nil {
		return fmt.Errorf("swap: %w", err)
	}
	if s.NodeLabel == "" || len(s.Profiles) != 2 {
		return errors.New("swap: nodeLabel and exactly two profiles are required")
	}
	if s.Profiles[0].NodeLabelValue == s.Profiles[1].NodeLabelValue {
		return errors.New("swap: the two profiles must send pods to different nodes")
	}
	for _, p := range s.Profiles {
		if _, err := SchedulerProfile(p.Profile, "validate"); err != nil {
			return fmt.Errorf("swap profile %s: %w", p.Name, err)
		}
	}
	if string(c.Profile) != "" && string(c.Profile) != "null" {
		return errors.New("swap: the case profile is swap.profiles[0]; leave profile out")
	}
	c.Profile = s.Profiles[0].Profile
	return nil
}
