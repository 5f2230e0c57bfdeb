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

// Package local runs a throw-away control plane for local mode: etcd and
// kube-apiserver from bin/k8s, the project's CRDs, a handful of Nodes sized
// like real machines, and the sample profiles. It writes an admin kubeconfig
// to a fixed path and stops every process it started when its context ends.
//
// Layout: cluster.go holds all of it: Start and Cluster (the control plane,
// started through package controlplane), DefaultNodes and CreateNodes,
// ApplyDir and ApplyFS (the samples), CRDs (from an fs.FS such as package
// config's embedded files). Package app/local is its one production user
// (--local); the e2e suites and the command's tests start it too, some
// through app/local/localtest.
//
// It never talks to a real cluster, and the operator's image never links
// it.
package local
