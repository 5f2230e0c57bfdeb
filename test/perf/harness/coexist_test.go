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

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
)

func TestReplayBinds(t *testing.T) {
	alloc := map[string]podRequest{"n1": {cpu: 1000, mem: 1 << 30}, "n2": {cpu: 1000, mem: 1 << 30}}
	slots := map[string]int64{"n1": 110, "n2": 2}
	reqs := map[string]podRequest{
		"a0": {cpu: 500, scheduler: "default-scheduler"},
		"b0": {cpu: 500, scheduler: "bench"},
		"a1": {cpu: 500, scheduler: "default-scheduler"},
		"b1": {cpu: 500, scheduler: "bench"},
		"a2": {cpu: 100, scheduler: "default-scheduler"},
		"b2": {cpu: 100, scheduler: "bench"},
		"b3": {cpu: 100, scheduler: "bench"},
	}
	binds := []Bind{
		{Pod: "a0", Node: "n1"},
		{Pod: "probe", Node: "n1"}, // not a pod of the run
		{Pod: "b0", Node: "n1"},
		{Pod: "b1", Node: "n1"}, // 1500m of 1000m: b1 takes n1 over
		{Pod: "a1", Node: "n1"}, // over capacity too, not the first
		{Pod: "a2", Node: "n2"},
		{Pod: "b2", Node: "n2"},
		{Pod: "b3", Node: "n2"},   // the third pod on a node of 2 slots
		{Pod: "a0", Node: "gone"}, // a node of another run
	}
	got := replayBinds(binds, reqs, alloc, slots)
	want := Overcommit{OvercommittedNodes: 2, PodsOver: 3, FirstOverflowBy: map[string]int{"bench": 2}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("replayBinds (-want +got):\n%s", d)
	}

	// Within allocatable everywhere: nothing over.
	got = replayBinds(binds[:3], reqs, alloc, slots)
	if got.OvercommittedNodes != 0 || got.PodsOver != 0 || len(got.FirstOverflowBy) != 0 {
		t.Errorf("replayBinds of binds within allocatable = %+v", got)
	}
}

func TestAdmissionQuantilesFrom(t *testing.T) {
	raw := []byte(`# HELP apiserver_admission_step_admission_duration_seconds_summary [ALPHA] Admission sub-step latency summary in seconds.
# TYPE apiserver_admission_step_admission_duration_seconds_summary summary
apiserver_admission_step_admission_duration_seconds_summary{operation="CREATE",rejected="false",type="admit",quantile="0.5"} 0.0004
apiserver_admission_step_admission_duration_seconds_summary{operation="CREATE",rejected="false",type="admit",quantile="0.9"} 0.0009
apiserver_admission_step_admission_duration_seconds_summary{operation="CREATE",rejected="false",type="admit",quantile="0.99"} 0.0031
apiserver_admission_step_admission_duration_seconds_summary_sum{operation="CREATE",rejected="false",type="admit"} 1.2
apiserver_admission_step_admission_duration_seconds_summary_count{operation="CREATE",rejected="false",type="admit"} 3000
apiserver_admission_step_admission_duration_seconds_summary{operation="CREATE",rejected="false",type="validate",quantile="0.5"} 0.5
apiserver_admission_step_admission_duration_seconds_summary_sum{operation="CREATE",rejected="false",type="validate"} 1
apiserver_admission_step_admission_duration_seconds_summary_count{operation="CREATE",rejected="false",type="validate"} 2
`)
	got, err := admissionQuantilesFrom(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := AdmissionQuantiles{P50: 0.4, P90: 0.9, P99: 3.1}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); d != "" {
		t.Errorf("admissionQuantilesFrom (-want +got):\n%s", d)
	}
	if _, err := admissionQuantilesFrom([]byte("# nothing\n")); err == nil {
		t.Error("admissionQuantilesFrom of metrics without the summary: no error")
	}
}

func TestParseCoexistSetups(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []CoexistSetup
		err  bool
	}{
		{"", CoexistSetups, false},
		{"  ", CoexistSetups, false},
		// In the order they run, whatever the order asked.
		{"two-upstream-arbiter, two-upstream", []CoexistSetup{SetupTwoUpstream, SetupTwoUpstreamArbiter}, false},
		{"ours-arbiter", []CoexistSetup{SetupCheckArbiter}, false},
		{"two-upstream,arbiter", nil, true},
	} {
		got, err := ParseCoexistSetups(tc.list)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("ParseCoexistSetups(%q) = %v, %v; want %v (error %v)", tc.list, got, err, tc.want, tc.err)
		}
	}
}

func TestBindFigures(t *testing.T) {
	t0 := time.Now()
	var st StepStats
	for i := range 100 {
		// 99 binds in the first second, one retried after a back-off.
		at := t0.Add(time.Duration(i+1) * 10 * time.Millisecond)
		if i == 99 {
			at = t0.Add(2 * time.Second)
		}
		st.BindTimes = append(st.BindTimes, at)
		st.Latencies = append(st.Latencies, time.Millisecond)
	}
	f := bindFigures(st, t0)
	if f.Bound != 100 || f.Seconds != 2 || f.PodsPerSecond != 50 {
		t.Errorf("bound %d in %.2f s, %.1f pods/s; want 100 in 2 s, 50 pods/s", f.Bound, f.Seconds, f.PodsPerSecond)
	}
	if f.BindSeconds.P50 > 0.51 || f.BindSeconds.P90 > 0.91 || f.BindSeconds.P99 > 1 || f.BindSeconds.Max != 2 {
		t.Errorf("bind seconds %+v: want half by 0.5 s, 90%% by 0.9, 99%% by 1, the last at 2", f.BindSeconds)
	}
}

func TestNoopWebhookAdmits(t *testing.T) {
	w := &noopWebhook{}
	srv := httptest.NewTLSServer(w)
	defer srv.Close()
	body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-7","operation":"CREATE","object":{"target":{"name":"n1"}}}}`
	resp, err := srv.Client().Post(srv.URL+"/validate-pods-binding", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&review); err != nil {
		t.Fatal(err)
	}
	if review.Response == nil || review.Response.UID != "u-7" || !review.Response.Allowed || w.reviews.Load() != 1 {
		t.Errorf("answer %+v after %d reviews; want u-7 allowed after 1", review.Response, w.reviews.Load())
	}
}
