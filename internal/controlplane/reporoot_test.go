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

package controlplane

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot finds the nearest go.mod but walks past the test module's, so a
// suite of test/ (its own module) reads config/ and builds from the
// repository's root; another module's go.mod (local mode from a user's
// module) is its root.
func TestRepoRootWalksPastTheTestModule(t *testing.T) {
	tmp := t.TempDir()
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module github.com/profile-scheduler/profile-scheduler\n")
	write("test/go.mod", "module "+testModule+"\n")
	write("test/perf/harness/x.go", "package harness\n")
	write("own/go.mod", "module example.com/own\n")
	write("own/cmd/x.go", "package main\n")
	for _, tc := range []struct{ wd, want string }{
		{".", "."},
		{"test", "."},
		{"test/perf/harness", "."},
		{"own/cmd", "own"},
	} {
		t.Chdir(filepath.Join(tmp, tc.wd))
		got, err := RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(tmp, tc.want); got != want {
			t.Errorf("from %s: RepoRoot() = %s, want %s", tc.wd, got, want)
		}
	}
}
