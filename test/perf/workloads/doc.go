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

// Package workloads holds the benchmark's workloads as data: one YAML file
// per case (nodes, pods and the scheduling profile, with counts as named
// parameters, a smaller set for quick runs and, for the cases upstream sizes
// at 5000 nodes, a scale set at those sizes) and the node and pod
// templates they instantiate, modelled on upstream scheduler_perf. A
// createPods step can make its pods the members of PodGroups (groups of a
// size and minCount), in a case that turns the GenericWorkload gate on. It
// loads, validates and renders them; it never talks to an API server.
//
// Layout: workloads.go (loading and parameter sets), case.go (the schema of
// a case file), gang.go (PodGroups of a step), explain.go (the explain
// case's part), rollout.go (the rollout case's part), isolation.go (the
// isolation case's part), render.go (templates into objects), validate.go.
package workloads
