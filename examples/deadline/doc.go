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
