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

// Package report turns the benchmark's runs into the files a reader looks
// at: a Markdown table per run with the ours/upstream ratios in the last
// columns, the same figures as JSON, and a chart of the profile-swap storm
// (SVG and PNG): the longest time without a bind after each change and
// pods bound per 100 ms around a change, every scheduler over the same
// number of changes. It only formats; it measures nothing.
//
// Layout: report.go (Report, WriteJSON, WriteMarkdown: the order of the
// sections), targets.go (the table of each case's runs), notes.go (the
// notes under a case: short steps, connection storms, a run's own),
// controlplane.go (control-plane CPU per pod), swap.go and chart.go (the
// profile-swap storm: table and chart), explain.go, gang.go, rollout.go,
// isolation.go (their sections).
package report
