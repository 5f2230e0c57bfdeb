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
