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

// Package queue holds the pods waiting to be scheduled, per profile.
//
// The queue knows that profiles come and go: each served schedulerName has
// its own active heap ordered by that profile's QueueSort plugin, its own
// PreEnqueue plugins and its own queueing hints, and all of them can be
// replaced while pods wait. Pods of all profiles share one back-off heap and
// one unschedulable set (which also holds gated pods). Pop takes, among the
// heads of the profiles' heaps, the one with the highest priority, then the
// oldest, then the lowest schedulerName; within a profile its QueueSort
// decides. Cluster events move unschedulable pods only when a queueing hint
// of a plugin that rejected them, taken from the profile serving them now,
// says so; a periodic flush retries pods left too long. The queue also
// implements the framework's PodNominator and PodActivator.
//
// Layout, one mechanism per file, as upstream's backend/queue:
//   - queue.go: the Queue, its lock and options; Add, Update and Delete.
//   - pop.go: Pop, which picks across the profiles' active heaps, and
//     PopFor, one profile's loop's.
//   - profiles.go: the per-profile part (SetProfile, RemoveProfile) and the
//     queueing hints built from a framework's EnqueueExtensions.
//   - inflight.go: pods between Pop and the end of their cycle, and the
//     cluster events recorded meanwhile.
//   - requeue.go: the ways back (AddUnschedulableIfNotPresent,
//     MoveAllToActiveOrBackoffQueue, Activate, the unschedulable flush);
//     queueing hints decide where a pod goes, and PreEnqueue plugins admit
//     it to the active heap or gate it.
//   - backoff.go: back-off timing, the back-off heaps and the loop that
//     moves pods out when their back-off ends.
//   - nominator.go: nominated pods per node (fwk.PodNominator).
//   - podgroups.go: with the GenericWorkload gate on, Pop returns a pod of
//     a PodGroup together with its group's queued members.
//
// Locking: one mutex, Queue.lock, guards every sub-queue; the nominator has
// its own lock, always taken after Queue.lock. A method whose name ends in
// Locked expects the caller to hold Queue.lock. Methods that log or run
// plugins take a context.Context, whose logger they use and which
// PreEnqueue plugins receive; the framework's interfaces (Activate,
// AddNominatedPod, …) keep their logger parameters.
//
// It must never hold a pod whose schedulerName no profile serves: Add ignores
// such pods and RemoveProfile drops every pod of the removed profile. It
// never calls the API server.
//
// This package is the shape a new scheduler/ package copies: one mechanism
// per file, a doc.go with the layout, the locking and what the package
// must never do.
package queue
