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
	"context"
	"fmt"
	"slices"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

// runRoutes makes the runs of a routes case on ours: without routes, with
// the case's routes in force and with its most, each by the routes program
// and by the compiled CEL, each run on a control plane of its own, who
// goes first alternating, repeat times. A run that fails is logged and
// added to b.failures.
func (b *bench) runRoutes(ctx context.Context, c *workloads.Case) error {
	count, err := c.Routes.Count.Value(b.vals[c.Name])
	if err != nil {
		return err
	}
	counts := []int{0, count}
	if c.Routes.Most != nil {
		most, err := c.Routes.Most.Value(b.vals[c.Name])
		if err != nil {
			return err
		}
		counts = append(counts, most)
	}
	type pair struct {
		routes  int
		program harness.RoutesProgram
	}
	var runs []pair
	for _, n := range counts {
		runs = append(runs, pair{n, harness.CompiledProgram}, pair{n, harness.TableProgram})
	}
	for i := range max(1, b.o.repeat) {
		order := slices.Clone(runs)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, p := range order {
			tag := fmt.Sprintf("%s-%d-routes-%s-%d", c.Name, p.routes, p.program, i+1)
			err := b.ownRun(ctx, tag, func() error {
				b.ours.SetRun(tag)
				b.ours.FeatureGates = c.FeatureGatesFlag()
				run, err := b.runner.RunRoutes(ctx, c, b.vals[c.Name], b.ours, b.o.schedulerName, p.routes, p.program, i+1)
				b.rep.Routes = append(b.rep.Routes, run)
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}
