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

// Package harness runs the benchmark's workloads against real scheduler
// processes on a local control plane: it creates the nodes and pods a
// case describes, watches every pod from creation to bind, samples the
// scheduler process's CPU time and peak memory from /proc, and drives the
// profile-swap storm (a SchedulerProfile update for profile-scheduler, a
// restart with a new configuration file for kube-scheduler, bare or as a
// lease hand-over to a standby with leader election on) and the explain
// case (SchedulingReviews and capacity scenarios timed from create to
// Complete, and throughput runs with reviews, then with a capacity scenario,
// beside them, the operator's CPU and lock contention split between the
// scenario and the rest from its profiles; profile-scheduler only). Cases with
// pod groups get PodGroups created before their members, the case's
// feature gates on both schedulers, and a count of the groups each run left
// partially bound or pending, read from the API. The isolation case
// starts one process serving several profiles, one of which calls an HTTP
// extender the harness serves: it passes every node it is given, late.
//
// Each scheduler runs as its own process, one at a time, on fresh objects
// (a new namespace, nodes deleted and recreated with the same names; the
// bench command also starts a new control plane for every run). The
// harness never schedules anything itself (its extender filters out no
// node) and never leaves a process
// running: every process it starts is stopped before a run returns.
//
// Layout, one concern per file:
//
//	runner.go           Runner (a case's run on one control plane), Mode, a run's namespace and clean-up
//	objects.go          nodes and pods rendered from a case and created, the probe pod
//	churn.go            a churn step: a node (and pod, service) recreated on a tick
//	run.go              Run and RunCase: the steps of a (non-swap) case
//	measure.go          the measured step: timing, CPU, sockets, overcommit, latency CSV
//	swap.go             RunSwap: the profile-swap storm
//	explain.go          RunExplain: SchedulingReview latency and the throughput pair
//	scenarios.go        capacity scenarios timed one at a time (drain, minimize)
//	scenariopairs.go    the scenario pairs: throughput with a drain scenario beside, profiled
//	rollout.go          RunRollout: shadow pairs, a bad change canary vs at once, a good change to promotion
//	isolation.go        RunIsolation: a busy profile beside one whose extender is slow, several profiles at once
//	slowextender.go     the isolation case's HTTP extender, served by the harness, answering after a delay
//	pprof.go            the operator's pprof profiles: fetched, CPU split by label, locks by holder
//	reviewwatch.go      the watch that times SchedulingReviews
//	gang.go             PodGroups of a step, and what each run left of them
//	trace.go            -trace: CPU profiles (Linux perf), heap profiles, GC traces
//	schedulers.go       the Scheduler interface, Settings both schedulers get, the profiles and extenders one process serves
//	kubescheduler.go    upstream kube-scheduler from a configuration file
//	profilescheduler.go profile-scheduler serving the profile as a SchedulerProfile
//	profilewatcher.go   when each generation of a SchedulerProfile went live
//	process.go          a scheduler process: start, CPU, RSS, sockets from /proc
//	controlplane.go     the control plane of a run, and its processes' CPU
//	recorder.go         the pod watch: creation, bind and deletion times per step
//
// A new case gets a Run* method of its own in a file of its own, and a
// branch in the bench command's runOne (test/perf/cmd/bench/run.go).
package harness
