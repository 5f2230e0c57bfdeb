// Package operator assembles the operator: a controller-runtime manager
// holding the in-process scheduler (a leader-only runnable), the
// SchedulerProfile, ExtenderConfig and SchedulingReview controllers, the
// optional admission webhook, metrics and probes. The public package app
// (whose command main.go runs) and the end-to-end tests build the operator
// through New, so both run the same thing. It lives under app/, above
// controllers/ and scheduler/, which it wires together: the leaf packages
// of internal/ import none of them.
//
// The manager caches only the operator's own kinds (SchedulerProfiles,
// ExtenderConfigs, SchedulingReviews) and the Secrets of the
// extender-secrets namespace. Pods, Nodes and whatever the plugins read come
// from the scheduler's informers alone, which, for a profile of the default
// plugins, watch exactly what upstream's scheduler watches: every resource
// is watched once (TestOperatorWatchesEachResourceOnce).
package operator
