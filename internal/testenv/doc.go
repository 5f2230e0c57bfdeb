// Package testenv finds the control-plane binaries built into bin/k8s and
// starts envtest environments on them. It is used by tests, local mode and
// the benchmark; it never downloads anything.
package testenv
