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

package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/config"
)

// InstallRoutesPolicy creates the inert routes MutatingAdmissionPolicy
// and binding of config/routes, as the chart and config/default do: the
// operator only updates them. An object that exists is left alone.
func InstallRoutesPolicy(ctx context.Context, c client.Client) error {
	data, err := config.RoutesPolicy.ReadFile("routes/routes_policy.yaml")
	if err != nil {
		return err
	}
	objs, err := DecodeAll(data)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

// DecodeAll decodes every object of a multi-document YAML (or JSON) file;
// empty documents are skipped.
func DecodeAll(data []byte) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
}

// WithRoutesGuard makes kube-apiserver load the routes guard
// (config/guard, a ValidatingAdmissionPolicy as a static manifest) the way
// the chart README tells a cluster administrator to: an
// AdmissionConfiguration whose ValidatingAdmissionPolicy plugin reads
// static manifests from a directory. Both are written under dir, with the
// guard's files and extra, more static manifests (a test's own).
func WithRoutesGuard(dir string, extra ...string) Option {
	return func(e *envtest.Environment) {
		if err := writeGuard(dir, extra); err != nil {
			panic(fmt.Sprintf("routes guard: %v", err))
		}
		WithAPIServerArg("admission-control-config-file", filepath.Join(dir, "admission-config.yaml"))(e)
	}
}

func writeGuard(dir string, extra []string) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	manifests := filepath.Join(dir, "static-admission")
	if err := os.MkdirAll(manifests, 0o700); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(root, "config", "guard", "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no manifest in %s", filepath.Join(root, "config", "guard"))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(manifests, filepath.Base(f)), data, 0o600); err != nil {
			return err
		}
	}
	for i, m := range extra {
		if err := os.WriteFile(filepath.Join(manifests, fmt.Sprintf("extra-%d.yaml", i)), []byte(m), 0o600); err != nil {
			return err
		}
	}
	cfg := fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: ValidatingAdmissionPolicy
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: ValidatingAdmissionPolicyConfiguration
      staticManifestsDir: %s
`, manifests)
	return os.WriteFile(filepath.Join(dir, "admission-config.yaml"), []byte(cfg), 0o600)
}
