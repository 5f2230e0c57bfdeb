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
	"fmt"
	"regexp"
	"strings"
)

// Step is one command of a console block and the output the page shows.
type Step struct {
	// Line is the command's first line in the page, 1-based.
	Line int
	// Command is the shell text after "$ ", continuation lines included.
	Command string
	// Output is the expected output, as written.
	Output string
	// OutputLine is the line of the page where Output starts.
	OutputLine int
}

// Page is what a page asks of the test: its steps in order and the
// arguments of its `make run`.
type Page struct {
	Steps []Step
	// RunArgs are the operator flags of the page's `make run ARGS=...`.
	RunArgs []string
	// Skip is set by <!-- docs-test: skip -->.
	Skip bool
}

// directive is the HTML comment a page uses to speak to the test.
var directive = regexp.MustCompile(`^<!--\s*docs-test:\s*(.*?)\s*-->$`)

// heredoc finds the delimiter of a here document opened on a line.
var heredoc = regexp.MustCompile(`<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?`)

// ParsePage reads the console blocks and directives of a Markdown page.
func ParsePage(text string) (Page, error) {
	var page Page
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := directive.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			switch arg := m[1]; {
			case arg == "skip":
				page.Skip = true
			case strings.HasPrefix(arg, "make run"):
				args := strings.TrimSpace(strings.TrimPrefix(arg, "make run"))
				if args != "" {
					if !strings.HasPrefix(args, "ARGS=") {
						return page, fmt.Errorf("line %d: want make run ARGS=..., got %q", i+1, arg)
					}
					page.RunArgs = strings.Fields(strings.TrimPrefix(args, "ARGS="))
				}
			default:
				return page, fmt.Errorf("line %d: unknown docs-test directive %q", i+1, arg)
			}
			continue
		}
		fence, info, ok := fenceOpen(line)
		if !ok {
			continue
		}
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != fence {
			end++
		}
		if end == len(lines) {
			return page, fmt.Errorf("line %d: the block opened here is not closed", i+1)
		}
		if info == "console" {
			// A block indented in a list item: its lines carry the
			// fence's indentation.
			indent := len(line) - len(strings.TrimLeft(line, " "))
			body := make([]string, 0, end-i-1)
			for _, l := range lines[i+1 : end] {
				body = append(body, strings.TrimPrefix(l, strings.Repeat(" ", indent)))
			}
			steps, err := parseConsole(body, i+2)
			if err != nil {
				return page, err
			}
			page.Steps = append(page.Steps, steps...)
		}
		i = end
	}
	return page, nil
}

// fenceOpen reports whether line opens a fenced block, with its fence and
// the first word of its info string.
func fenceOpen(line string) (fence, info string, ok bool) {
	trimmed := strings.TrimLeft(line, " ")
	for _, f := range []string{"````", "```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			rest := strings.TrimSpace(strings.TrimLeft(trimmed, f[:1]))
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, f[:1]))]
			info, _, _ = strings.Cut(rest, " ")
			return fence, info, true
		}
	}
	return "", "", false
}

// parseConsole splits a console block into commands and their output;
// first is the page line of the block's first line.
func parseConsole(lines []string, first int) ([]Step, error) {
	var steps []Step
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, "$ ") {
			if len(steps) == 0 && strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("line %d: a console block starts with a \"$ \" command", first+i)
			}
			if len(steps) > 0 {
				steps[len(steps)-1].Output += line + "\n"
			}
			continue
		}
		step := Step{Line: first + i, Command: strings.TrimPrefix(line, "$ ")}
		// A trailing backslash continues the command; a here document
		// runs to its delimiter.
		for strings.HasSuffix(step.Command, "\\") && i+1 < len(lines) {
			i++
			step.Command += "\n" + lines[i]
		}
		if m := heredoc.FindStringSubmatch(step.Command); m != nil {
			for {
				i++
				if i == len(lines) {
					return nil, fmt.Errorf("line %d: here document %s is not closed", step.Line, m[1])
				}
				step.Command += "\n" + lines[i]
				if strings.TrimSpace(lines[i]) == m[1] {
					break
				}
			}
		}
		step.OutputLine = first + i + 1
		steps = append(steps, step)
	}
	return steps, nil
}

// Normalizers rewrite what differs from one run to the next.
var normalizers = []struct {
	re   *regexp.Regexp
	repl string
}{
	// Timestamps before durations, which they contain.
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`), "<time>"},
	{regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b`), "<ip>"},
	// Generated names: GenerateName's five characters.
	{regexp.MustCompile(`\b(explain|what-if)-[a-z0-9]{5}\b`), "$1-xxxxx"},
	// Ages and durations: 5s, 2m3s, 150ms, 1.5s, 3d4h, <invalid>.
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|µs|s|m|h|d)(\d+(\.\d+)?(ms|s|m|h))*\b|<invalid>`), "<t>"},
	{regexp.MustCompile(`[ \t]+`), " "},
}

// Normalize rewrites output so that two runs of the same command compare
// equal: see the package documentation.
func Normalize(s string) string {
	for _, n := range normalizers {
		s = n.re.ReplaceAllString(s, n.repl)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// ellipsis stands for any text in an expected output.
const ellipsis = "..."

// Match reports whether actual is what expected shows, both normalized;
// "..." alone on a line stands for any lines, within a line for any text.
func Match(expected, actual string) bool {
	exp := strings.Split(Normalize(expected), "\n")
	act := strings.Split(Normalize(actual), "\n")
	if Normalize(expected) == "" {
		exp = nil
	}
	if Normalize(actual) == "" {
		act = nil
	}
	patterns := make([]*regexp.Regexp, len(exp))
	for i, e := range exp {
		if e == ellipsis {
			continue
		}
		parts := strings.Split(e, ellipsis)
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		patterns[i] = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	}
	// match[i][j]: exp[i:] matches act[j:].
	memo := map[[2]int]bool{}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		var ok bool
		switch {
		case i == len(exp):
			ok = j == len(act)
		case patterns[i] == nil:
			ok = match(i+1, j) || (j < len(act) && match(i, j+1))
		default:
			ok = j < len(act) && patterns[i].MatchString(act[j]) && match(i+1, j+1)
		}
		memo[key] = ok
		return ok
	}
	return match(0, 0)
}

// Fill writes, in text, each output of filled (by the line where the step's
// output starts) in place of its lone "..." line.
func Fill(text string, filled map[int]string) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i, line := range lines {
		if got, ok := filled[i+1]; ok && strings.TrimSpace(line) == ellipsis {
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			if got != "" {
				for _, l := range strings.Split(got, "\n") {
					out = append(out, strings.TrimRight(indent+l, " "))
				}
			}
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
