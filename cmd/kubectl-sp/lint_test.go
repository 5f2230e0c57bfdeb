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
	"bytes"
	"errors"
	"strings"
	"testing"
)

// lint prints each finding and a summary, and ends with status 1 when an
// object is refused, printing nothing more (main exits with exitError's
// status).
func TestLintCommand(t *testing.T) {
	run := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		root := newRootCommand(streamsFor(&out, &errOut))
		root.SetArgs(append([]string{"lint"}, args...))
		err := root.Execute()
		return out.String(), errOut.String(), err
	}
	out, _, err := run("-f", "../../config/samples/lint/profiles.yaml")
	var code exitError
	if !errors.As(err, &code) || code != 1 {
		t.Errorf("a refusal: %v, want exit status 1", err)
	}
	want := `../../config/samples/lint/profiles.yaml:2: SchedulerProfile packing-typo: refused: InvalidPluginArgs: plugin NodeResourcesFit: spec.pluginConfig[0].args.scoringStrategy.type: Unsupported value: "MostAlocated": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"
../../config/samples/lint/profiles.yaml:3: ConfigMap team-settings: note: skipped: not an object of scheduling.profilescheduler.io
2 objects checked, 1 refused
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}

	out, _, err = run("-f", "../../config/samples/scheduling_v1alpha1_schedulerprofile_spread.yaml")
	if err != nil || out != "1 object checked, 0 refused\n" {
		t.Errorf("a profile that passes: %v\n%s", err, out)
	}
	if _, _, err := run(); err == nil || !strings.Contains(err.Error(), "lint needs -f") {
		t.Errorf("lint without -f: %v", err)
	}
	if _, _, err := run("-f", "no-such-file.yaml"); err == nil || errors.As(err, &code) {
		t.Errorf("a file that does not exist: %v, want an error printed", err)
	}
}
