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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/profile-scheduler/profile-scheduler/app"
)

// This binary's lint knows its plugin: the example's profile passes, and
// args its validator refuses are refused, naming the field; the operator
// built without the plugin (kubectl sp lint's plugins) refuses the profile
// for the plugin it does not have.
func TestLintWithOwnPlugins(t *testing.T) {
	lint := func(t *testing.T, opts []app.Option, file string) (string, error) {
		t.Helper()
		cmd := app.NewCommand(opts...)
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs([]string{"lint", "-f", file})
		err := cmd.Execute()
		return out.String(), err
	}
	profile := filepath.Join("..", "..", "profile.yaml")

	out, err := lint(t, options(), profile)
	if err != nil || out != "1 object checked, 0 refused\n" {
		t.Errorf("the example's profile: %v\n%s", err, out)
	}

	data, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, bytes.Replace(data, []byte("labelKey: example.com/cost"), []byte("labelKey: 'not a label key!'"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = lint(t, options(), bad)
	if err == nil || !strings.Contains(out, "refused: InvalidPluginArgs") || !strings.Contains(out, "spec.pluginConfig[0].args.labelKey") {
		t.Errorf("args the validator refuses: %v\n%s", err, out)
	}

	out, err = lint(t, nil, profile)
	if err == nil || !strings.Contains(out, "refused: UnknownPlugin") || !strings.Contains(out, "NumericLabel") {
		t.Errorf("without the plugin: %v\n%s", err, out)
	}
}
