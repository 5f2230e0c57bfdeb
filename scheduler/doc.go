// Package scheduler is the in-process scheduler: it owns the scheduling
// queue, the wiring of the upstream cache, the scheduling and binding cycles,
// and the live set of profiles that can be applied, replaced and removed
// while it runs.
//
// It must never re-implement an upstream plugin, never touch a pod whose
// schedulerName no live profile serves, and never let a profile swap lose a
// pod or bind one twice.
package scheduler
