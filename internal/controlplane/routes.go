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

// InstallRoutesPolicy creates the routes program of config/routes (its
// MutatingAdmissionPolicy and binding), as the chart and config/default
// do: the operator writes only their parameter, the RoutingTable. An
// object that exists is left alone.
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

// WithStaticAdmission makes kube-apiserver load admission policies from
// static manifests (ManifestBasedAdmissionControlConfig), as a cluster
// administrator installs policies that guard admission objects: an
// AdmissionConfiguration whose ValidatingAdmissionPolicy plugin reads
// the manifests from a directory. Both are written under dir.
func WithStaticAdmission(dir string, manifests ...string) Option {
	return func(e *envtest.Environment) {
		if err := writeStaticAdmission(dir, manifests); err != nil {
			panic(fmt.Sprintf("static admission manifests: %v", err))
		}
		WithAPIServerArg("admission-control-config-file", filepath.Join(dir, "admission-config.yaml"))(e)
	}
}

func writeStaticAdmission(dir string, manifests []string) error {
	path := filepath.Join(dir, "static-admission")
	if err := os.MkdirAll(path, 0o700); err != nil {
		return err
	}
	for i, m := range manifests {
		if err := os.WriteFile(filepath.Join(path, fmt.Sprintf("manifest-%d.yaml", i)), []byte(m), 0o600); err != nil {
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
`, path)
	return os.WriteFile(filepath.Join(dir, "admission-config.yaml"), []byte(cfg), 0o600)
}
