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

// Package chart checks the Helm chart in charts/profile-scheduler and the
// kustomize bases in config/: helm lint and template, server-side apply of
// both renderings to an envtest API server, that both render the same
// objects, that the ClusterRole grants exactly what the chart README
// documents, and the Argo CD health checks of the README (and of
// config/argocd, the same SchedulerProfile script) through a Lua
// interpreter. It owns no production code; helm and kustomize, Go tools of
// the test module (test/go.mod), are built into bin/ when not found there.
package chart
