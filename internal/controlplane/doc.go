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

// Package controlplane starts a control plane without nodes' machines:
// etcd and kube-apiserver (envtest) from binaries built into bin/k8s or
// named by $KUBEBUILDER_ASSETS or WithAssets, with the project's CRDs or
// the ones given (WithCRDs), and creates Ready nodes there (Node,
// CreateReadyNode: status written, not-ready taint lifted, as there is no
// kubelet nor node lifecycle controller). RepoRoot finds the repository's
// (or a user module's) root, where bin/k8s and config/ are.
//
// Layout:
//   - controlplane.go: RepoRoot, CheckAssets, Start and its options
//     (WithAssets, WithCRDs, WithCRDDirectory, WithAPIServerArg,
//     WithPodGroups, WithOutput).
//   - nodes.go: Node, Resources and CreateReadyNode.
//   - routes.go: the routes' admission policy as the installer creates it
//     (InstallRoutesPolicy, DecodeAll), and kube-apiserver run with the
//     routes guard (WithRoutesGuard).
//
// Local mode (internal/local, app/local), the test fixtures
// (internal/test/testenv) and the benchmark use it. The binary shipped in the
// image never imports it (app's TestImageBinaryLinksNoTestFramework). It
// never downloads anything, and a start that fails half way stops what it
// started.
package controlplane
