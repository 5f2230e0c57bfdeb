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

// Package review answers SchedulingReviews: questions asked of the
// scheduler (package scheduler) about what its scheduling cycle would
// decide, answered with the scheduler's own algorithm on a snapshot of
// its own. A review is a profile (the serving generation of a
// schedulerName, or a draft built for the review) plus one question: a
// pod, a pod group, the pending pods, a capacity scenario.
//
// It reaches the scheduler through Host, which *scheduler.ReviewHost
// implements (Scheduler.ReviewHost): a reference on a serving generation
// (the review framework of a generation is attached to it and closed with
// it), frameworks built from a profile on a snapshot that reach nothing
// live (ReviewHost.BuildFramework), the cache brought into that snapshot
// (UpdateSnapshot), the algorithm (scheduler.Algorithm: the filter pass
// and scoring the live cycle runs) and the pod-group algorithm through a
// placer of its own (scheduler.RunPodGroupAlgorithm over a
// scheduler.PodGroupPlacer). One copy of the part that must never differ
// from the live cycle: the explanations cannot drift from what the
// scheduler does.
//
// Layout, one question per file:
//   - review.go: the request (Request), the answer (Answer), the errors a
//     caller tells apart, Reviews (New, its options) and Review, which
//     resolves the question, the profile and the cycle once, then asks.
//   - host.go: Host, what the package needs of the scheduler.
//   - snapshots.go: the review snapshots, a pool for the reviews and one
//     for rollouts' shadows, and the review frameworks of a generation,
//     one per snapshot; cycle.go: a review's cycle on the snapshot it
//     holds (pods assumed and taken off again, a bound pod removed and
//     put back); framework.go: the review framework (once per serving
//     generation, or per draft) and its own DefaultPreemption, whose
//     executor records victims and whose client set reaches no API
//     server.
//   - evaluate.go: one pod through the algorithm, every node listed and
//     ranked; preemption.go: DefaultPreemption's dry run, up to the choice
//     of victims.
//   - pod.go: the pod question; podgroup.go: the pod-group question (and
//     how a group is placed all or nothing); whatif.go: the pending pods,
//     placed in queue order through place, which scenarios use too.
//   - scenario.go: the capacity scenario, with its plan and limits
//     (scenario_plan.go), runs (scenario_run.go), node naming
//     (scenario_nodes.go), shares (scenario_pools.go) and the minimize
//     search (scenario_minimize.go).
//   - shadow.go: a rollout's shadow judge (scheduler.ShadowJudge): a pod
//     the serving generation placed, judged with the candidate as a pod
//     is explained; a pod group's members judged together, all or
//     nothing, as the pod-group cycle places them.
//   - metrics.go: the review snapshots made, the scenario runs timed.
//
// A review takes a reference on the serving generation as a cycle does,
// takes a review snapshot nobody else holds (snapshots.go: a pool whose
// lock is held only to take one or give it back, with as many as reviews
// were answered at once), brings it up to date with the cache, and evaluates with the
// generation's review framework on it: its Filter and Score passes run on
// one goroutine, so a review takes at most one core from the cycle's
// parallel passes. Its CPU carries the pprof label work=review. Make one
// Reviews per scheduler: it owns the snapshots, and the frameworks
// attached to a generation are built on them. Rollouts' shadows judge on
// a snapshot of their own, so no review, however long, and no number of
// them keeps a shadow waiting. A scenario holds its snapshot only while
// it plans (its runs have snapshots of their own), so a long minimize
// search keeps its snapshot from no other review. A review's context
// bounds it: past its deadline it stops between pods and returns what it
// had computed (a scenario's minimize trials) with the error.
//
// Explaining a pod, Filter runs on every node (the nodes the live cycle
// would reach are marked), every feasible node is scored and ranked, and
// only the first Request.ScoredNodes have their per-plugin scores listed.
// Placing pods (what-if and scenarios, through place) searches the nodes
// as the live cycle does: from the live start index, until
// NumFeasibleNodesToFind nodes fit, the next pod starting after the nodes
// the last one processed; below 100 nodes that is every node, above it
// each pod goes to the best of the nodes the live cycle would have looked
// at. A pending pod group is placed all or nothing when its first member
// comes up, as the pod-group cycle places it; a group the queue holds
// back waits.
//
// A review of a pod group runs the pod-group cycle's own algorithm with a
// placer that assumes members on the review's snapshot only and runs no
// Reserve; workload-aware preemption runs in the review's
// DefaultPreemption, whose executor records its victims instead of
// evicting them.
//
// A scenario reads the review snapshot's nodes and pods, never writes
// them, and builds per run a snapshot of its own (the nodes kept, those
// added, their pods and PodGroups) and a framework of the profile on it.
// Its counts are checked against the limits (ScenarioLimits,
// WithScenarioLimits) before anything is expanded. A minimize search
// bisects the count and answers only a count it ran, with the count below
// it run too. The scheduler's review_bench_test.go times a review, a
// cycle beside reviews, a drain scenario and a minimize search.
//
// It must never change the live cache, the queue or any object (no
// Reserve, Permit or Bind, no eviction, no nomination written, no event
// recorded), and never block a scheduling cycle: it holds the cache's
// lock only while UpdateSnapshot copies the nodes that changed since the
// last review, and never across a framework build.
package review
