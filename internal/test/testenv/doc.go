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
// creates its nodes): pods (PausePod, CreateBound; upstream's default
// profile is scheduler.DefaultProfile), running an operator command for a test
// (RunCommand), the control-plane processes an environment started
// (ChildProcesses), the test module's root (TestModuleRoot), a free port
// for a test's server (FreePort), the largest ProfileRoutes the API
// admits (NewLargestRoutes), and a fake HTTP extender (fakeextender).
// Only tests, the test module and the benchmark import it; it never
// downloads anything.
package testenv
