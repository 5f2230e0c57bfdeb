// Package testenv finds the control-plane binaries built into bin/k8s and
// starts envtest environments on them, and creates Ready nodes there
// (Node, CreateReadyNode: status written, not-ready taint lifted, as there is
// no kubelet nor node lifecycle controller), runs an operator command
// for a test (RunCommand), and finds the control-plane processes an
// environment started (ChildProcesses). It is used by tests, local mode
// and the benchmark; it never downloads anything.
package testenv
