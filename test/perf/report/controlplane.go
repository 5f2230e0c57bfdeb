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

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

func cpuPerPod(r *harness.Run) float64 { return r.CPUSeconds / float64(max(r.Bound, 1)) }

// controlPlanePerPod is kube-apiserver's and etcd's CPU per pod bound.
func controlPlanePerPod(r *harness.Run) float64 {
	return (r.APIServerCPUSeconds + r.EtcdCPUSeconds) / float64(max(r.Bound, 1))
}

// writeControlPlane shows what each scheduler's throughput run cost
// kube-apiserver and etcd per pod bound, where the runs recorded it.
func (r *Report) writeControlPlane(b *strings.Builder, cases []string) {
	recorded := func(run *harness.Run) bool { return run != nil && run.APIServerCPUSeconds > 0 }
	cell := func(run *harness.Run) string {
		if !recorded(run) {
			return "–"
		}
		n := float64(max(run.Bound, 1))
		return fmt.Sprintf("%.2f / %.2f", 1000*run.APIServerCPUSeconds/n, 1000*run.EtcdCPUSeconds/n)
	}
	var rows []string
	for _, c := range cases {
		up, ours := r.find(c, harness.Upstream, harness.ModeThroughput), r.find(c, harness.Ours, harness.ModeThroughput)
		if !recorded(up) && !recorded(ours) {
			continue
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", c, cell(up), cell(ours), ratio(up, ours, controlPlanePerPod)))
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Control plane cost\n\n")
	b.WriteString("kube-apiserver's and etcd's CPU time from the resume to the last bind of the throughput runs above, per pod bound: " +
		"what serving each scheduler cost the control plane (on 2 cores it competes with the scheduler).\n\n")
	b.WriteString("| case | upstream kube-apiserver / etcd CPU ms per pod | ours kube-apiserver / etcd CPU ms per pod | both ours/up |\n|---|---:|---:|---:|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n\n")
}
