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

// Package fakeextender is a scheduler extender for tests, test-only
// (internal/test/): a real HTTP(S) server whose filter keeps every node
// and counts its calls, and whose serving certificate can be replaced
// while it runs (fakeextender.go: Start, Server, ServingCert), and one
// whose filter holds every call until the test releases it (held.go:
// StartHeld, Held). The controllers' and the scheduler's envtest suites
// and the e2e suite use them; the operator never imports them.
package fakeextender
