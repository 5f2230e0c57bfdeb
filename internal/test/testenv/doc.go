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

// Package testenv holds the fixtures that tests and the benchmark share
// beside the control plane itself (package controlplane starts it and
// creates its nodes). It is test-only: internal/test/ holds what tests,
// the test module (test/) and the benchmark share, apart from the
// packages the operator links.
//
// Layout:
//   - pods.go: PausePod, CreateBound, BenchPod (upstream's default
//     profile is scheduler.DefaultProfile).
//   - command.go: RunCommand, an operator command run for a test.
//   - processes.go: the control-plane processes an environment started
//     (ChildProcesses, StatFields).
//   - ports.go: FreePort, a free port for a test's server.
//   - refusals.go: ProfileRefusals, profiles the CRD's schema admits and
//     the operator refuses (the controllers' spec and package lint's test
//     run the same table), and SecondSort, the out-of-tree queue sort
//     plugin some of them enable.
//   - routes.go: NewLargestRoutes, the largest ProfileRoutes the API
//     admits.
//   - testmodule.go: TestModuleRoot, where the test module's tools are
//     built from.
//   - fakeextender/: a fake HTTP(S) extender.
//
// No production package imports it (app's
// TestImageBinaryLinksNoTestFramework checks the image's binary and the
// local one); it never downloads anything.
package testenv
