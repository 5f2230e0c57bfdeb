// Package metrics defines the operator's own Prometheus metrics, beside the
// upstream scheduler metrics the scheduler package re-exports: profile
// swaps, how long a swap takes, refused generations and live profiles. All
// are registered on controller-runtime's registry, so they are served on the
// manager's metrics endpoint.
package metrics
