// Package chart checks the Helm chart in charts/profile-scheduler and the
// kustomize bases in config/: helm lint and template, server-side apply of
// both renderings to an envtest API server, that both render the same
// objects, that the ClusterRole grants exactly what the chart README
// documents, and the Argo CD health checks of the README (and of
// config/argocd, the same SchedulerProfile script) through a Lua
// interpreter. It owns no production code; helm and kustomize, Go tools of
// the test module (test/go.mod), are built into bin/ when not found there.
package chart
