// Package scheduler is the in-process scheduler: it owns the scheduling
// queue, the wiring of the upstream cache, the scheduling and binding cycles,
// and the live set of profiles that can be applied, replaced and removed
// while it runs.
//
// Layout: profileset.go is the contract controllers use; profiles.go builds
// frameworks (upstream frameworkruntime.NewFramework over the in-tree
// registry plus an out-of-tree one) and swaps them; informers.go is the view
// of the shared informer factory each framework gets, so its plugins'
// handlers go away with it; eventhandlers.go feeds the upstream cache and
// the queue (package queue) from informers; schedule_one.go and binding.go
// are the scheduling and binding cycles, following upstream's
// schedule_one.go; metrics.go exposes upstream's scheduler_* metrics on the
// controller-runtime registry; extender_metrics.go counts and times every
// call to an HTTP extender, per profile, extender and verb.
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
//
// It must never re-implement an upstream plugin, never touch a pod whose
// schedulerName no live profile serves, and never let a profile swap lose a
// pod or bind one twice.
package scheduler
