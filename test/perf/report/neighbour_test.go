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
	"strings"
	"testing"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

func neighbourRun(c, s string, arbiter bool, podsPerSec, cpu, lists float64) *harness.Run {
	return &harness.Run{Case: c, Scheduler: s, Mode: harness.ModeThroughput, Repeat: 1, MeasuredPods: 100, Bound: 100,
		Throughput: stats.Throughput{Average: podsPerSec}, CPUSeconds: cpu, Signals: harness.Signals{APIServerCPUSeconds: 1, EtcdCPUSeconds: 1},
		Neighbour: &harness.NeighbourRun{Rate: 1, Arbiter: arbiter, Bound: 20, NodePodLists: lists}}
}

func TestNeighbour(t *testing.T) {
	r := &Report{Runs: []*harness.Run{
		neighbourRun("basic-neighbour", harness.Upstream, false, 200, 0.4, 1),
		neighbourRun("basic-neighbour", harness.Ours, false, 100, 0.5, 101),
		neighbourRun("basic-neighbour-arbiter", harness.Upstream, true, 190, 0.4, 1),
		neighbourRun("basic-neighbour-arbiter", harness.Ours, true, 150, 0.4, 3),
	}}
	cases := []string{"basic-neighbour", "basic-neighbour-arbiter"}
	b := &strings.Builder{}
	r.writeNeighbour(b, cases)
	for _, want := range []string{
		"| basic-neighbour | ours | false | 1 (20) | 100.0 | 5.00 | 20.00 | 101 |",
		"| basic-neighbour-arbiter | ours | true | 1 (20) | 150.0 | 4.00 | 20.00 | 3 |",
		"| basic-neighbour | 1.50 | 0.80 | 1.00 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the neighbour section lacks %q:\n%s", want, b.String())
		}
	}
	checks := r.neighbourChecks(cases)
	if len(checks) != 2 || !checks[0].ok || checks[1].ok || checks[1].got != "3 for 100 pods bound" {
		t.Errorf("checks %+v: want without reported, with 3 > %d lists not met", checks, neighbourListSlack)
	}
}
