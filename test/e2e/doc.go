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

// Package e2e runs the operator binary as a person deploys it, against a
// real API server: several replicas with leader election, killed and
// replaced under load, and kube-apiserver itself killed and started again
// on the same etcd while pods arrive. The API server's audit log says who
// bound what.
//
// A failed spec carries the tail of each operator's log. To keep the whole
// work directory (logs, kubeconfigs, the audit log), set E2E_KEEP_WORKDIR=1;
// the suite prints its path.
package e2e
