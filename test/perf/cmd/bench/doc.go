// Command bench runs the scheduler benchmark: upstream kube-scheduler and
// profile-scheduler, one after the other, each run on a local control plane
// started for it, the same nodes and pods and the same profile, and writes a
// Markdown report, its JSON and a chart of the profile-swap storm into
// bench/results/<timestamp>/. The explain case measures SchedulingReviews,
// which only profile-scheduler has: it runs on profile-scheduler alone.
// `make bench` builds what it needs and runs it; `bench -h` lists the knobs
// (scale, cases, parameters, client QPS) and -trace, what an investigation
// records beside the figures (CPU and heap profiles, GC traces).
//
// main.go reads the flags, cases.go selects the cases and their
// parameters, run.go makes the runs (runOne dispatches each kind of case to
// its harness method) and writes the report after each.
package main
