package testenv

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
	objs, err := decodeAll(data)
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

// decodeAll decodes every object of a multi-document YAML file.
func decodeAll(data []byte) ([]*unstructured.Unstructured, error) {
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
// static manifests from that directory. dir is where the
// AdmissionConfiguration is written.
func WithRoutesGuard(dir string) Option {
	return func(e *envtest.Environment) {
		root, err := RepoRoot()
		if err != nil {
			panic(fmt.Sprintf("routes guard: %v", err))
		}
		cfg := fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: ValidatingAdmissionPolicy
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: ValidatingAdmissionPolicyConfiguration
      staticManifestsDir: %s
`, filepath.Join(root, "config", "guard"))
		path := filepath.Join(dir, "admission-config.yaml")
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			panic(fmt.Sprintf("routes guard: %v", err))
		}
		WithAPIServerArg("admission-control-config-file", path)(e)
	}
}
