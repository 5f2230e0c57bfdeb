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
	"testing"

	. "github.com/onsi/gomega"
)

func TestParsePage(t *testing.T) {
	g := NewWithT(t)
	page, err := ParsePage("# Title\n" +
		"<!-- docs-test: make run ARGS=--feature-gates=GenericWorkload=true -->\n" +
		"```sh\nmake run\n```\n" +
		"```console\n" +
		"$ kubectl get sp\n" +
		"NAME   READY\n" +
		"\n" +
		"$ kubectl apply -f - <<'YAML'\n" +
		"kind: SchedulerProfile\n" +
		"YAML\n" +
		"schedulerprofile/x created\n" +
		"$ kubectl sp what-if --profile spread \\\n" +
		"    --drain zone=a\n" +
		"```\n")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(page.RunArgs).To(Equal([]string{"--feature-gates=GenericWorkload=true"}))
	g.Expect(page.Steps).To(Equal([]Step{
		{Line: 7, Command: "kubectl get sp", Output: "NAME   READY\n\n", OutputLine: 8},
		{Line: 10, Command: "kubectl apply -f - <<'YAML'\nkind: SchedulerProfile\nYAML", Output: "schedulerprofile/x created\n", OutputLine: 13},
		{Line: 14, Command: "kubectl sp what-if --profile spread \\\n    --drain zone=a", OutputLine: 16},
	}))

	_, err = ParsePage("```console\nkubectl get sp\n```\n")
	g.Expect(err).To(MatchError(ContainSubstring(`starts with a "$ " command`)))
	_, err = ParsePage("<!-- docs-test: run -->\n")
	g.Expect(err).To(MatchError(ContainSubstring("unknown docs-test directive")))
	page, err = ParsePage("<!-- docs-test: skip -->\n")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(page.Skip).To(BeTrue())
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		name             string
		expected, actual string
		want             bool
	}{
		{"same", "a\nb\n", "a\nb", true},
		{"differs", "a\nb", "a\nc", false},
		{"a line more", "a", "a\nb", false},
		{"ages and columns", "NAME    AGE\nweb     5s\n", "NAME AGE\nweb  3m12s", true},
		{"generated names", "default/what-if-rvq8g-pods-0-9 Added", "default/what-if-7zz2k-pods-0-9 Added", true},
		{"ellipsis lines", "Pod: x\n...\nlast", "Pod: x\n1\n2\nlast", true},
		{"ellipsis lines, none", "Pod: x\n...\nlast", "Pod: x\nlast", true},
		{"ellipsis in a line", "error: ... less than 100", "error: spec.x: Invalid value: 150: less than 100", true},
		{"ellipsis keeps the rest", "error: ... less than 100", "error: spec.x: more than 100", false},
		{"no output", "", "", true},
		{"output where none is shown", "", "pod/web created", false},
		{"ips", "IP 10.0.0.1", "IP 127.0.0.1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Match(tc.expected, tc.actual); got != tc.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tc.expected, tc.actual, got, tc.want)
			}
		})
	}
}

func TestFill(t *testing.T) {
	g := NewWithT(t)
	text := "```console\n$ kubectl get sp\n...\n$ kubectl get pods\n...\n```\n"
	page, err := ParsePage(text)
	g.Expect(err).NotTo(HaveOccurred())
	filled := map[int]string{page.Steps[0].OutputLine: "NAME\nbin-packing", page.Steps[1].OutputLine: ""}
	g.Expect(Fill(text, filled)).To(Equal("```console\n$ kubectl get sp\nNAME\nbin-packing\n$ kubectl get pods\n```\n"))
}
