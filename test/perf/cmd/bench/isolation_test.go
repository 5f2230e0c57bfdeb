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
