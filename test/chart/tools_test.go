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
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

const (
	// releaseName gives the objects the same names as config/default.
	releaseName = "profile-scheduler"
	// namespace is the one config/default installs into.
	namespace = "profile-scheduler-system"
)

// tool is a command-line tool built from a Go module that the test module
// (test/go.mod) pins.
type tool struct {
	name    string // binary name under bin/
	env     string // variable that overrides the path
	pkg     string // Go package to build
	ldflags func(modRoot string) (string, error)

	once sync.Once
	path string
	err  error
}

var (
	helmTool = &tool{name: "helm", env: "HELM", pkg: "helm.sh/helm/v3/cmd/helm", ldflags: func(modRoot string) (string, error) {
		v, err := moduleVersion(modRoot, "helm.sh/helm/v3")
		if err != nil {
			return "", err
		}
		return "-X helm.sh/helm/v3/internal/version.version=" + v, nil
	}}
	kustomizeTool = &tool{name: "kustomize", env: "KUSTOMIZE", pkg: "sigs.k8s.io/kustomize/kustomize/v5"}

	kubeVersionOnce sync.Once
	kubeVersion     string
	kubeVersionErr  error
)

// bin returns the tool's path: $ENV, else bin/<name>, else it builds it there
// once (what `make helm` and `make kustomize` do).
func (tl *tool) bin(t testing.TB) string {
	t.Helper()
	tl.once.Do(func() {
		if p := os.Getenv(tl.env); p != "" {
			tl.path = p
			return
		}
		root, err := controlplane.RepoRoot()
		if err != nil {
			tl.err = err
			return
		}
		p := filepath.Join(root, "bin", tl.name)
		if _, err := os.Stat(p); err == nil {
			tl.path = p
			return
		}
		modRoot, err := testenv.TestModuleRoot()
		if err != nil {
			tl.err = err
			return
		}
		args := []string{"build", "-o", p}
		if tl.ldflags != nil {
			fl, err := tl.ldflags(modRoot)
			if err != nil {
				tl.err = err
				return
			}
			args = append(args, "-ldflags", fl)
		}
		cmd := exec.Command("go", append(args, tl.pkg)...)
		cmd.Dir = modRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			tl.err = fmt.Errorf("building %s: %v\n%s", tl.pkg, err, out)
			return
		}
		tl.path = p
	})
	if tl.err != nil {
		t.Fatal(tl.err)
	}
	return tl.path
}

func moduleVersion(root, mod string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", mod)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", mod, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// targetKubeVersion is the Kubernetes version go.mod pins; helm checks the
// chart's kubeVersion and deprecated APIs against it.
func targetKubeVersion(t testing.TB) string {
	t.Helper()
	kubeVersionOnce.Do(func() {
		root, err := controlplane.RepoRoot()
		if err != nil {
			kubeVersionErr = err
			return
		}
		kubeVersion, kubeVersionErr = moduleVersion(root, "k8s.io/kubernetes")
	})
	if kubeVersionErr != nil {
		t.Fatal(kubeVersionErr)
	}
	return kubeVersion
}

func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func chartDir(t testing.TB) string {
	return filepath.Join(repoRoot(t), "charts", "profile-scheduler")
}

// run runs a tool from the repository root and returns its standard output.
func run(t testing.TB, bin string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = repoRoot(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s %s: %w\n%s%s", filepath.Base(bin), strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes(), nil
}

// helm runs the helm binary against the pinned Kubernetes version.
func helm(t testing.TB, args ...string) ([]byte, error) {
	t.Helper()
	return run(t, helmTool.bin(t), append(args, "--kube-version", targetKubeVersion(t))...)
}

// mutatingAdmissionPolicyV1 is the capability the chart's routes policy
// needs. helm template's default capabilities lack it, where a cluster of
// the targeted version (1.36 and later) serves it: renderChart passes it
// as that cluster's discovery would.
const mutatingAdmissionPolicyV1 = "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy"

// renderChart runs helm template for the release the tests install, on a
// cluster that serves MutatingAdmissionPolicy v1, with extra flags such as
// --set, and returns the objects.
func renderChart(t testing.TB, extra ...string) []*unstructured.Unstructured {
	t.Helper()
	return renderChartWithout(t, append([]string{"--api-versions", mutatingAdmissionPolicyV1}, extra...)...)
}

// renderChartWithout renders the chart with helm's default capabilities
// only (no MutatingAdmissionPolicy v1), with extra flags.
func renderChartWithout(t testing.TB, extra ...string) []*unstructured.Unstructured {
	t.Helper()
	args := append([]string{"template", releaseName, chartDir(t), "--namespace", namespace}, extra...)
	out, err := helm(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decode(out)
	if err != nil {
		t.Fatalf("decoding helm template output: %v", err)
	}
	return objs
}

// renderKustomize runs kustomize build on a directory under config/.
func renderKustomize(t testing.TB, dir string) []*unstructured.Unstructured {
	t.Helper()
	out, err := run(t, kustomizeTool.bin(t), "build", filepath.Join(repoRoot(t), "config", dir))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decode(out)
	if err != nil {
		t.Fatalf("decoding kustomize output: %v", err)
	}
	return objs
}

// decode splits a multi-document YAML stream into objects, skipping empty
// documents.
func decode(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, fmt.Errorf("document without apiVersion or kind: %v", m)
		}
		objs = append(objs, u)
	}
}

// key names an object as Kind/namespace/name.
func key(u *unstructured.Unstructured) string {
	return u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
}

func keys(objs []*unstructured.Unstructured) []string {
	ks := make([]string, 0, len(objs))
	for _, o := range objs {
		ks = append(ks, key(o))
	}
	sort.Strings(ks)
	return ks
}

func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}
