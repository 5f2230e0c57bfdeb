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
	"testing"

	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
)

func TestNeighbourCases(t *testing.T) {
	basic, coexist := &workloads.Case{Name: "basic"}, &workloads.Case{Name: "coexist", Coexist: &workloads.Coexist{}}
	vals := map[string]map[string]int{"basic": {"nodes": 5}}
	out, arbiter, err := neighbourCases([]*workloads.Case{basic, coexist}, "plain,arbiter", vals)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range out {
		names = append(names, c.Name)
	}
	if want := []string{"basic-neighbour", "basic-neighbour-arbiter", "coexist"}; len(names) != 3 || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Errorf("cases %v, want %v", names, want)
	}
	if arbiter["basic-neighbour"] || !arbiter["basic-neighbour-arbiter"] || vals["basic-neighbour-arbiter"]["nodes"] != 5 || basic.Name != "basic" {
		t.Errorf("arbiter %v, vals %v, original %q", arbiter, vals, basic.Name)
	}
	if _, _, err := neighbourCases([]*workloads.Case{basic}, "plain,other", vals); err == nil {
		t.Errorf("an unknown variant was taken")
	}
}
