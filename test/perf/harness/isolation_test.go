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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

func TestLayoutIsolation(t *testing.T) {
	v := workloads.IsolationValues{Nodes: 50, SlowNodes: 10, SlowPods: 10, Pods: 200, Profiles: 3, PodsEach: 100, PoolNodes: 20}
	for _, tc := range []struct {
		setup IsolationSetup
		want  isolationLayout
	}{{
		IsolationSetup{Part: PartExtender, Variant: VariantShared, WithSlow: true, Mode: ModeThroughput},
		isolationLayout{pools: []isolationPool{{"b", 50}}, profiles: []string{"bench-a", "bench-b"}, slow: "bench-a", groups: []isolationGroup{
			{step: "a", profile: "bench-a", pool: "b", pods: 10, slow: true},
			{step: "b", profile: "bench-b", pool: "b", pods: 200, measured: true},
		}},
	}, {
		IsolationSetup{Part: PartExtender, Variant: VariantDisjoint, WithSlow: true, Mode: ModeLatency},
		isolationLayout{pools: []isolationPool{{"b", 50}, {"a", 10}}, profiles: []string{"bench-a", "bench-b"}, slow: "bench-a", groups: []isolationGroup{
			{step: "a", profile: "bench-a", pool: "a", pods: 10, slow: true},
			{step: "b", profile: "bench-b", pool: "b", pods: 200, measured: true},
		}},
	}, {
		// Without A's pods, A's profile is served all the same, and the
		// nodes are those of the runs with them, A's pool included: B's
		// cycles filter as many nodes.
		IsolationSetup{Part: PartExtender, Variant: VariantDisjoint, Mode: ModeThroughput},
		isolationLayout{pools: []isolationPool{{"b", 50}, {"a", 10}}, profiles: []string{"bench-a", "bench-b"}, slow: "bench-a", groups: []isolationGroup{
			{step: "b", profile: "bench-b", pool: "b", pods: 200, measured: true},
		}},
	}, {
		IsolationSetup{Part: PartProfiles, Mode: ModeThroughput},
		isolationLayout{pools: []isolationPool{{"p1", 20}, {"p2", 20}, {"p3", 20}}, profiles: []string{"bench-1", "bench-2", "bench-3"}, groups: []isolationGroup{
			{step: "p1", profile: "bench-1", pool: "p1", pods: 100, measured: true},
			{step: "p2", profile: "bench-2", pool: "p2", pods: 100, measured: true},
			{step: "p3", profile: "bench-3", pool: "p3", pods: 100, measured: true},
		}},
	}} {
		got := layoutIsolation(tc.setup, v, "bench")
		if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(isolationLayout{}, isolationPool{}, isolationGroup{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.setup, d)
		}
	}
	for setup, want := range map[IsolationSetup]string{
		{Part: PartExtender, Variant: VariantShared, WithSlow: true, Mode: ModeThroughput}: "shared-with-a-throughput",
		{Part: PartExtender, Variant: VariantDisjoint, Mode: ModeLatency}:                  "disjoint-alone-latency",
		{Part: PartProfiles, Mode: ModeThroughput}:                                         "profiles-throughput",
	} {
		if got := setup.String(); got != want {
			t.Errorf("%+v names itself %q, want %q", setup, got, want)
		}
	}
	// Every run's namespace (Runner.prepare's name, the thousandth run of
	// a bench) is a DNS label: a longer one failed every one-loop run.
	for _, v := range IsolationVariants {
		for _, with := range []bool{false, true} {
			for _, m := range Modes {
				setup := IsolationSetup{Part: PartExtender, Variant: v, WithSlow: with, Mode: m}
				for _, who := range []string{Upstream, Ours, OursOneLoop} {
					if ns := fmt.Sprintf("bench-1000-isolation-%s-%s", setup, who); len(ns) > 63 {
						t.Errorf("namespace %s: %d characters, more than a DNS label's 63", ns, len(ns))
					}
				}
			}
		}
	}
}

func TestInterleave(t *testing.T) {
	pod := func(n string) *corev1.Pod { return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n}} }
	var names []string
	for _, p := range interleave([][]*corev1.Pod{{pod("a0"), pod("a1"), pod("a2")}, {pod("b0")}, {pod("c0"), pod("c1")}}) {
		names = append(names, p.Name)
	}
	if got, want := strings.Join(names, " "), "a0 b0 c0 a1 c1 a2"; got != want {
		t.Errorf("interleave = %s, want %s", got, want)
	}
}

// Upstream gets the slow extender once, in the configuration's extenders,
// which apply to every profile; ours an ExtenderConfig of the same spec.
func TestServedProfilesConfig(t *testing.T) {
	x := &SlowExtender{url: "http://127.0.0.1:1234/isolation"}
	ext := Extender{Name: slowExtenderName, Config: x.Config("example.com/slow", 5*time.Second)}
	profs := []ServedProfile{
		{Profile: schedv1.KubeSchedulerProfile{SchedulerName: ptr.To("bench-a")}, Extenders: []Extender{ext}},
		{Profile: schedv1.KubeSchedulerProfile{SchedulerName: ptr.To("bench-b")}},
		{Profile: schedv1.KubeSchedulerProfile{SchedulerName: ptr.To("bench-c")}, Extenders: []Extender{ext}},
	}
	k := &KubeScheduler{Settings: Settings{Parallelism: 16}}
	b, err := k.config(profs)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Profiles  []schedv1.KubeSchedulerProfile `json:"profiles"`
		Extenders []schedv1.Extender             `json:"extenders"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Profiles) != 3 || *cfg.Profiles[2].SchedulerName != "bench-c" {
		t.Errorf("profiles = %+v, want bench-a, bench-b, bench-c", cfg.Profiles)
	}
	if d := cmp.Diff([]schedv1.Extender{ext.Config}, cfg.Extenders); d != "" {
		t.Errorf("extenders (-want +got):\n%s\n%s", d, b)
	}
	spec, err := ExtenderConfigSpec(ext.Config)
	if err != nil {
		t.Fatal(err)
	}
	want := v1alpha1.ExtenderConfigSpec{URLPrefix: "http://127.0.0.1:1234/isolation", FilterVerb: "filter", NodeCacheCapable: true,
		HTTPTimeout:      &metav1.Duration{Duration: 5 * time.Second},
		ManagedResources: []v1alpha1.ExtenderManagedResource{{Name: "example.com/slow", IgnoredByScheduler: true}}}
	if d := cmp.Diff(want, spec); d != "" {
		t.Errorf("ExtenderConfigSpec (-want +got):\n%s", d)
	}
	if _, err := ExtenderConfigSpec(schedv1.Extender{URLPrefix: "https://x", TLSConfig: &schedv1.ExtenderTLSConfig{Insecure: true}}); err == nil {
		t.Error("an extender with TLS material converted; the harness makes no Secret for it")
	}
}

// The slow extender passes every node it is given, by name or whole, after
// its delay.
func TestSlowExtender(t *testing.T) {
	x, err := StartSlowExtender(20 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Stop()
	// A client of its own, its connections closed before the server's
	// (deferred in that order's reverse): no socket of this test closes
	// while the next one counts the process's sockets (TestOpenSockets).
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	if err := x.WaitCalled(context.Background(), time.Millisecond); err == nil {
		t.Error("WaitCalled returned before any call")
	}
	call := func(args extenderv1.ExtenderArgs) extenderv1.ExtenderFilterResult {
		t.Helper()
		body, _ := json.Marshal(args)
		resp, err := client.Post(x.url+"/"+slowFilterVerb, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res extenderv1.ExtenderFilterResult
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	start := time.Now()
	res := call(extenderv1.ExtenderArgs{Pod: &corev1.Pod{}, NodeNames: &[]string{"n1", "n2"}})
	if took := time.Since(start); took < 20*time.Millisecond {
		t.Errorf("answered in %s, before its delay", took)
	}
	if res.NodeNames == nil || strings.Join(*res.NodeNames, ",") != "n1,n2" || res.Error != "" {
		t.Errorf("by name: %+v, want n1 and n2", res)
	}
	res = call(extenderv1.ExtenderArgs{Pod: &corev1.Pod{}, Nodes: &corev1.NodeList{Items: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n3"}}}}})
	if res.Nodes == nil || len(res.Nodes.Items) != 1 || res.Nodes.Items[0].Name != "n3" {
		t.Errorf("whole nodes: %+v, want n3", res)
	}
	if err := x.WaitCalled(context.Background(), time.Millisecond); err != nil || x.Calls() != 2 {
		t.Errorf("after two calls: WaitCalled %v, Calls %d", err, x.Calls())
	}
}
