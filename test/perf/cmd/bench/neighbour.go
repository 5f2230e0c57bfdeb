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
	"path/filepath"
	"slices"
	"strings"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

// Neighbour variants (-neighbour): a case is run beside a kube-scheduler
// that binds pods of its own, without the bind arbiter or with it.
const (
	neighbourPlain   = "plain"
	neighbourArbiter = "arbiter"
)

// neighbourCases replaces each case that RunCase runs (not coexist,
// routes, swap, explain, rollout or isolation) with a copy per variant: named
// <case>-neighbour and <case>-neighbour-arbiter, with the case's values.
// arbiter says which copies have the arbiter on.
func neighbourCases(cases []*workloads.Case, variants string, vals map[string]map[string]int) (out []*workloads.Case, arbiter map[string]bool, err error) {
	arbiter = map[string]bool{}
	var vs []string
	for _, v := range strings.Split(variants, ",") {
		if v != neighbourPlain && v != neighbourArbiter {
			return nil, nil, fmt.Errorf("-neighbour: unknown variant %q (want %s or %s)", v, neighbourPlain, neighbourArbiter)
		}
		vs = append(vs, v)
	}
	for _, c := range cases {
		if c.Coexist != nil || c.Routes != nil || c.Swap != nil || c.Explain != nil || c.Rollout != nil || c.Isolation != nil {
			out = append(out, c)
			continue
		}
		for _, v := range vs {
			cc := *c
			cc.Name = c.Name + "-neighbour"
			if v == neighbourArbiter {
				cc.Name += "-arbiter"
			}
			arbiter[cc.Name] = v == neighbourArbiter
			vals[cc.Name] = vals[c.Name]
			out = append(out, &cc)
		}
	}
	return out, arbiter, nil
}

// neighbour is the Neighbour of a run of case c on scheduler s, named
// tag: a copy of b.up serving default-scheduler and, with the arbiter,
// the arbiter served by ours (s is ours) or by an operator beside
// upstream that serves the arbiter alone. restore undoes what it set on
// b.ours.
func (b *bench) neighbour(c *workloads.Case, s, tag string, arbiter bool) (nb *harness.Neighbour, restore func(), err error) {
	restore = func() {}
	n := *b.up
	n.SetRun(tag + "-" + s + "-neighbour")
	n.FeatureGates = c.FeatureGatesFlag()
	nb = &harness.Neighbour{Scheduler: &n, Rate: b.o.neighbourRate}
	if !arbiter {
		return nb, restore, nil
	}
	port, err := harness.FreePort()
	if err != nil {
		return nil, restore, err
	}
	args := harness.ArbiterArgs(port, filepath.Join(b.ours.Dir, tag+"-"+s+"-webhook-certs"))
	nb.Arbiter = &harness.BindArbiter{Port: port}
	if s == harness.Upstream {
		a := *b.ours
		a.SetRun(tag + "-" + s + "-arbiter")
		a.FeatureGates = c.FeatureGatesFlag()
		a.ExtraArgs = append(slices.Clone(a.ExtraArgs), args...)
		nb.Arbiter.Process = &a
		return nb, restore, nil
	}
	was := b.ours.ExtraArgs
	b.ours.ExtraArgs = append(slices.Clone(was), args...)
	return nb, func() { b.ours.ExtraArgs = was }, nil
}
