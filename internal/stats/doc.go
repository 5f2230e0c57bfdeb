// Package stats holds the pure arithmetic of the benchmark (test/perf) and
// of the suites that time something (the admission storm): percentiles,
// throughput over fixed windows, the longest gap between events and the
// agreement between two placements. It reads no clock and talks to no API
// server, so everything in it is unit-tested.
package stats
