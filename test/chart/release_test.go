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
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"
)

// make release's kubectl-sp step (hack/kubectl-sp-release.sh), with a
// stand-in for go build that writes a small file: an archive per platform
// holding kubectl-sp and LICENSE, their SHA-256 sums, and a krew manifest
// whose platforms name each archive with its sum.
func TestKubectlSpReleaseArtifacts(t *testing.T) {
	g := NewWithT(t)
	root := repoRoot(t)
	tmp := t.TempDir()
	fakeGo := filepath.Join(tmp, "go")
	g.Expect(os.WriteFile(fakeGo, []byte(`#!/bin/sh
# go build ... -o OUT PKG: OUT gets the platform and the flags it was built with.
while [ $# -gt 0 ]; do
  case "$1" in -o) out=$2; shift ;; -ldflags) flags=$2; shift ;; esac
  shift
done
echo "$GOOS/$GOARCH $flags" > "$out"
`), 0o755)).To(Succeed())
	dist := filepath.Join(tmp, "dist")
	cmd := exec.Command(filepath.Join(root, "hack", "kubectl-sp-release.sh"), dist, "1.2.3", "abc123", "linux/amd64", "darwin/arm64")
	cmd.Env = append(os.Environ(), "GO="+fakeGo)
	out, err := cmd.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))

	var manifest struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Version          string `json:"version"`
			Homepage         string `json:"homepage"`
			ShortDescription string `json:"shortDescription"`
			Description      string `json:"description"`
			Platforms        []struct {
				Selector struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"selector"`
				URI    string `json:"uri"`
				SHA256 string `json:"sha256"`
				Bin    string `json:"bin"`
			} `json:"platforms"`
		} `json:"spec"`
	}
	data, err := os.ReadFile(filepath.Join(dist, "sp.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(yaml.UnmarshalStrict(data, &manifest)).To(Succeed(), string(data))
	g.Expect(manifest.APIVersion).To(Equal("krew.googlecontainertools.github.com/v1alpha2"))
	g.Expect(manifest.Kind).To(Equal("Plugin"))
	g.Expect(manifest.Metadata.Name).To(Equal("sp"))
	g.Expect(manifest.Spec.Version).To(Equal("v1.2.3"))
	g.Expect(manifest.Spec.Homepage).To(Equal("https://github.com/profile-scheduler/profile-scheduler"))
	g.Expect(manifest.Spec.ShortDescription).NotTo(BeEmpty())
	g.Expect(manifest.Spec.Description).To(ContainSubstring("kubectl sp"))
	g.Expect(manifest.Spec.Platforms).To(HaveLen(2))

	sums, err := os.ReadFile(filepath.Join(dist, "kubectl-sp_v1.2.3_checksums.txt"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, p := range manifest.Spec.Platforms {
		osName, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		archive := "kubectl-sp_v1.2.3_" + osName + "_" + arch + ".tar.gz"
		g.Expect(p.URI).To(Equal("https://github.com/profile-scheduler/profile-scheduler/releases/download/v1.2.3/" + archive))
		g.Expect(p.Bin).To(Equal("kubectl-sp"))
		a, err := os.ReadFile(filepath.Join(dist, archive))
		g.Expect(err).NotTo(HaveOccurred())
		sum := sha256.Sum256(a)
		g.Expect(p.SHA256).To(Equal(hex.EncodeToString(sum[:])))
		g.Expect(string(sums)).To(ContainSubstring(p.SHA256 + "  " + archive + "\n"))

		files := archiveFiles(t, a)
		g.Expect(files).To(HaveKey("LICENSE"))
		g.Expect(files["kubectl-sp"]).To(Equal(osName + "/" + arch + " -s -w -X main.version=v1.2.3 -X main.gitCommit=abc123\n"))
	}
	g.Expect(manifest.Spec.Platforms[0].Selector.MatchLabels).To(Equal(map[string]string{"os": "linux", "arch": "amd64"}))
}

// archiveFiles reads a .tar.gz into its files' contents.
func archiveFiles(t *testing.T, data []byte) map[string]string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = string(b)
	}
}
