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

package chart

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readme returns the chart README.
func readme(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(chartDir(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section returns the README text from the heading line that starts with
// heading up to the next heading of the same or a higher level.
func section(t testing.TB, doc, heading string) string {
	t.Helper()
	level := strings.Index(heading, " ")
	var out []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if in && strings.HasPrefix(line, "#") {
			l := strings.Index(line, " ")
			if l > 0 && l <= level && strings.Trim(line[:l], "#") == "" {
				break
			}
		}
		if strings.HasPrefix(line, heading) {
			in = true
		}
		if in {
			out = append(out, line)
		}
	}
	if !in {
		t.Fatalf("README has no section %q", heading)
	}
	return strings.Join(out, "\n")
}

// tableRows returns the cells of every body row of the first Markdown table
// in text (the header and separator rows are dropped).
func tableRows(t testing.TB, text string) [][]string {
	t.Helper()
	var rows [][]string
	seen := 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if seen > 0 {
				break
			}
			continue
		}
		seen++
		if seen <= 2 { // header and ---
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatal("no table rows found")
	}
	return rows
}

// list splits a cell such as "`pods`, `nodes`" into its items, unquoted.
// "core" names the core API group, written "" in RBAC rules.
func list(cell string) []string {
	var out []string
	for _, it := range strings.Split(cell, ",") {
		it = strings.Trim(strings.TrimSpace(it), "`")
		if it == "" {
			continue
		}
		if it == "core" {
			it = ""
		}
		out = append(out, it)
	}
	return out
}

// fencedBlocks returns the bodies of the README's ```lang code blocks.
func fencedBlocks(doc, lang string) []string {
	var blocks []string
	var cur *bytes.Buffer
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```"+lang:
			cur = &bytes.Buffer{}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			fmt.Fprintln(cur, line)
		}
	}
	return blocks
}
