// Package scheduler is the in-process scheduler: it owns the scheduling
// queue, the wiring of the upstream cache, the scheduling and binding cycles,
// and the live set of profiles that can be applied, replaced and removed
// while it runs.
//
// Layout: profileset.go is the contract controllers use; profiles.go builds
// frameworks (upstream frameworkruntime.NewFramework over the registry of
// registry.go: the in-tree plugins plus the out-of-tree ones, each factory
// guarded so that a panic fails one build instead of the process) and swaps
// them; informers.go is the view
// of the shared informer factory each framework gets, so its plugins'
// handlers go away with it; eventhandlers.go feeds the upstream cache and
// the queue (package queue) from informers; algorithm.go is the algorithm
// that picks a node (PreFilter, Filter, the extenders' filter, Score), as
// upstream's algorithm.go, touching no queue, binding or failure handling,
// and algorithm_podgroup.go the pod-group algorithm; schedule_one.go and
// binding.go are the scheduling and binding cycles around it, following
// upstream's schedule_one.go; schedule_one_podgroup.go is upstream's
// pod-group cycle (GenericWorkload) for leaf PodGroups; metrics.go holds the profile metrics this package
// produces (profile_scheduler_profile_swaps_total, _profile_swap_duration_seconds,
// and _active_profiles, read from the live profile map when scraped) and
// exposes upstream's scheduler_* metrics on the controller-runtime registry;
// extender_metrics.go counts and times every call to an HTTP extender, per
// profile, extender and verb; bindcheck.go checks a pod against its node
// as the cache sees it just before the bind (pods bound by any scheduler
// since the cycle's snapshot included) and has a refused pod scheduled
// again; overcommit.go reports nodes whose bound pods request more than
// they have, whoever bound them; review*.go answer scheduling reviews
// (Reviewer): review.go resolves a review's question, its profile and its
// cycle once, then asks; each question lives in a file of its own and owns
// how it is answered (review_pod.go, review_podgroup.go, review_whatif.go,
// review_scenario.go with its plan, runs, node naming, pools and minimize
// search in review_scenario_*.go).
//
// Reviews: a review takes a reference on the serving profile as a cycle
// does (or takes a draft profile), brings the snapshot reviews share (one
// at a time) up to date with the cache, and evaluates with a framework
// built from the same profile on that snapshot (its own waiting-pods map,
// no event recorder, no pod activator; the queue is only read, as the
// nominator). That framework is built once per live profile generation,
// at its first review, shared by every later review of the generation and
// closed with it (when its last reference goes after a swap or removal);
// a draft review builds its own and closes it at its end. It runs the
// algorithm's own code on its snapshot (the filter pass of algorithm.go,
// searching every node when it explains a pod, prioritizeNodes, the
// FailedScheduling message): one copy of the part that must never differ
// from the live cycle, and DefaultPreemption's
// evaluator up to the choice of victims, never Reserve, Permit, Bind or an
// eviction. It never blocks the scheduling loop: it holds the cache's lock
// only while copying the nodes that changed since the last review, as a
// cycle's UpdateSnapshot does, and its framework runs its Filter and Score
// passes on one goroutine (reviewParallelism), so a review takes at most
// one core from the cycle's parallel passes. Only the first
// ReviewRequest.ScoredNodes feasible nodes get their per-plugin scores
// listed (every node is scored and ranked). A review's CPU carries the
// pprof label work=review; review_bench_test.go times a review and a cycle
// beside reviews, a drain scenario and a minimize search.
//
// Scenarios (review_scenario.go): a review with a Scenario reads the
// review snapshot's nodes and pods, never writes them, and builds per run
// a snapshot of its own (the nodes kept, those added, their pods) and a
// framework of the profile on it; what-if and scenarios place their
// pending work through one function (reviewCycle.place, review_whatif.go).
// Placing searches the nodes as the live cycle does, not every node: from
// the live start index, until numFeasibleNodesToFind nodes fit, the next
// pod starting after the nodes the last one processed; below 100 nodes
// that is every node, above it each pod goes to the best of the nodes the
// live cycle would have looked at (and a drain of 10% of 5,000 nodes
// takes seconds, not tens of seconds).
// The counts are checked against the operator's limits (ScenarioLimits)
// before anything is expanded. A minimize search bisects the count and
// answers only a count it ran, with the count below it run too.
//
// A review of a pod group (review_podgroup.go) runs the pod-group cycle's
// own algorithm (runPodGroupAlgorithm, runPodGroupPostFilter, over a
// podGroupPlacer) with a placer that assumes members on the review's
// snapshot only and runs no Reserve; workload-aware preemption runs in
// the review's DefaultPreemption, whose executor records its victims
// instead of evicting them and whose client set reaches no API server.
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
// It must never re-implement an upstream plugin, never bind a pod onto a
// node that the cache, at bind time, shows too full for it, never touch a pod whose
// schedulerName no live profile serves, never let a profile swap lose a
// pod or bind one twice, and never let a review change the cache, the
// queue or any API object.
package scheduler
