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

// Package operator assembles the operator: a controller-runtime manager
// holding the in-process scheduler (a leader-only runnable), the
// SchedulerProfile, ExtenderConfig, SchedulingReview and ProfileRoute
// controllers, the admission webhooks, the bind arbiter, metrics and
// probes. The public package app (whose command main.go runs) and the
// end-to-end tests build the operator through New, so both run the same
// thing. It lives under app/, above controllers/ and scheduler/, which it
// wires together: the leaf packages of internal/ import none of them.
//
// Layout:
//   - operator.go: Scheme, Options (Defaults), New and Operator: the
//     manager, its cache, the scheduler and the controllers.
//   - arbiter.go: the bind arbiter on the manager's webhook server, judged
//     by the leader only, and the label that points the arbiter's Service
//     at the leader's pod.
//   - rbac.go: the kubebuilder RBAC markers of the whole operator, from
//     which config/rbac/role.yaml is generated.
//
// The manager caches only the operator's own kinds (the group
// scheduling.profilescheduler.io) and the Secrets of the extender-secrets
// namespace. Pods, Nodes and whatever the plugins read come
// from the scheduler's informers alone, which, for a profile of the default
// plugins, watch exactly what upstream's scheduler watches: every resource
// is watched once (TestOperatorWatchesEachResourceOnce).
//
// It never imports local mode (app/local) nor anything under
// internal/test/.
package operator
