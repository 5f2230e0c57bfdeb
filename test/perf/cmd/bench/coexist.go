package main

import (
	"context"
	"slices"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

// coexistRun runs case c in one setup: kube-scheduler (a copy of up, for
// default-scheduler) beside a second kube-scheduler or ours, each logging
// under tag.
func coexistRun(ctx context.Context, runner *harness.Runner, c *workloads.Case, vals map[string]int, setup harness.CoexistSetup, repeat int, tag string,
	up *harness.KubeScheduler, ours *harness.ProfileScheduler, schedulerName string) (*harness.CoexistRun, error) {
	first := *up
	first.SetRun(tag + "-default-scheduler")
	var second harness.Scheduler
	switch setup {
	case harness.SetupTwoUpstream:
		s := *up
		s.SetRun(tag)
		second = &s
	default:
		s := *ours
		s.SetRun(tag)
		if setup == harness.SetupNoCheck {
			s.ExtraArgs = append(slices.Clone(s.ExtraArgs), "--bind-check=false")
		}
		second = &s
	}
	return runner.RunCoexist(ctx, c, vals, setup, repeat, &first, second, schedulerName)
}
