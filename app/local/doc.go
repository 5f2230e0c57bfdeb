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

// Package local gives a binary built with package app its --local mode: a
// throw-away control plane (etcd and kube-apiserver) with the operator's
// CRDs installed, a few nodes and the sample profiles, for a developer's
// machine. Import it from a main package for its side effect:
//
//	import _ "github.com/profile-scheduler/profile-scheduler/app/local"
//
// It links controller-runtime's envtest; the operator's image does not
// import it. The CRDs and samples travel inside the binary (package
// config), so local mode works from any module; the control plane's
// binaries are found in --local-assets, $KUBEBUILDER_ASSETS or bin/k8s
// under the module's root, and a missing one is reported with the commands
// that build it.
//
// local.go holds all of it: Start, registered with package app from an
// init function, starts the control plane through internal/local, creates
// the nodes, installs the routes' policy and applies the samples. It
// never runs against a real cluster.
package local
