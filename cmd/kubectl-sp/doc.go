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

// Command kubectl-sp is a kubectl plugin that asks profile-scheduler where a
// pod would go and why, through SchedulingReview objects, which profile a
// new pod would be routed to, and how a profile's rollout goes:
//
//	kubectl sp explain POD | podgroup/NAME [-n NS] [--profile NAME | -f draft.yaml] [-o table|wide|yaml|json|name|jsonpath=...|go-template=...]
//	kubectl sp what-if -f draft.yaml | --profile NAME [--scheduler-name NAME] [--add-nodes NODE=COUNT] [--drain SELECTOR] [--pods pod.yaml --replicas N] [--min-nodes NODE --max N] [--report-by LABEL] [-o ...]
//	kubectl sp route [-n NS | -A] [-l SELECTOR] [-o wide] [--scheduler-name NAME] [--operator-namespace NS]
//	kubectl sp rollout status NAME [--watch=false] [--timeout DURATION]
//	kubectl sp rollout promote [--full] | abort | pause | resume NAME [-o ...]
//	kubectl sp lint -f FILE|DIR|- [-f ...] [--cluster] [--extender-secrets-namespace NS] [--allow-default-scheduler]
//	kubectl sp version [--client] [-o yaml|json] [--operator-namespace NS]
//	kubectl sp completion bash|zsh|fish
//
// explain and what-if create a review in the namespace, wait until the
// operator answered it, print the answer and delete the review. route reads
// the ProfileRoutes, the SchedulerProfiles and the namespace, and decides
// with the operator's own routing table (internal/routing); it creates
// nothing. rollout status reads status.rollout and waits until the rollout
// ends, as kubectl rollout status does; promote, abort, pause and resume
// only set or remove the profile's rollout annotations (api/v1alpha1),
// which the operator acts on, as a GitOps tool or kubectl annotate could. The plugin is built on kubectl's cli-runtime: its connection
// flags (--kubeconfig, --context, -n, ...), its printers for -o
// (apiVersion and kind set from the scheme, managedFields hidden unless
// --show-managed-fields), its tab writer for the tables; -f is decoded
// strictly through the scheme (group, version and kind checked, an unknown
// field named). It exits 0 when the question was answered, 1 on any error
// (printed on stderr), including a review the operator could not answer.
//
// lint.go is package lint's command: the operator's admission path run on
// manifests offline. version.go reads the operator's version off its
// Deployment. completion.go prints the shell scripts and decides, in one
// place, what each argument and flag completes to (names read from the
// cluster, bounded by a short timeout), so the command files stay about
// what they do.
//
// Layout: main.go builds the root command; one file per command
// (explain.go, whatif.go, route.go, rollout.go and rollout_status.go,
// lint.go, version.go, completion.go), each an options struct whose
// Complete, Validate and Run the command's RunE calls in turn, as
// kubectl's commands and k8s.io/sample-cli-plugin do: Complete fills the
// options from args and flags (the printer of -o), Validate checks them,
// Run reads files, asks and prints. review.go holds what explain and
// what-if share (flags, draft decoding, creating and waiting for the
// review), scenario.go what-if's capacity flags, render.go the tables,
// scheme.go the scheme the client, the printers and -f use.
//
// It never writes a profile's spec: the only writes are the reviews
// explain and what-if create and delete, and the rollout annotations.
//
// Install it with `go install github.com/profile-scheduler/profile-scheduler/cmd/kubectl-sp@latest`
// or `make build` (bin/kubectl-sp), with the binary on PATH.
package main
