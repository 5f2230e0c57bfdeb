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

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// writeRoutes writes the routes case's table: pod creation without and
// with routes in force, the median of each figure over the runs.
func (r *Report) writeRoutes(b *strings.Builder) {
	byRoutes := map[int][]*harness.RoutesRun{}
	var counts []int
	var notes []string
	for _, run := range r.Routes {
		if run == nil {
			continue
		}
		if run.Error != "" {
			notes = append(notes, fmt.Sprintf("%s with %d routes, run %d: %s", run.Case, run.Routes, run.Repeat, run.Error))
			continue
		}
		if !slices.Contains(counts, run.Routes) {
			counts = append(counts, run.Routes)
		}
		byRoutes[run.Routes] = append(byRoutes[run.Routes], run)
	}
	if len(counts) == 0 && len(notes) == 0 {
		return
	}
	slices.Sort(counts)
	b.WriteString("## Routes: what they cost pod creation\n\n")
	b.WriteString("profile-scheduler running, no node (nothing binds): pods asking for `default-scheduler` created as fast as the harness's workers can, " +
		"spread over one namespace per route, with no route and with the routes in force (a MutatingAdmissionPolicy kube-apiserver runs itself). " +
		"Each run on a control plane of its own, who goes first alternating; the median of the runs. " +
		"Admission: kube-apiserver's mutating admission step of CREATE requests (`apiserver_admission_step_admission_duration_seconds_summary`); create: each request as the client saw it.\n\n")
	b.WriteString("| routes | runs | pods per run | routed | pods/s | create ms p50 / p99 | mutating admission ms p50 / p99 |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|\n")
	med := func(runs []*harness.RoutesRun, f func(*harness.RoutesRun) float64) float64 {
		xs := make([]float64, len(runs))
		for i, run := range runs {
			xs[i] = f(run)
		}
		return stats.Percentile(xs, 50)
	}
	for _, n := range counts {
		runs := byRoutes[n]
		fmt.Fprintf(b, "| %d | %d | %d | %.0f | %.0f | %.1f / %.1f | %.2f / %.2f |\n", n, len(runs), runs[0].Pods,
			med(runs, func(r *harness.RoutesRun) float64 { return float64(r.Routed) }),
			med(runs, func(r *harness.RoutesRun) float64 { return r.PodsPerSecond }),
			med(runs, func(r *harness.RoutesRun) float64 { return r.CreateMillis.P50 }),
			med(runs, func(r *harness.RoutesRun) float64 { return r.CreateMillis.P99 }),
			med(runs, func(r *harness.RoutesRun) float64 { return r.AdmissionMillis.P50 }),
			med(runs, func(r *harness.RoutesRun) float64 { return r.AdmissionMillis.P99 }))
	}
	b.WriteString("\n")
	writeNotes(b, notes)
}
