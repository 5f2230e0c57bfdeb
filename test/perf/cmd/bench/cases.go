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
