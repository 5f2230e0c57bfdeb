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

// Package lint runs the operator's admission path on manifests, without a
// cluster: what `kubectl apply` of them would be refused, and what the
// operator would then refuse in status, for SchedulerProfiles,
// ExtenderConfigs and ProfileRoutes. `kubectl sp lint -f` is this package
// with upstream's in-tree plugins; a binary built with package app and its
// own plugins has the same `lint` command with its registry
// (Options.OutOfTreeRegistry), so that its plugins lint as they run.
//
// Each object goes through, in order, and stops at the first refusal:
//
//   - the CRD's schema, as kube-apiserver applies it (schema.go): strict
//     decoding (a duplicated field), unknown fields (pruned by the server,
//     refused by kubectl's strict field validation), the schema's
//     defaults, its validation and its CEL rules (x-kubernetes-validations)
//     from config/crd/bases, the CRDs the operator ships;
//   - the operator's own checks (controllers.Offline): the schedulerName
//     claim, the ExtenderConfigs a profile names, the conversion to
//     upstream's KubeSchedulerProfile with upstream's defaulting and
//     validation, the plugins' names and args, and a dry-run build of the
//     framework with the scheduler's plugin registry; for ProfileRoutes,
//     the routing table of internal/routing (a selector that does not
//     parse, an equal-priority overlap).
//
// References are resolved from the manifests given, and with
// Options.Cluster from a cluster too: an ExtenderConfig a profile names
// that is in neither, or a Secret, is said so (a note, or a refusal when
// the cluster was read), never guessed. Documents of other kinds are
// skipped with a note; a v1 List is checked item by item.
//
// Layout: lint.go (Options, Paths, Documents), findings.go (Finding,
// Severity, Result and how they print), files.go (reading
// files and directories into documents), schema.go (the CRDs' validation),
// reader.go (the objects given, as a client.Reader for controllers.Offline).
//
// It never writes to a cluster, and reads one only through Options.Cluster.
package lint
