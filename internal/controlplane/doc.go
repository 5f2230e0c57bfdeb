// Package controlplane starts a control plane without nodes' machines:
// etcd and kube-apiserver (envtest) from binaries built into bin/k8s or
// named by $KUBEBUILDER_ASSETS or WithAssets, with the project's CRDs or
// the ones given (WithCRDs), and creates Ready nodes there (Node,
// CreateReadyNode: status written, not-ready taint lifted, as there is no
// kubelet nor node lifecycle controller). RepoRoot finds the repository's
// (or a user module's) root, where bin/k8s and config/ are.
//
// Local mode (internal/local, app/local), the test fixtures
// (internal/testenv) and the benchmark use it. The binary shipped in the
// image never imports it (app's TestImageBinaryLinksNoTestFramework). It
// never downloads anything, and a start that fails half way stops what it
// started.
package controlplane
