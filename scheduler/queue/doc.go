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
// It must never hold a pod whose schedulerName no profile serves: Add ignores
// such pods and RemoveProfile drops every pod of the removed profile.
package queue
