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
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
)

// TestImageValues checks that the image is a value, as the README's custom
// build section uses it: repository, tag and pull policy reach the
// operator's container; the tag defaults to the chart's appVersion, which
// is what make image tags.
func TestImageValues(t *testing.T) {
	g := NewWithT(t)
	c := deployment(t, renderChart(t)).Spec.Template.Spec.Containers[0]
	g.Expect(c.Image).To(Equal("ghcr.io/profile-scheduler/profile-scheduler:0.1.0"))
	g.Expect(c.ImagePullPolicy).To(Equal(corev1.PullIfNotPresent))
	ref, err := exec.Command("make", "-s", "--no-print-directory", "-C", repoRoot(t), "image-ref").Output()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(strings.TrimSpace(string(ref))).To(Equal(c.Image), "the chart's default image is what make image tags")

	c = deployment(t, renderChart(t, "--set",
		"image.repository=registry.example.com/team/numericlabel-scheduler,image.tag=v0.3.1,image.pullPolicy=Always",
	)).Spec.Template.Spec.Containers[0]
	g.Expect(c.Image).To(Equal("registry.example.com/team/numericlabel-scheduler:v0.3.1"))
	g.Expect(c.ImagePullPolicy).To(Equal(corev1.PullAlways))
}

// ociLayout reads blobs of an OCI image layout.
type ociLayout string

type ociDescriptor struct {
	MediaType    string            `json:"mediaType"`
	ArtifactType string            `json:"artifactType"`
	Digest       string            `json:"digest"`
	Annotations  map[string]string `json:"annotations"`
	Platform     *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

type ociManifest struct {
	MediaType string          `json:"mediaType"`
	Config    ociDescriptor   `json:"config"`
	Layers    []ociDescriptor `json:"layers"`
	Manifests []ociDescriptor `json:"manifests"`
	Subject   *ociDescriptor  `json:"subject"`
}

func (l ociLayout) blob(t *testing.T, digest string, into any) []byte {
	t.Helper()
	algo, hex, _ := strings.Cut(digest, ":")
	data, err := os.ReadFile(filepath.Join(string(l), "blobs", algo, hex))
	if err != nil {
		t.Fatal(err)
	}
	if into != nil {
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatalf("%s: %v", digest, err)
		}
	}
	return data
}

// The image builder of make image (hack/image), run on a small main
// package for both platforms: an OCI layout holding one index named by
// the tag, an image per platform whose only file is /manager, run as the
// nonroot user with the OCI labels, and an SPDX SBOM per image, attached
// as its referrer and written beside the layout. Nothing is pushed: the
// tag's registry does not exist.
func TestImageBuilder(t *testing.T) {
	g := NewWithT(t)
	root := repoRoot(t)
	builder := filepath.Join(t.TempDir(), "image-builder")
	build := exec.Command("go", "build", "-o", builder, ".")
	build.Dir = filepath.Join(root, "hack", "image")
	out, err := build.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))

	dir := filepath.Join(t.TempDir(), "image")
	const tag = "registry.invalid/team/hello:1.2.3"
	run := exec.Command(builder, "-C", filepath.Join(root, "test"), "-main", "./chart/testdata/hello",
		"-tag", tag, "-version", "1.2.3", "-revision", "abc123", "-oci", dir)
	out, err = run.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	g.Expect(string(out)).To(ContainSubstring(tag + "@sha256:"))
	g.Expect(string(out)).NotTo(ContainSubstring("pushed"))

	l := ociLayout(dir)
	var top ociManifest
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(json.Unmarshal(data, &top)).To(Succeed())
	var index *ociDescriptor
	var sboms []ociDescriptor
	for i, m := range top.Manifests {
		switch {
		case m.Annotations["org.opencontainers.image.ref.name"] == tag:
			index = &top.Manifests[i]
		case strings.HasPrefix(m.Annotations["org.opencontainers.image.ref.name"], tag+"-sbom-"):
			sboms = append(sboms, m)
		}
	}
	g.Expect(index).NotTo(BeNil(), "an index named %s in %s", tag, data)
	g.Expect(index.MediaType).To(Equal("application/vnd.oci.image.index.v1+json"))
	var idx ociManifest
	l.blob(t, index.Digest, &idx)
	g.Expect(idx.Manifests).To(HaveLen(2))
	images := map[string]string{}
	for _, m := range idx.Manifests {
		g.Expect(m.Platform).NotTo(BeNil())
		images[m.Platform.OS+"/"+m.Platform.Architecture] = m.Digest

		var img ociManifest
		l.blob(t, m.Digest, &img)
		g.Expect(img.MediaType).To(Equal("application/vnd.oci.image.manifest.v1+json"))
		var cfg struct {
			OS           string `json:"os"`
			Architecture string `json:"architecture"`
			Config       struct {
				Entrypoint []string          `json:"Entrypoint"`
				User       string            `json:"User"`
				Labels     map[string]string `json:"Labels"`
			} `json:"config"`
		}
		l.blob(t, img.Config.Digest, &cfg)
		g.Expect(cfg.OS + "/" + cfg.Architecture).To(Equal(m.Platform.OS + "/" + m.Platform.Architecture))
		g.Expect(cfg.Config.Entrypoint).To(Equal([]string{"/manager"}))
		g.Expect(cfg.Config.User).To(Equal("65532:65532"), "non-root: distroless's nonroot user")
		g.Expect(cfg.Config.Labels).To(And(
			HaveKeyWithValue("org.opencontainers.image.version", "1.2.3"),
			HaveKeyWithValue("org.opencontainers.image.revision", "abc123"),
			HaveKeyWithValue("org.opencontainers.image.licenses", "Apache-2.0"),
			HaveKeyWithValue("org.opencontainers.image.source", "https://github.com/profile-scheduler/profile-scheduler"),
		))
		g.Expect(img.Layers).To(HaveLen(1))
		files := layerFiles(t, l.blob(t, img.Layers[0].Digest, nil), img.Layers[0].MediaType)
		g.Expect(files).To(Equal(map[string]int64{"manager": 0o755}), "the binary alone, executable by the nonroot user")
	}
	g.Expect(images).To(HaveKey("linux/amd64"))
	g.Expect(images).To(HaveKey("linux/arm64"))

	g.Expect(sboms).To(HaveLen(2))
	for _, s := range sboms {
		var art ociManifest
		l.blob(t, s.Digest, &art)
		g.Expect(art.Subject).NotTo(BeNil(), "the SBOM is a referrer of its image")
		g.Expect(images).To(ContainElement(art.Subject.Digest))
		g.Expect(art.Layers).To(HaveLen(1))
		g.Expect(art.Layers[0].MediaType).To(Equal("application/spdx+json"))
		var doc struct {
			SPDXVersion string `json:"spdxVersion"`
			Packages    []struct {
				Name    string `json:"name"`
				Version string `json:"versionInfo"`
			} `json:"packages"`
		}
		l.blob(t, art.Layers[0].Digest, &doc)
		g.Expect(doc.SPDXVersion).To(Equal("SPDX-2.3"))
		g.Expect(doc.Packages).To(ContainElement(And(HaveField("Name", "github.com/profile-scheduler/profile-scheduler/test"), HaveField("Version", "1.2.3"))))
		g.Expect(doc.Packages).To(ContainElement(HaveField("Name", "stdlib")))
	}
	for _, p := range []string{"linux-amd64", "linux-arm64"} {
		_, err := os.Stat(filepath.Join(dir+".sbom", p+".spdx.json"))
		g.Expect(err).NotTo(HaveOccurred())
	}
}

// layerFiles lists a layer's regular files with their modes.
func layerFiles(t *testing.T, data []byte, mediaType string) map[string]int64 {
	t.Helper()
	var r io.Reader = strings.NewReader(string(data))
	if strings.HasSuffix(mediaType, "+gzip") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	out := map[string]int64{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = h.Mode
	}
}
