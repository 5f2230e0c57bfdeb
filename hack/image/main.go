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

// Command image builds the operator's OCI image without a container
// engine, from Go modules only, as ko does: the main package is built for
// each platform (CGO off, trimmed paths), put alone on an empty base at
// /manager, run as the distroless nonroot user (65532), and the images
// gathered in one index, written to an OCI image layout. Each platform's
// image carries an SPDX 2.3 SBOM of the Go modules linked into its binary
// (from the binary's build information), attached to it as an OCI 1.1
// referrer in the layout and written beside it. It pushes nothing unless
// -push is given; then it pushes the index, its images and the SBOMs to
// -tag's registry with the credentials of the Docker config.
//
//	go run ./hack/image -main . -tag ghcr.io/profile-scheduler/profile-scheduler:0.1.0 -version 0.1.0 -oci bin/dist/image
//
// `make image` runs it.
package main

import (
	"archive/tar"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// nonroot is distroless's nonroot user and group.
const nonroot = "65532:65532"

// sbomType is the media type of an SPDX JSON document.
const sbomType = "application/spdx+json"

type options struct {
	repo, main, tag, version, revision, source, out, ldflags string
	platforms                                                []string
	push                                                     bool
	created                                                  time.Time
}

func main() {
	var o options
	var platforms string
	flag.StringVar(&o.repo, "C", ".", "The repository root (the module the main package is in).")
	flag.StringVar(&o.main, "main", ".", "The main package to build, relative to -C: the operator, or a binary with its own plugins.")
	flag.StringVar(&o.tag, "tag", "", "The image reference (registry/repository:tag) the index is named and, with -push, pushed as.")
	flag.StringVar(&o.version, "version", "", "The version the binary reports (app.version) and the image's labels carry.")
	flag.StringVar(&o.revision, "revision", "", "The source revision of the image's labels (a commit).")
	flag.StringVar(&o.source, "source", "https://github.com/profile-scheduler/profile-scheduler", "The source repository of the image's labels.")
	flag.StringVar(&o.out, "oci", "", "The directory of the OCI image layout written (replaced).")
	flag.StringVar(&o.ldflags, "ldflags", "", "More -ldflags for go build.")
	flag.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", "The platforms, comma-separated.")
	flag.BoolVar(&o.push, "push", false, "Push the index, its images and SBOMs to -tag's registry.")
	flag.Parse()
	o.platforms = strings.Split(platforms, ",")
	o.created = sourceDate()
	if o.tag == "" || o.out == "" || o.version == "" {
		log.Fatal("image: -tag, -version and -oci are required")
	}
	if err := build(context.Background(), o); err != nil {
		log.Fatalf("image: %v", err)
	}
}

// sourceDate is $SOURCE_DATE_EPOCH, for reproducible images, else the
// Unix epoch, as ko does.
func sourceDate() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		var sec int64
		if _, err := fmt.Sscan(s, &sec); err == nil {
			return time.Unix(sec, 0).UTC()
		}
	}
	return time.Unix(0, 0).UTC()
}

func build(ctx context.Context, o options) error {
	ref, err := name.ParseReference(o.tag)
	if err != nil {
		return fmt.Errorf("-tag: %w", err)
	}
	tmp, err := os.MkdirTemp("", "image-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()

	var idx v1.ImageIndex = empty.Index
	idx = mutate.IndexMediaType(idx, types.OCIImageIndex)
	type sbom struct {
		img      v1.Image
		platform string
	}
	var sboms []sbom
	for _, p := range o.platforms {
		osName, arch, ok := strings.Cut(p, "/")
		if !ok {
			return fmt.Errorf("platform %q is not OS/ARCH", p)
		}
		bin := filepath.Join(tmp, "manager-"+osName+"-"+arch)
		if err := goBuild(o, osName, arch, bin); err != nil {
			return err
		}
		img, err := image(o, osName, arch, bin)
		if err != nil {
			return err
		}
		doc, err := spdx(o, ref, bin, p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(o.out+".sbom", 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.out+".sbom", osName+"-"+arch+".spdx.json"), doc, 0o644); err != nil {
			return err
		}
		s, err := attach(img, doc)
		if err != nil {
			return err
		}
		sboms = append(sboms, sbom{img: s, platform: p})
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: osName, Architecture: arch}},
		})
	}
	idx = mutate.Annotations(idx, map[string]string{
		"org.opencontainers.image.ref.name": ref.String(),
	}).(v1.ImageIndex)

	if err := os.RemoveAll(o.out); err != nil {
		return err
	}
	lp, err := layout.Write(o.out, empty.Index)
	if err != nil {
		return err
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref.String()})); err != nil {
		return err
	}
	for _, s := range sboms {
		if err := lp.AppendImage(s.img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref.String() + "-sbom-" + strings.ReplaceAll(s.platform, "/", "-")})); err != nil {
			return err
		}
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s@%s: %s, in %s (SBOMs in %s.sbom)\n", ref, d, strings.Join(o.platforms, ", "), o.out, o.out)
	if !o.push {
		return nil
	}
	auth := remote.WithAuthFromKeychain(authn.DefaultKeychain)
	if err := remote.WriteIndex(ref, idx, auth, remote.WithContext(ctx)); err != nil {
		return fmt.Errorf("pushing %s: %w", ref, err)
	}
	for _, s := range sboms {
		sd, err := s.img.Digest()
		if err != nil {
			return err
		}
		if err := remote.Write(ref.Context().Digest(sd.String()), s.img, auth, remote.WithContext(ctx)); err != nil {
			return fmt.Errorf("pushing the SBOM of %s: %w", s.platform, err)
		}
	}
	fmt.Printf("pushed %s@%s\n", ref, d)
	return nil
}

// goBuild builds the main package for one platform into bin.
func goBuild(o options, osName, arch, bin string) error {
	ldflags := "-s -w -X github.com/profile-scheduler/profile-scheduler/app.version=" + o.version
	if o.ldflags != "" {
		ldflags += " " + o.ldflags
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, o.main)
	cmd.Dir = o.repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+osName, "GOARCH="+arch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s for %s/%s: %w", o.main, osName, arch, err)
	}
	return nil
}

// image is bin alone at /manager on an empty base, run as nonroot.
func image(o options, osName, arch, bin string) (v1.Image, error) {
	layerTar := bin + ".tar"
	if err := binaryTar(bin, layerTar, o.created); err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromFile(layerTar, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: o.created}, CreatedBy: "go build " + o.main, Comment: "the operator's binary at /manager",
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = osName, arch
	cf.Created = v1.Time{Time: o.created}
	cf.Author = "github.com/profile-scheduler/profile-scheduler"
	cf.Config.Entrypoint = []string{"/manager"}
	cf.Config.User = nonroot
	cf.Config.WorkingDir = "/"
	cf.Config.Labels = labels(o)
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, labels(o)).(v1.Image), nil
}

// labels are the image's OCI labels (and manifest annotations).
func labels(o options) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       "profile-scheduler",
		"org.opencontainers.image.description": "Kubernetes operator that runs SchedulerProfiles as live, hot-swapped scheduling-framework profiles",
		"org.opencontainers.image.version":     o.version,
		"org.opencontainers.image.source":      o.source,
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.created":     o.created.Format(time.RFC3339),
	}
	if o.revision != "" {
		l["org.opencontainers.image.revision"] = o.revision
	}
	return l
}

// binaryTar writes a tar holding bin as /manager, owned by root and
// executable by all, dated mtime.
func binaryTar(bin, out string, mtime time.Time) error {
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	hdr := &tar.Header{Name: "manager", Mode: 0o755, Size: int64(len(data)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if _, err := tw.Write(data); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// spdx is an SPDX 2.3 JSON document of the binary's Go modules, as its
// build information records them.
func spdx(o options, ref name.Reference, bin, platform string) ([]byte, error) {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("reading the build information of %s: %w", bin, err)
	}
	type ext struct {
		Category string `json:"referenceCategory"`
		Type     string `json:"referenceType"`
		Locator  string `json:"referenceLocator"`
	}
	type checksum struct {
		Algorithm string `json:"algorithm"`
		Value     string `json:"checksumValue"`
	}
	type pkg struct {
		ID               string     `json:"SPDXID"`
		Name             string     `json:"name"`
		Version          string     `json:"versionInfo"`
		Supplier         string     `json:"supplier"`
		DownloadLocation string     `json:"downloadLocation"`
		FilesAnalyzed    bool       `json:"filesAnalyzed"`
		LicenseConcluded string     `json:"licenseConcluded"`
		LicenseDeclared  string     `json:"licenseDeclared"`
		CopyrightText    string     `json:"copyrightText"`
		Checksums        []checksum `json:"checksums,omitempty"`
		ExternalRefs     []ext      `json:"externalRefs"`
	}
	type rel struct {
		Element string `json:"spdxElementId"`
		Type    string `json:"relationshipType"`
		Related string `json:"relatedSpdxElement"`
	}
	id := func(path string) string {
		return "SPDXRef-Package-" + strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
				return r
			}
			return '-'
		}, path)
	}
	goPkg := func(path, version string) pkg {
		return pkg{
			ID: id(path), Name: path, Version: version, Supplier: "NOASSERTION",
			DownloadLocation: "https://proxy.golang.org/" + path + "/@v/" + version + ".zip",
			LicenseConcluded: "NOASSERTION", LicenseDeclared: "NOASSERTION", CopyrightText: "NOASSERTION",
			ExternalRefs: []ext{{"PACKAGE-MANAGER", "purl", "pkg:golang/" + path + "@" + version}},
		}
	}
	main := goPkg(bi.Main.Path, o.version)
	main.DownloadLocation, main.LicenseDeclared = o.source, "Apache-2.0"
	main.ExternalRefs = []ext{{"PACKAGE-MANAGER", "purl", "pkg:golang/" + bi.Main.Path + "@" + o.version}}
	stdlib := goPkg("stdlib", bi.GoVersion)
	stdlib.DownloadLocation = "https://go.dev/dl/"
	stdlib.LicenseDeclared = "BSD-3-Clause"
	pkgs := []pkg{main, stdlib}
	rels := []rel{{"SPDXRef-DOCUMENT", "DESCRIBES", main.ID}, {main.ID, "DEPENDS_ON", stdlib.ID}}
	for _, d := range bi.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		p := goPkg(m.Path, m.Version)
		if m.Sum != "" {
			p.Checksums = nil // a go.sum hash is not one of SPDX's algorithms; the purl names the version
		}
		pkgs = append(pkgs, p)
		rels = append(rels, rel{main.ID, "DEPENDS_ON", p.ID})
	}
	doc := map[string]any{
		"spdxVersion":       "SPDX-2.3",
		"dataLicense":       "CC0-1.0",
		"SPDXID":            "SPDXRef-DOCUMENT",
		"name":              ref.Context().String() + " " + platform,
		"documentNamespace": o.source + "/spdx/" + o.version + "/" + strings.ReplaceAll(platform, "/", "-"),
		"creationInfo": map[string]any{
			"created":  o.created.Format(time.RFC3339),
			"creators": []string{"Tool: profile-scheduler hack/image", "Organization: profile-scheduler"},
		},
		"documentDescribes": []string{main.ID},
		"packages":          pkgs,
		"relationships":     rels,
	}
	return json.MarshalIndent(doc, "", "  ")
}

// attach makes doc an OCI 1.1 artifact whose subject is img: the SBOM a
// registry lists among img's referrers.
func attach(img v1.Image, doc []byte) (v1.Image, error) {
	desc, err := partial.Descriptor(img)
	if err != nil {
		return nil, err
	}
	art := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.MediaType("application/vnd.oci.empty.v1+json"))
	art, err = mutate.Append(art, mutate.Addendum{Layer: static.NewLayer(doc, types.MediaType(sbomType))})
	if err != nil {
		return nil, err
	}
	art = mutate.Annotations(art, map[string]string{"org.opencontainers.image.created": time.Unix(0, 0).UTC().Format(time.RFC3339)}).(v1.Image)
	return mutate.Subject(art, *desc).(v1.Image), nil
}
