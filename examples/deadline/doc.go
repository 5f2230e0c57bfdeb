// Package deadline is an example out-of-tree plugin for profile-scheduler
// written in upstream's convention, as kube-scheduler's in-tree plugins and
// kubernetes-sigs/scheduler-plugins are written: its args have a versioned
// type (apis/config/v1: JSON tags, SetDefaults_DeadlineArgs, conversions),
// an internal type the plugin receives (apis/config) and a validator of the
// internal type (apis/config/validation), all registered in upstream's
// scheduler configuration scheme by AddToScheme.
//
// Deadline gives pods a deadline (an annotation, or a default counted from
// their creation) and uses it at two extension points:
//
//   - QueueSort: within one priority, the pod whose deadline comes first is
//     scheduled first (earliest deadline first), then the older in the queue;
//   - Score: a pod due soon (urgent) prefers nodes carrying the fast-node
//     label, and any other pod prefers the other nodes, keeping the fast
//     ones free for urgent work.
//
// cmd/deadline-scheduler builds the operator with it; the README walks
// through it.
package deadline
