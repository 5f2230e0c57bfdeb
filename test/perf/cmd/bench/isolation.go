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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"time"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

// runIsolation makes the runs of an isolation case, repeat times: the
// extender part in each variant, without A's pods and with them, in each
// mode, then the profiles part (throughput runs only), each on every
// scheduler, who goes first alternating, each run on a control plane of
// its own. With the case's oneLoop set, ours also runs with
// --profile-loops=false (harness.OursOneLoop) where the operator has that
// flag; the report says why when it does not run. A run that fails is
// logged and added to b.failures; one that left pods unbound is a result.
func (b *bench) runIsolation(ctx context.Context, c *workloads.Case, scheds []string, modes []harness.Mode) error {
	v, err := c.Isolation.Values(b.vals[c.Name])
	if err != nil {
		return err
	}
	who := slices.Clone(scheds)
	if v.OneLoop {
		switch {
		case !slices.Contains(scheds, harness.Ours):
			b.rep.IsolationNotes = append(b.rep.IsolationNotes, fmt.Sprintf("%s: not run, %s is not among the schedulers", harness.OursOneLoop, harness.Ours))
		case hasFlag(ctx, b.ours.Bin, "--profile-loops"):
			who = append(who, harness.OursOneLoop)
		default:
			b.rep.IsolationNotes = append(b.rep.IsolationNotes, fmt.Sprintf("%s: not run, `%s -h` lists no --profile-loops flag", harness.OursOneLoop, b.ours.Bin))
		}
		if n := len(b.rep.IsolationNotes); n > 0 {
			b.logger.Printf("%s: %s", c.Name, b.rep.IsolationNotes[n-1])
		}
	}
	var setups []harness.IsolationSetup
	for _, variant := range harness.IsolationVariants {
		for _, with := range []bool{false, true} {
			for _, mode := range modes {
				setups = append(setups, harness.IsolationSetup{Part: harness.PartExtender, Variant: variant, WithSlow: with, Mode: mode})
			}
		}
	}
	if slices.Contains(modes, harness.ModeThroughput) {
		setups = append(setups, harness.IsolationSetup{Part: harness.PartProfiles, Mode: harness.ModeThroughput})
	}
	for i := range max(1, b.o.repeat) {
		for k, setup := range setups {
			order := slices.Clone(who)
			if (i+k)%2 == 1 {
				slices.Reverse(order)
			}
			for _, s := range order {
				base := fmt.Sprintf("%s-%s-%d", c.Name, setup, i+1)
				err := b.ownRun(ctx, base+"-"+s, func() error {
					run, err := b.isolationRun(ctx, c, s, setup, i+1, base)
					b.rep.Isolations = append(b.rep.Isolations, run)
					if inc := (*harness.IncompleteError)(nil); errors.As(err, &inc) {
						b.logger.Printf("%s-%s: %v", base, s, err)
						return nil
					}
					return err
				})
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// isolationRun makes one run of the isolation case on who: a copy of b.up
// or b.ours (with --profile-loops=false for harness.OursOneLoop), its
// files named after base.
func (b *bench) isolationRun(ctx context.Context, c *workloads.Case, who string, setup harness.IsolationSetup, repeat int, base string) (*harness.IsolationRun, error) {
	gates := c.FeatureGatesFlag()
	var sched harness.Scheduler
	switch who {
	case harness.Upstream:
		s := *b.up
		s.SetRun(base)
		s.FeatureGates = gates
		sched = &s
	default:
		s := *b.ours
		s.SetRun(base)
		s.FeatureGates = gates
		if who == harness.OursOneLoop {
			s.SetRun(base + "-one-loop")
			s.ExtraArgs = append(slices.Clone(s.ExtraArgs), harness.ProfileLoopsOff)
		}
		sched = &s
	}
	return b.runner.RunIsolation(ctx, c, b.vals[c.Name], sched, who, setup, repeat, b.o.schedulerName)
}

// hasFlag reports whether bin lists flag in its -h output.
func hasFlag(ctx context.Context, bin, flag string) bool {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// -h exits non-zero with some flag libraries: the output is what counts.
	out, _ := exec.CommandContext(ctx, bin, "-h").CombinedOutput()
	return bytes.Contains(out, []byte(flag))
}
