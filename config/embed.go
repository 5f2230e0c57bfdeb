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

// Package config holds the kustomize bases of the operator and, for local
// mode, the files a binary carries with it (so that local mode works from
// any module built with package app): the CRDs and the sample objects.
package config

import "embed"

// CRDs are the generated CustomResourceDefinitions (crd/bases/*.yaml).
//
//go:embed crd/bases/*.yaml
var CRDs embed.FS

// RoutesPolicy is the routes program: the MutatingAdmissionPolicy and
// binding (routes/routes_policy.yaml) that read the routes from the
// RoutingTable the operator writes, which local mode installs as the
// chart and config/default do.
//
//go:embed routes/routes_policy.yaml
var RoutesPolicy embed.FS

// Samples are the sample SchedulerProfiles and ExtenderConfigs
// (samples/*.yaml) that local mode applies.
//
//go:embed samples/*.yaml
var Samples embed.FS
