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
