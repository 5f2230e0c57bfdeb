// Package harness runs the benchmark's workloads against real scheduler
// processes on a local control plane: it creates the nodes and pods a
// case describes, watches every pod from creation to bind, samples the
// scheduler process's CPU time and peak memory from /proc, and drives the
// profile-swap storm (a SchedulerProfile update for profile-scheduler, a
// restart with a new configuration file for kube-scheduler, bare or as a
// lease hand-over to a standby with leader election on) and the explain
// case (SchedulingReviews timed from create to Complete, and a throughput
// run with reviews created beside it; profile-scheduler only). Cases with
// pod groups get PodGroups created before their members, the case's
// feature gates on both schedulers, and a count of the groups each run left
// partially bound or pending, read from the API.
//
// Each scheduler runs as its own process, one at a time, on fresh objects
// (a new namespace, nodes deleted and recreated with the same names; the
// bench command also starts a new control plane for every run). The
// harness never schedules anything itself and never leaves a process
// running: every process it starts is stopped before a run returns.
package harness
