// Package stats holds the pure arithmetic of the benchmark: percentiles,
// throughput over fixed windows, the longest gap between events and the
// agreement between two placements. It reads no clock and talks to no API
// server, so everything in it is unit-tested.
package stats
