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

// Package stats holds the pure arithmetic of the benchmark (test/perf) and
// of the suites that time something (the admission storm): percentiles
// and summaries (Percentile, Summarize, Durations), throughput over fixed
// windows (WindowThroughput), the longest gap between events and the gaps
// after changes (LongestGap, GapsAfter), and the agreement between two
// placements (Compare, Agreement); Ratio divides, 0 when the divisor is.
// stats.go holds all of it, stats_test.go
// its table tests.
//
// It is test-only (internal/test/): no production package imports it. It
// reads no clock and talks to no API server, so everything in it is
// unit-tested.
package stats
