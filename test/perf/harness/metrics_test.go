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

package harness

import "testing"

func TestMetricsSum(t *testing.T) {
	m := Metrics(`# HELP profile_scheduler_bind_arbiter_decisions_total Binds.
# TYPE profile_scheduler_bind_arbiter_decisions_total counter
profile_scheduler_bind_arbiter_decisions_total{outcome="Admitted",resource="",scheduler="default-scheduler"} 120
profile_scheduler_bind_arbiter_decisions_total{outcome="Refused",resource="cpu",scheduler="default-scheduler"} 7
profile_scheduler_bind_arbiter_decisions_total{outcome="Admitted",resource="",scheduler="bench"} 100
profile_scheduler_bind_arbiter_decisions_total_extra 5
profile_scheduler_bind_arbiter_decision_duration_seconds_sum 0.0125
profile_scheduler_bind_arbiter_decision_duration_seconds_count 227
apiserver_request_total{code="200",component="apiserver",resource="pods",scope="cluster",verb="LIST",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",resource="pods",scope="namespace",verb="LIST",version="v1"} 40
apiserver_request_total{code="200",component="apiserver",resource="podsx",scope="cluster",verb="LIST",version="v1"} 40
`)
	for _, tc := range []struct {
		name  string
		match map[string]string
		want  float64
	}{
		{"profile_scheduler_bind_arbiter_decisions_total", nil, 227},
		{"profile_scheduler_bind_arbiter_decisions_total", map[string]string{"outcome": "Admitted"}, 220},
		{"profile_scheduler_bind_arbiter_decisions_total", map[string]string{"outcome": "Refused", "scheduler": "default-scheduler"}, 7},
		{"profile_scheduler_bind_arbiter_decisions_total", map[string]string{"outcome": "NotLeader"}, 0},
		{"profile_scheduler_bind_arbiter_decision_duration_seconds_sum", nil, 0.0125},
		{"profile_scheduler_bind_arbiter_decision_duration_seconds", nil, 0},
	} {
		if got := m.Sum(tc.name, tc.match); got != tc.want {
			t.Errorf("Sum(%s, %v) = %v, want %v", tc.name, tc.match, got, tc.want)
		}
	}
	if got := nodePodLists(m); got != 3 {
		t.Errorf("nodePodLists = %v, want 3", got)
	}
}
