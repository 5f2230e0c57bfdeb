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
	"strconv"
)

// GroupSet is Count PodGroups of Size members each, named
// <prefix>-g<index> (index over the step's groups). MinCount is the
// groups' spec.schedulingPolicy.gang.minCount: Size when left out; above
// Size, a group that never has enough members.
type GroupSet struct {
	Count    Count `json:"count"`
	Size     Count `json:"size"`
	MinCount Count `json:"minCount,omitzero"`
}

// Group is one PodGroup of a step: its name, its members (pods
// First..First+Size-1 of the step) and its minCount.
type Group struct {
	Name     string
	First    int
	Size     int
	MinCount int
}

// GroupName is the name of a step's index-th PodGroup.
func GroupName(prefix string, index int) string { return prefix + "-g" + strconv.Itoa(index) }

// Pods is how many pods the step creates: Count, or with Groups the sum of
// their members.
func (s *CreatePods) Pods(vals map[string]int) (int, error) {
	if len(s.Groups) == 0 {
		return s.Count.Value(vals)
	}
	groups, err := s.Layout(vals)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, g := range groups {
		n += g.Size
	}
	return n, nil
}

// Layout returns the step's PodGroups in creation order (nil without
// Groups): one group of each set in turn, so the sets are interleaved, and
// each group's members consecutive.
func (s *CreatePods) Layout(vals map[string]int) ([]Group, error) {
	type set struct{ left, size, minCount int }
	sets := make([]set, len(s.Groups))
	for i, g := range s.Groups {
		count, err := g.Count.Value(vals)
		if err != nil {
			return nil, fmt.Errorf("groups[%d].count: %w", i, err)
		}
		size, err := g.Size.Value(vals)
		if err != nil {
			return nil, fmt.Errorf("groups[%d].size: %w", i, err)
		}
		minCount, err := g.MinCount.Value(vals)
		if err != nil {
			return nil, fmt.Errorf("groups[%d].minCount: %w", i, err)
		}
		if count < 0 || size < 1 {
			return nil, fmt.Errorf("groups[%d]: want count >= 0 and size >= 1, got %d and %d", i, count, size)
		}
		if minCount == 0 {
			minCount = size
		}
		if minCount < 1 {
			return nil, fmt.Errorf("groups[%d].minCount: want >= 1, got %d", i, minCount)
		}
		sets[i] = set{left: count, size: size, minCount: minCount}
	}
	var out []Group
	for next := 0; ; {
		added := false
		for i := range sets {
			if sets[i].left == 0 {
				continue
			}
			sets[i].left--
			out = append(out, Group{Name: GroupName(s.Prefix, len(out)), First: next, Size: sets[i].size, MinCount: sets[i].minCount})
			next += sets[i].size
			added = true
		}
		if !added {
			return out, nil
		}
	}
}
