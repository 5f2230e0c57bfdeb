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
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The one-loop row runs only where the operator lists --profile-loops,
// whatever -h exits with.
func TestHasFlag(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "operator")
	script := "#!/bin/sh\necho 'Usage of operator:'\necho '      --profile-loops   one scheduling loop per profile (default true)'\nexit 2\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !hasFlag(ctx, bin, "--profile-loops") {
		t.Error("--profile-loops not found in the usage that lists it")
	}
	if hasFlag(ctx, bin, "--bind-arbiter") {
		t.Error("--bind-arbiter found in a usage without it")
	}
	if hasFlag(ctx, filepath.Join(t.TempDir(), "missing"), "--profile-loops") {
		t.Error("a missing binary has the flag")
	}
}
