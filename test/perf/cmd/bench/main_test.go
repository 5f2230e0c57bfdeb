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

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

// With no case named, a run takes every case that has the parameter set;
// a case named explicitly is taken whatever its sets.
func TestSelectCasesByScale(t *testing.T) {
	all, err := workloads.Load(workloads.Embedded)
	if err != nil {
		t.Fatal(err)
	}
	names := func(cs []*workloads.Case) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	got, err := selectCases(all, "", workloads.ScaleLarge)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"basic", "node-affinity", "pod-anti-affinity", "topology-spreading", "unschedulable-churn", "mixed-churn"}
	if !slices.Equal(names(got), want) {
		t.Errorf("scale cases = %v, want %v", names(got), want)
	}
	for _, scale := range []string{workloads.ScaleDefault, workloads.ScaleSmall} {
		if got, err := selectCases(all, "", scale); err != nil || len(got) != len(all) {
			t.Errorf("%s: %d cases (%v), want all %d", scale, len(got), err, len(all))
		}
	}
	if got, err := selectCases(all, "swap,basic", workloads.ScaleLarge); err != nil || !slices.Equal(names(got), []string{"swap", "basic"}) {
		t.Errorf("named cases = %v, %v", names(got), err)
	}
	if _, err := selectCases(all, "", "huge"); err == nil || !strings.Contains(err.Error(), `"huge"`) {
		t.Errorf("unknown set: error %v, want one naming it", err)
	}
}
