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

package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

// selectCases picks the cases named in list, or every case that has the
// parameter set scale when list is empty.
func selectCases(all []*workloads.Case, list, scale string) ([]*workloads.Case, error) {
	if list == "" {
		var out []*workloads.Case
		for _, c := range all {
			if c.HasScale(scale) {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no case has the parameter set %q", scale)
		}
		return out, nil
	}
	var out []*workloads.Case
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(all, func(c *workloads.Case) bool { return c.Name == name })
		if i < 0 {
			var names []string
			for _, c := range all {
				names = append(names, c.Name)
			}
			return nil, fmt.Errorf("unknown case %q (have %s)", name, strings.Join(names, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

// parseSet reads case.param=value overrides.
func parseSet(set []string) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	for _, s := range set {
		k, v, ok := strings.Cut(s, "=")
		c, p, ok2 := strings.Cut(k, ".")
		n, err := strconv.Atoi(v)
		if !ok || !ok2 || err != nil {
			return nil, fmt.Errorf("-set %q: want case.param=integer", s)
		}
		if out[c] == nil {
			out[c] = map[string]int{}
		}
		out[c][p] = n
	}
	return out, nil
}
