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
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

// runCoexist makes the runs of a coexist case: both schedulers at once,
// in every setup in turn, repeat times, each run on a control plane of its
// own. A run that fails is logged and added to b.failures.
func (b *bench) runCoexist(ctx context.Context, c *workloads.Case) error {
	setups, err := harness.ParseCoexistSetups(b.o.coexistSetups)
	if err != nil {
		return err
	}
	for i := range max(1, b.o.repeat) {
		for _, setup := range setups {
			tag := fmt.Sprintf("%s-%s-%d", c.Name, setup, i+1)
			err := b.ownRun(ctx, tag, func() error {
				run, err := b.coexistRun(ctx, c, setup, i+1, tag)
				b.rep.Coexists = append(b.rep.Coexists, run)
				return err
			})
			if err != nil {
				return err
			}
		}
		if b.o.stormBinds > 0 {
			tag := fmt.Sprintf("%s-storm-%d", c.Name, i+1)
			err := b.ownRun(ctx, tag, func() error {
				run, err := b.stormRun(ctx, c, i+1, tag)
				b.rep.Storms = append(b.rep.Storms, run)
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// stormRun runs a bind storm on case c's nodes: the harness binding as
// two schedulers at -storm-rate, an operator serving the bind arbiter
// alone, its certificate rotated midway.
func (b *bench) stormRun(ctx context.Context, c *workloads.Case, repeat int, tag string) (*harness.StormRun, error) {
	port, err := harness.FreePort()
	if err != nil {
		return nil, err
	}
	certDir := filepath.Join(b.ours.Dir, tag+"-webhook-certs")
	a := *b.ours
	a.SetRun(tag + "-arbiter")
	a.FeatureGates = c.FeatureGatesFlag()
	a.ExtraArgs = append(slices.Clone(a.ExtraArgs), harness.ArbiterArgs(port, certDir)...)
	a.Pprof, a.Metrics = true, true
	arbiter := &harness.BindArbiter{Port: port, Process: &a}
	return b.runner.RunBindStorm(ctx, c, b.vals[c.Name], arbiter, certDir, repeat, b.o.stormBinds, b.o.stormRate, true)
}

// ownRun makes one run of a case that makes its own runs (coexist,
// routes), named tag, on a control plane of its own: a run that fails is
// logged and added to b.failures; the report is written after it. An
// error returned ends the bench.
func (b *bench) ownRun(ctx context.Context, tag string, run func() error) error {
	if err := ctx.Err(); err != nil {
		return errors.Join(append(b.failures, err, b.write())...)
	}
	if err := b.freshControlPlane(tag); err != nil {
		return err
	}
	if err := run(); err != nil {
		b.logger.Printf("%s: %v", tag, err)
		b.failures = append(b.failures, fmt.Errorf("%s: %w", tag, err))
	}
	return b.write()
}

// coexistRun runs case c in one setup: kube-scheduler (a copy of b.up, for
// default-scheduler) beside a second kube-scheduler or ours, each logging
// under tag.
func (b *bench) coexistRun(ctx context.Context, c *workloads.Case, setup harness.CoexistSetup, repeat int, tag string) (*harness.CoexistRun, error) {
	gates := c.FeatureGatesFlag()
	first := *b.up
	first.SetRun(tag + "-default-scheduler")
	first.FeatureGates = gates
	var arbiter *harness.BindArbiter
	var arbiterArgs []string
	if setup.Arbitrated() {
		port, err := harness.FreePort()
		if err != nil {
			return nil, err
		}
		arbiter = &harness.BindArbiter{Port: port}
		arbiterArgs = harness.ArbiterArgs(port, filepath.Join(b.ours.Dir, tag+"-webhook-certs"))
	}
	var second harness.Scheduler
	switch setup {
	case harness.SetupTwoUpstream, harness.SetupTwoUpstreamWebhook, harness.SetupTwoUpstreamArbiter:
		s := *b.up
		s.SetRun(tag)
		s.FeatureGates = gates
		second = &s
		if arbiter != nil {
			// profile-scheduler beside the two, serving the arbiter alone.
			a := *b.ours
			a.SetRun(tag + "-arbiter")
			a.FeatureGates = gates
			a.ExtraArgs = append(slices.Clone(a.ExtraArgs), arbiterArgs...)
			// Profiled and its metrics served: what the arbiter costs.
			a.Pprof, a.Metrics = true, true
			arbiter.Process = &a
		}
	default:
		s := *b.ours
		s.SetRun(tag)
		s.FeatureGates = gates
		if setup == harness.SetupNoCheck {
			s.ExtraArgs = append(slices.Clone(s.ExtraArgs), "--bind-check=false")
		}
		s.ExtraArgs = append(slices.Clone(s.ExtraArgs), arbiterArgs...)
		if arbiter != nil {
			// Profiled and its metrics served: what the arbiter costs.
			s.Pprof, s.Metrics = true, true
		}
		second = &s
	}
	return b.runner.RunCoexist(ctx, c, b.vals[c.Name], setup, repeat, &first, second, arbiter, b.o.schedulerName)
}
