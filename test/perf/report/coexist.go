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
	"slices"
	"strings"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// writeCoexist writes the coexist cases' table: per case and setup, the
// nodes left overcommitted and the pods over capacity in each run, and
// whose bind first took each node over.
func (r *Report) writeCoexist(b *strings.Builder) {
	if len(r.Coexists) == 0 {
		return
	}
	b.WriteString("## Beside kube-scheduler (coexist)\n\n")
	b.WriteString("kube-scheduler serves `default-scheduler`, a second scheduler the bench's schedulerName, on the same nodes; " +
		"both get the same number of pods, created interleaved as fast as the API server takes them, more than the nodes hold. " +
		"The binds are replayed in the order the harness's pod watch delivered them: an overcommitted node is one whose pods " +
		"request more than it has (its kubelet would reject the late pods), a pod over capacity is a bind onto a node without room for it, " +
		"and each overcommitted node is counted against the scheduler whose bind first took it over. One value per run.\n\n")
	b.WriteString("| case | setup | overcommitted nodes | pods over capacity | first overflow: kube-scheduler / second | bound: kube-scheduler / second | of pods |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|\n")
	var cases []string
	for _, run := range r.Coexists {
		if run != nil && !slices.Contains(cases, run.Case) {
			cases = append(cases, run.Case)
		}
	}
	var notes []string
	for _, c := range cases {
		for _, setup := range harness.CoexistSetups {
			var nodes, over, firstUp, firstSecond, boundUp, boundSecond, pods []string
			var sumNodes, sumSecond int
			for _, run := range r.Coexists {
				if run == nil || run.Case != c || run.Setup != setup {
					continue
				}
				if run.Error != "" {
					notes = append(notes, fmt.Sprintf("%s %s run %d: %s", c, setup, run.Repeat, run.Error))
					continue
				}
				up, second := coexistSplit(run.FirstOverflowBy)
				bUp, bSecond := coexistSplit(run.BoundBy)
				nodes = append(nodes, fmt.Sprint(run.OvercommittedNodes))
				over = append(over, fmt.Sprint(run.PodsOver))
				firstUp, firstSecond = append(firstUp, fmt.Sprint(up)), append(firstSecond, fmt.Sprint(second))
				boundUp, boundSecond = append(boundUp, fmt.Sprint(bUp)), append(boundSecond, fmt.Sprint(bSecond))
				pods = append(pods, fmt.Sprint(run.Pods))
				sumNodes += run.OvercommittedNodes
				sumSecond += second
			}
			if len(nodes) == 0 {
				continue
			}
			fmt.Fprintf(b, "| %s | %s | %s (Σ %d) | %s | %s / %s (Σ second %d) | %s / %s | %s |\n", c, setup,
				strings.Join(nodes, ", "), sumNodes, strings.Join(over, ", "),
				strings.Join(firstUp, ", "), strings.Join(firstSecond, ", "), sumSecond,
				strings.Join(boundUp, ", "), strings.Join(boundSecond, ", "), strings.Join(pods, ", "))
		}
	}
	b.WriteString("\n")
	writeNotes(b, notes)
	r.writeCoexistArbiter(b)
}

// coexistSplit splits counts by schedulerName into kube-scheduler's
// (default-scheduler) and the second scheduler's (any other name).
func coexistSplit(by map[string]int) (up, second int) {
	for name, n := range by {
		if name == harness.DefaultScheduler {
			up += n
		} else {
			second += n
		}
	}
	return up, second
}
