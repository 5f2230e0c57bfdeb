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

// Package scheduler is the in-process scheduler: it owns the scheduling
// queue, the wiring of the upstream cache, the scheduling and binding
// cycles, one scheduling loop per profile, the live set of profiles that
// can be applied, replaced and removed while it runs, and their
// progressive rollouts.
//
// Layout, one concept per file. The core and the contract:
//   - core.go: the Scheduler, the core the rest hangs on (its parts, its
//     goroutines, its lock order); scheduler.go its lifecycle (New, Start,
//     shutdown) and what it tells of its loops.
//   - profileset.go: the contract controllers use (ProfileSet), short,
//     saying what happens when things fail: the shape a new contract
//     copies; options.go its options; defaultprofile.go upstream's default
//     profile, defaulted as kube-scheduler defaults it.
//   - profiles.go: Apply, Validate and Remove (the profile set);
//     liveprofile.go a built generation and its lifetime (serving,
//     retired, closed), and Generation, a reference on one;
//     generations.go the generations serving now, published copy-on-write
//     (the one place a map is copied).
//   - build.go: the builder, which builds every framework (upstream
//     frameworkruntime.NewFramework over the registry of registry.go: the
//     in-tree plugins plus the out-of-tree ones, each factory guarded so
//     that a panic fails one build instead of the process), of a profile,
//     of a bind check and of a review, and the metrics of swaps;
//     informers.go the view of the shared
//     informer factory each framework gets, so its plugins' handlers go
//     away with it; watch.go the queue's handlers for the resources the
//     plugins react to.
//   - eventhandlers.go: feeds the upstream cache and the queue (package
//     queue) from the pod, node and pod-group informers.
//
// The loops and the cycles:
//   - loops.go: the loop set, one loop per served schedulerName (or one for
//     all with profile loops off), made, started and stopped with their
//     profiles, and a loop's run: pop, then schedule a pod or a pod group;
//     loop.go one loop: what it shares (given explicitly) and its
//     snapshot; loop_stats.go what a loop tells
//     of itself (LoopState, its metrics); assume.go the assume ledger that
//     settles two loops taking the same room (see below).
//   - algorithm.go: the algorithm that picks a node (PreFilter, Filter, the
//     extenders' filter), as upstream's, touching no queue, binding or
//     failure handling; algorithm_score.go its scoring; algorithm_beside.go
//     the same algorithm given to reviews; algorithm_podgroup.go the
//     pod-group algorithm.
//   - schedule_one.go and binding.go: the scheduling cycle of a loop (its
//     assume included) and
//     the binder's binding cycle around the algorithm, following upstream's
//     schedule_one.go (the binder also records a failed cycle and contains
//     a candidate's panics in its binding cycle); schedule_one_podgroup.go
//     upstream's pod-group cycle (GenericWorkload) for leaf PodGroups.
//   - bindcheck.go: checks a pod against its node as the cache sees it
//     just before the bind (pods bound by any scheduler since the cycle's
//     snapshot included), has a refused pod scheduled again, and learns
//     how long binds take; arbiter.go the bind arbiter's decision (the same
//     fit-judging plugins on the cache's node plus the binds it admitted
//     that the cache has not seen, arbiter_holds.go; served as a webhook on
//     pods/binding by controllers); overcommit.go reports nodes whose bound pods request
//     more than they have, whoever bound them.
//
// Rollouts:
//   - rollout.go: the rollout's state machine (StartRollout, SetRolloutStep,
//     Promote, Rollback, Window), each step under applyMu.
//   - rollout_canary.go: who a canary step covers (a stable hash of the
//     pod's UID, or its PodGroup's); rollout_shadow.go the shadow of a
//     shadow step; rollout_stats.go each generation's counts over a window
//     and their metrics; rollout_panics.go the containment of a
//     candidate's panics.
//
// Observability and reviews:
//   - metrics.go: the one place this package's metrics are registered;
//     each file declares its own beside the code that updates them, with
//     the names they share in metrics_base.go; extender_metrics.go counts
//     and times every call to an HTTP extender, per profile, extender and
//     verb.
//   - host.go: ReviewHost, what work beside the live cycle is given.
//
// Words: where one cycle judges one pod on one node the word is
// upstream's, fit (the fit-judging Filter plugins, a pod that fits). The
// word room is kept for one thing upstream's single loop never needs: a
// node's capacity not yet claimed while several placers race for it (two
// loops at assume, another scheduler before a bind, the arbiter's holds,
// a node's last room for a pod like it).
//
// Per-profile loops: every served schedulerName has a loop of its own
// that pops only its profile's pods (upstream's order within a profile)
// and runs their cycles on a snapshot of its own; the cache, the queue
// and the binding goroutines are shared. A slow extender of one profile
// holds up its own pods only. Two loops that pick the same room are
// settled at assume, under the assume ledger's lock: the pod is
// checked again against the cache's copy of its node with its profile's
// fit-judging Filter plugins, and the loser is scheduled again at once,
// unpunished. A pod nominated to a node after a preemption counts there,
// so the room a preemption freed goes to its preemptor.
//
// Reviews are questions asked of the scheduler, answered by package
// review (scheduler/review), which reaches the scheduler through the
// small surface it declares (review.Host, served by ReviewHost): a
// reference on a serving generation (AcquireGeneration; the review
// framework of a generation is attached to it and closed with it),
// frameworks built from a profile on a snapshot of the review's own that
// reach nothing live (BuildFramework: their own waiting-pods map, no event
// recorder, no pod activator, the queue only read, as the nominator;
// SyncInformers), the cache brought into that snapshot (UpdateSnapshot,
// holding the cache's lock only while the nodes that changed are copied),
// the algorithm on it (Algorithm: FilterPass, Prioritize,
// NumFeasibleNodesToFind) and the pod-group algorithm through a placer of
// the review's own (RunPodGroupAlgorithm, RunPodGroupPostFilter over a
// PodGroupPlacer). The live cycle and the reviews run the same algorithm
// code: an explanation cannot drift from what the scheduler does. Nothing
// of this surface changes the cache, the queue or any object.
//
// Extenders are upstream's HTTP extenders, per profile, and misbehave as
// upstream's do: a filter that times out, answers a status other than 200,
// an answer that does not decode or names a node it was not asked about
// fails the cycle (the pod's PodScheduled condition and event carry
// upstream's error text) unless the extender is ignorable, in which case it
// is skipped; a failed prioritize only costs that extender's score.
//
// Hot swap: a cycle takes a reference on the framework serving the pod's
// schedulerName once, at its start, and the binding cycle keeps it; a
// replaced or removed framework is closed when its last reference goes. The
// cache and the queue are shared by all frameworks and survive every swap.
// A pod group's cycle takes one reference for the whole group, and each
// member's binding cycle one more, so the group is placed, permitted and
// bound by one generation: a swap never splits a group. Members that
// arrive during the cycle are scheduled later, by the generation serving
// then, in a cycle of their own (as upstream schedules late members).
//
// Progressive rollout: a profile being rolled out is served by two
// generations under one schedulerName, the serving one and a candidate.
// In a shadow step the candidate decides nothing and judges, off the
// loop, the pods the serving generation placed; in a canary step it
// schedules the pods its percent covers, a gang never straddling
// generations. Both generations' outcomes are counted over a window that
// the controllers' analysis reads (Window). Promote makes the candidate
// the serving generation, Rollback retires it; the cache, the queue and
// every queued pod are kept either way.
//
// Admission never waits for a swap: Validate (the webhook's dry-run) takes
// only the builder's lock, never the one Apply holds while it waits for
// informers to sync. The lock order is written on Scheduler.
//
// Pods of a pod group are checked before binding one by one, in each
// member's binding cycle, as any pod: a refused member fails as a failed
// bind does (it is scheduled again; members already bound stay).
//
// A rollout's candidate runs plugins that have not served yet: a panic of
// one of them, anywhere (its scheduling cycle and parallel Filter and
// Score workers, its binding cycle from WaitOnPermit to PostBind, its
// pod-group cycle, the shadow's judgement), is the candidate's error,
// counted in its analysis, and never the end of the process
// (rollout_panics.go): a pod it had assumed is forgotten and its Reserve
// undone, then it is queued again with the error; a group's members are
// undone all together. The serving generation's panics crash the
// process, as upstream kube-scheduler's do.
//
// It must never re-implement an upstream plugin, never bind a pod onto a
// node that the cache, at bind time, shows too full for it, never touch a
// pod whose schedulerName no live profile serves, never let a profile swap
// lose a pod or bind one twice, and never let a review change the cache,
// the queue or any API object.
package scheduler
