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

// Package docs runs the commands the README and the pages under docs/ show,
// against the cluster `make run` starts, and checks that each prints what
// the page says it prints: docs whose examples stop working fail the build.
//
// # Which blocks are run
//
// A fenced block whose info string is `console` is a terminal session: every
// line that starts with "$ " is a command, typed in the order of the page;
// the lines up to the next "$ " line are its expected output (standard
// output and standard error, as a terminal shows them). A command continues
// on the next line after a trailing backslash, and up to the end of a here
// document (<<'EOF' ... EOF). Blocks marked `sh`, `yaml`, `go` and the rest
// are never run: use them for commands that do not run against `make run`'s
// cluster (make itself, helm, a real cluster) or whose output is not shown.
//
// Each page runs in a session of its own: a fresh `make run` (the operator
// with local mode, its nodes and the samples of config/samples, every
// profile and route Ready), and a shell set up as the README's walkthrough
// sets it up (KUBECONFIG, and bin/k8s and bin on PATH), in a directory where
// the repository's files are at the same relative paths as in a checkout. A
// page whose commands need operator flags says so in a comment, which also
// tells the reader which `make run` to start:
//
//	<!-- docs-test: make run ARGS=--feature-gates=GenericWorkload=true -->
//
// A page with `<!-- docs-test: skip -->` is not run.
//
// # How output is compared
//
// Both the expected and the actual output are normalized before they are
// compared: runs of blanks become one space (table columns widen with
// their content), ages and durations (5s, 2m3s, 150ms) become one token,
// and so do timestamps, IP addresses and the random suffixes of generated
// names (what-if-x7k2p). Blank lines at the end are dropped. In the
// expected output, a line "..." stands for any number of lines, and "..."
// inside a line for any text.
//
// A command that only reads (kubectl get, describe, wait, sp) and does not
// print what the page says is run again for a while, as a person who
// looks again a moment later: the operator binds and reports asynchronously.
// A command that writes is run exactly once.
//
// The test builds bin/profile-scheduler-local and kubectl-sp from the
// working tree into a directory of its own and takes etcd, kube-apiserver
// and kubectl from $KUBEBUILDER_ASSETS or bin/k8s. DOCS_TEST_PAGES, a
// comma-separated list of page paths (README.md, docs/routes.md), runs
// those pages only; DOCS_TEST_SHOW=1 logs what every command printed (with
// go test -v), and DOCS_TEST_FILL=1 writes into the page the output of
// each command whose expected output is a lone "..." line: how a new
// page's outputs are written (read them before committing them).
package docs
