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

// Command bench runs the scheduler benchmark: upstream kube-scheduler and
// profile-scheduler, one after the other, each run on a local control plane
// started for it, the same nodes and pods and the same profile, and writes a
// Markdown report, its JSON and a chart of the profile-swap storm into
// bench/results/<timestamp>/. The explain case measures SchedulingReviews,
// which only profile-scheduler has: it runs on profile-scheduler alone.
// `make bench` builds what it needs and runs it; `bench -h` lists the knobs
// (scale, cases, parameters, client QPS) and -trace, what an investigation
// records beside the figures (CPU and heap profiles, GC traces).
//
// main.go reads the flags, cases.go selects the cases and their
// parameters, run.go makes the runs (runOne dispatches each kind of case to
// its harness method) and writes the report after each.
package main
