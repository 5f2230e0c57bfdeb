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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// TestDockerfile checks what can be checked without a container engine: the
// image is distroless and non-root, and the builder stage copies every
// directory of the repository that the operator binary, and the example
// binary with an out-of-tree plugin (--build-arg MAIN=...), are built from,
// none of which .dockerignore drops.
func TestDockerfile(t *testing.T) {
	g := NewWithT(t)
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	g.Expect(err).NotTo(HaveOccurred())

	var from, copies []string
	var user, entrypoint string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch strings.ToUpper(f[0]) {
		case "FROM":
			from = append(from, f[1])
		case "COPY":
			if !strings.HasPrefix(f[1], "--from=") {
				copies = append(copies, strings.TrimSuffix(f[1], "/"))
			}
		case "USER":
			user = f[1]
		case "ENTRYPOINT":
			entrypoint = strings.Join(f[1:], " ")
		}
	}
	g.Expect(from).To(HaveLen(2), "a builder and a runtime stage")
	g.Expect(from[0]).To(HavePrefix("golang:1.26"))
	g.Expect(from[1]).To(Equal("gcr.io/distroless/static:nonroot"))
	g.Expect(user).To(Equal("65532:65532"))
	g.Expect(entrypoint).To(Equal(`["/manager"]`))
	g.Expect(copies).To(ContainElements("go.mod", "go.sum", "main.go"))

	g.Expect(string(data)).To(ContainSubstring("ARG MAIN=."))
	g.Expect(string(data)).To(ContainSubstring("go build -a -o manager ${MAIN}"))

	cmd := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}",
		".", "./examples/numericlabel/cmd/numericlabel-scheduler")
	cmd.Dir = root
	out, err := cmd.Output()
	g.Expect(err).NotTo(HaveOccurred())
	needed := map[string]bool{}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		g.Expect(err).NotTo(HaveOccurred())
		if rel != "." {
			needed[strings.Split(rel, string(filepath.Separator))[0]] = true
		}
	}
	g.Expect(needed).NotTo(BeEmpty())
	for dir := range needed {
		g.Expect(copies).To(ContainElement(dir), "the Dockerfile does not COPY %s/, which the operator is built from", dir)
	}

	ignore, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, line := range strings.Split(string(ignore), "\n") {
		line = strings.TrimSuffix(strings.TrimSpace(line), "/")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, c := range copies {
			matched, err := filepath.Match(line, c)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(matched || line == c).To(BeFalse(), ".dockerignore drops %s, which the Dockerfile copies", c)
		}
	}
}
