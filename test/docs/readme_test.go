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

package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxReadmeLines keeps the README a front door: what, why, set-up,
// install, a walkthrough and links; the rest goes to docs/.
const maxReadmeLines = 250

func TestReadmeIsAFrontDoor(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move detail to a page under docs/", n, maxReadmeLines)
	}
	for _, section := range []string{"## Set up", "## Install in a cluster", "## A five-minute walkthrough", "## What it does"} {
		if !strings.Contains(text, "\n"+section+"\n") {
			t.Errorf("README.md has no section %q", section)
		}
	}
}
