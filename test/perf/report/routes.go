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
// with routes in force, by the compiled CEL and by the routes program
// reading the RoutingTable side by side, the median of each figure over
// the runs, and the program's admission latency over the compiled CEL's.
func (r *Report) writeRoutes(b *strings.Builder) {
	type key struct {
		routes  int
		program harness.RoutesProgram
	}
	byKey := map[key][]*harness.RoutesRun{}
	var keys []key
	var notes []string
	for _, run := range r.Routes {
		if run == nil {
			continue
		}
		if run.Error != "" {
			notes = append(notes, fmt.Sprintf("%s with %d routes (%s), run %d: %s", run.Case, run.Routes, programName(run.Program), run.Repeat, run.Error))
			continue
		}
		k := key{run.Routes, run.Program}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], run)
	}
	if len(keys) == 0 && len(notes) == 0 {
		return
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.routes != b.routes {
			return a.routes - b.routes
		}
		return strings.Compare(string(a.program), string(b.program))
	})
	b.WriteString("## Routes: what they cost pod creation\n\n")
	b.WriteString("profile-scheduler running, no node (nothing binds): pods asking for `default-scheduler` created as fast as the harness's workers can, " +
		"spread over one namespace per route of the case's count, with no route and with the routes in force (routes past the count are tried first and select no namespace), " +
		"run by kube-apiserver itself: the routes program reading the operator's RoutingTable (`table`), or every route compiled into the policy's CEL as before the routes became data (`compiled`). " +
		"Each run on a control plane of its own, who goes first alternating; the median of the runs. " +
		"Admission: kube-apiserver's mutating admission step of CREATE requests (`apiserver_admission_step_admission_duration_seconds_summary`); create: each request as the client saw it; " +
		"× compiled: the table program's admission p50 and p99 over the compiled CEL's with as many routes.\n\n")
	b.WriteString("| routes | program | runs | pods per run | routed | pods/s | create ms p50 / p99 | mutating admission ms p50 / p99 | × compiled p50 / p99 |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	med := func(runs []*harness.RoutesRun, f func(*harness.RoutesRun) float64) float64 {
		xs := make([]float64, len(runs))
		for i, run := range runs {
			xs[i] = f(run)
		}
		return stats.Percentile(xs, 50)
	}
	p50 := func(r *harness.RoutesRun) float64 { return r.AdmissionMillis.P50 }
	p99 := func(r *harness.RoutesRun) float64 { return r.AdmissionMillis.P99 }
	for _, k := range keys {
		runs := byKey[k]
		ratio := ""
		if base := byKey[key{k.routes, harness.CompiledProgram}]; k.program == harness.TableProgram && len(base) > 0 {
			ratio = fmt.Sprintf("%.2f / %.2f", med(runs, p50)/med(base, p50), med(runs, p99)/med(base, p99))
		}
		fmt.Fprintf(b, "| %d | %s | %d | %d | %.0f | %.0f | %.1f / %.1f | %.2f / %.2f | %s |\n", k.routes, programName(k.program), len(runs), runs[0].Pods,
			med(runs, func(r *harness.RoutesRun) float64 { return float64(r.Routed) }),
			med(runs, func(r *harness.RoutesRun) float64 { return r.PodsPerSecond }),
			med(runs, func(r *harness.RoutesRun) float64 { return r.CreateMillis.P50 }),
			med(runs, func(r *harness.RoutesRun) float64 { return r.CreateMillis.P99 }),
			med(runs, p50), med(runs, p99), ratio)
	}
	b.WriteString("\n")
	writeNotes(b, notes)
}

// programName names a run's program; runs of reports from before the
// routes became data have none: the compiled CEL.
func programName(p harness.RoutesProgram) string {
	if p == "" {
		return string(harness.CompiledProgram)
	}
	return string(p)
}
