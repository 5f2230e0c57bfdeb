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
// queue, the wiring of the upstream cache, the scheduling and binding cycles,
// and the live set of profiles that can be applied, replaced and removed
// while it runs.
//
// Layout: profileset.go is the contract controllers use, short, saying
// what happens when things fail: the shape a new contract copies; profiles.go builds
// frameworks (upstream frameworkruntime.NewFramework over the registry of
// registry.go: the in-tree plugins plus the out-of-tree ones, each factory
// guarded so that a panic fails one build instead of the process) and swaps
// them; informers.go is the view of the shared informer factory each
// framework gets, so its plugins' handlers go away with it;
// eventhandlers.go feeds the upstream cache and the queue (package queue)
// from informers; algorithm.go is the algorithm that picks a node
// (PreFilter, Filter, the extenders' filter, Score), as upstream's
// algorithm.go, touching no queue, binding or failure handling, and
// algorithm_podgroup.go the pod-group algorithm; schedule_one.go and
// binding.go are the scheduling and binding cycles around it, following
// upstream's schedule_one.go; schedule_one_podgroup.go is upstream's
// pod-group cycle (GenericWorkload) for leaf PodGroups; metrics.go holds
// the profile metrics this package produces
// (profile_scheduler_profile_swaps_total, _profile_swap_duration_seconds,
// and _active_profiles, read from the live profile map when scraped) and
// exposes upstream's scheduler_* metrics on the controller-runtime
// registry; extender_metrics.go counts and times every call to an HTTP
// extender, per profile, extender and verb; bindcheck.go checks a pod
// against its node as the cache sees it just before the bind (pods bound
// by any scheduler since the cycle's snapshot included) and has a refused
// pod scheduled again; arbiter.go is the bind arbiter's decision (the
// same room-judging plugins on the cache's node plus the binds it admitted
// that the cache has not seen; served as a webhook on pods/binding by
// controllers); overcommit.go reports nodes whose bound pods
// request more than they have, whoever bound them; host.go is what work
// beside the live cycle is given.
//
// Reviews are questions asked of the scheduler, answered by package
// review (scheduler/review), which reaches the scheduler through the
// small surface it declares (review.Host): a reference on a serving
// generation (AcquireGeneration; the review framework of a generation is
// attached to it and closed with it), frameworks built from a profile on
// a snapshot of the review's own that reach nothing live (BuildFramework:
// their own waiting-pods map, no event recorder, no pod activator, the
// queue only read, as the nominator; SyncInformers), the cache brought
// into that snapshot (UpdateSnapshot, holding the cache's lock only while
// the nodes that changed are copied), the algorithm on it (Algorithm:
// FilterPass, Prioritize, NumFeasibleNodesToFind) and the pod-group
// algorithm through a placer of the review's own (RunPodGroupAlgorithm,
// RunPodGroupPostFilter over a PodGroupPlacer). The live cycle and the
// reviews run the same algorithm code: an explanation cannot drift from
// what the scheduler does. Nothing of this surface changes the cache, the
// queue or any object.
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
// Admission never waits for a swap: Validate (the webhook's dry-run) takes
// only the lock that serializes framework builds, never the one Apply holds
// while it waits for informers to sync. The lock order is written on
// Scheduler.
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
// node that the cache, at bind time, shows too full for it, never touch a pod whose
// schedulerName no live profile serves, never let a profile swap lose a
// pod or bind one twice, and never let a review change the cache, the
// queue or any API object.
package scheduler
