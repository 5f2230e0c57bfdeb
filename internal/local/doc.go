// Package local runs a throw-away control plane for local mode: etcd and
// kube-apiserver from bin/k8s, the project's CRDs, a handful of Nodes sized
// like real machines, and the sample profiles. It writes an admin kubeconfig
// to a fixed path and stops every process it started when its context ends.
// It never talks to a real cluster.
package local
