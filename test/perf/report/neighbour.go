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

package report

import (
	"fmt"
	"strings"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// neighbourCases are the cases whose runs had a neighbour kube-scheduler
// beside them (bench -neighbour), in the order of their runs.
func (r *Report) neighbourCases(cases []string) []string {
	var out []string
	for _, c := range cases {
		for _, s := range []string{harness.Upstream, harness.Ours} {
			if run := r.find(c, s, harness.ModeThroughput); run != nil && run.Neighbour != nil {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// writeNeighbour writes what the throughput runs beside a neighbour
// kube-scheduler measured, and ours with the bind arbiter over ours
// without it, for a case run in both variants.
func (r *Report) writeNeighbour(b *strings.Builder, cases []string) {
	nc := r.neighbourCases(cases)
	if len(nc) == 0 {
		return
	}
	b.WriteString("## Beside a neighbour kube-scheduler\n\n")
	b.WriteString("The throughput runs of these cases had a kube-scheduler beside them, serving default-scheduler and binding small pods " +
		"(10m / 16Mi) of its own onto the same nodes from before the measured step to its end, as DaemonSets and system pods keep " +
		"kube-scheduler binding in most clusters. While another scheduler binds, profile-scheduler's bind check lists the node's pods " +
		"from kube-apiserver before every bind, unless the bind arbiter is on (then the arbiter counts what the cache has not seen). " +
		"Node pod LISTs: the LISTs of pods across namespaces kube-apiserver served during the measured step (from just after the resume). " +
		"Control plane: kube-apiserver + etcd CPU per pod bound.\n\n")
	b.WriteString("| case | scheduler | arbiter | neighbour pods/s (bound) | pods/s | CPU ms per pod | control plane CPU ms per pod | node pod LISTs |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, c := range nc {
		for _, s := range []string{harness.Upstream, harness.Ours} {
			run := r.find(c, s, harness.ModeThroughput)
			if run == nil || run.Neighbour == nil {
				continue
			}
			n := run.Neighbour
			fmt.Fprintf(b, "| %s | %s | %t | %g (%d) | %.1f | %.2f | %.2f | %.0f |\n", c, s, n.Arbiter, n.Rate, n.Bound,
				run.Throughput.Average, 1000*cpuPerPod(run), 1000*controlPlanePerPod(run), n.NodePodLists)
		}
	}
	b.WriteString("\n")
	var rows []string
	for _, c := range nc {
		with := r.find(c+"-arbiter", harness.Ours, harness.ModeThroughput)
		without := r.find(c, harness.Ours, harness.ModeThroughput)
		if without == nil || with == nil || without.Error != "" || with.Error != "" {
			continue
		}
		rows = append(rows, fmt.Sprintf("| %s | %.2f | %.2f | %.2f |", c,
			stats.Ratio(with.Throughput.Average, without.Throughput.Average), stats.Ratio(cpuPerPod(with), cpuPerPod(without)),
			stats.Ratio(controlPlanePerPod(with), controlPlanePerPod(without))))
	}
	if len(rows) > 0 {
		b.WriteString("profile-scheduler with the bind arbiter (serving it, the bind check reading the cache alone) over without it, beside the same neighbour:\n\n")
		b.WriteString("| case | pods/s with/without | CPU per pod with/without | control plane CPU per pod with/without |\n|---|---:|---:|---:|\n")
		b.WriteString(strings.Join(rows, "\n") + "\n\n")
	}
}

// neighbourChecks are the targets table's rows of the runs beside a
// neighbour: with the arbiter on, the bind check makes no read of its own
// (a few LISTs of the informers' start may fall in the step: at most
// neighbourListSlack); without it, one per pod bound is expected, and
// reported.
func (r *Report) neighbourChecks(cases []string) []targetRow {
	var checks []targetRow
	for _, c := range r.neighbourCases(cases) {
		run := r.find(c, harness.Ours, harness.ModeThroughput)
		if run == nil || run.Neighbour == nil || run.Error != "" || run.Neighbour.Error != "" {
			continue
		}
		n := run.Neighbour
		if n.Arbiter {
			checks = append(checks, targetRow{
				what:   c + ": the bind check's LISTs of a node's pods, ours, with the arbiter",
				target: fmt.Sprintf("<= %d", neighbourListSlack),
				got:    fmt.Sprintf("%.0f for %d pods bound", n.NodePodLists, run.Bound),
				ok:     n.NodePodLists <= neighbourListSlack,
			})
		} else {
			checks = append(checks, targetRow{
				what:   c + ": the bind check's LISTs of a node's pods, ours, without the arbiter",
				target: "reported",
				got:    fmt.Sprintf("%.0f for %d pods bound", n.NodePodLists, run.Bound),
				ok:     true,
			})
		}
	}
	return checks
}

// neighbourListSlack is how many cluster-wide pod LISTs a measured step
// may see that are not the bind check's.
const neighbourListSlack = 2
