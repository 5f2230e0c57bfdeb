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
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/modfile"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// assetsEnv is the variable that overrides where the binaries are found.
const assetsEnv = "KUBEBUILDER_ASSETS"

// testModule is the module of the test tooling (test/go.mod), whose
// go.mod RepoRoot walks past.
const testModule = "github.com/profile-scheduler/profile-scheduler/test"

// RepoRoot walks up from the working directory to the directory holding
// go.mod, past the test module's (test/go.mod): a suite of either module sees
// the repository's root.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modfile.ModulePath(data) != testModule {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// assetsDir returns the directory holding kube-apiserver, etcd and kubectl:
// $KUBEBUILDER_ASSETS when set, else bin/k8s under the repository root.
func assetsDir() (string, error) {
	dir := os.Getenv(assetsEnv)
	if dir == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "bin", "k8s")
	}
	if err := CheckAssets(dir); err != nil {
		return "", fmt.Errorf("%w: run `make envtest-assets` (or set %s)", err, assetsEnv)
	}
	return dir, nil
}

// CheckAssets reports which of kube-apiserver, etcd and kubectl dir lacks.
func CheckAssets(dir string) error {
	for _, b := range []string{"kube-apiserver", "etcd", "kubectl"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return fmt.Errorf("%s not found in %s", b, dir)
		}
	}
	return nil
}

// crdDir returns config/crd/bases under the repository root.
func crdDir() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "config", "crd", "bases"), nil
}

// Option changes the environment before it starts.
type Option func(*envtest.Environment)

// WithAPIServerArg sets one kube-apiserver flag (for example
// authorization-mode=RBAC).
func WithAPIServerArg(key string, values ...string) Option {
	return func(e *envtest.Environment) {
		e.ControlPlane.GetAPIServer().Configure().Set(key, values...)
	}
}

// WithPodGroups makes kube-apiserver serve scheduling.k8s.io/v1beta1
// (Workload, PodGroup) with the GenericWorkload gate on, as a scheduler
// run with --feature-gates=GenericWorkload=true needs.
func WithPodGroups() Option {
	return func(e *envtest.Environment) {
		WithAPIServerArg("feature-gates", "GenericWorkload=true")(e)
		WithAPIServerArg("runtime-config", "scheduling.k8s.io/v1beta1=true")(e)
	}
}

// WithOutput sends kube-apiserver's standard output and error to apiserver
// and etcd's to etcd (by default both are discarded); a nil writer leaves
// that process's output discarded.
func WithOutput(apiserver, etcd io.Writer) Option {
	return func(e *envtest.Environment) {
		if apiserver != nil {
			e.ControlPlane.GetAPIServer().Out, e.ControlPlane.GetAPIServer().Err = apiserver, apiserver
		}
		if etcd != nil {
			if e.ControlPlane.Etcd == nil {
				e.ControlPlane.Etcd = &envtest.Etcd{}
			}
			e.ControlPlane.Etcd.Out, e.ControlPlane.Etcd.Err = etcd, etcd
		}
	}
}

// WithCRDDirectory installs the CRDs of dir instead of the project's.
func WithCRDDirectory(dir string) Option {
	return func(e *envtest.Environment) { e.CRDDirectoryPaths = []string{dir} }
}

// WithAssets takes kube-apiserver, etcd and kubectl from dir instead of
// $KUBEBUILDER_ASSETS or the repository's bin/k8s (envtest prefers the
// variable to its assets directory: the binaries' paths are set here).
func WithAssets(dir string) Option {
	return func(e *envtest.Environment) {
		e.BinaryAssetsDirectory = dir
		e.ControlPlane.GetAPIServer().Path = filepath.Join(dir, "kube-apiserver")
		if e.ControlPlane.Etcd == nil {
			e.ControlPlane.Etcd = &envtest.Etcd{}
		}
		e.ControlPlane.Etcd.Path = filepath.Join(dir, "etcd")
		e.ControlPlane.KubectlPath = filepath.Join(dir, "kubectl")
	}
}

// WithCRDs installs crds instead of the CRDs of the repository's
// config/crd/bases (local mode carries its own, from any module).
func WithCRDs(crds []*apiextensionsv1.CustomResourceDefinition) Option {
	return func(e *envtest.Environment) {
		e.CRDs = crds
		e.CRDDirectoryPaths = nil
	}
}

// newEnvironment returns an environment, not started yet, on the local
// binaries with the project's CRDs installed.
func newEnvironment(opts ...Option) (*envtest.Environment, error) {
	env := &envtest.Environment{
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	for _, o := range opts {
		o(env)
	}
	if env.BinaryAssetsDirectory == "" {
		assets, err := assetsDir()
		if err != nil {
			return nil, err
		}
		env.BinaryAssetsDirectory = assets
	} else if err := CheckAssets(env.BinaryAssetsDirectory); err != nil {
		return nil, err
	}
	if env.CRDs == nil && env.CRDDirectoryPaths == nil {
		crds, err := crdDir()
		if err != nil {
			return nil, err
		}
		env.CRDDirectoryPaths = []string{crds}
	}
	return env, nil
}

// Start builds and starts an environment, returning its rest config.
func Start(opts ...Option) (*envtest.Environment, *rest.Config, error) {
	env, err := newEnvironment(opts...)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := env.Start()
	if err != nil {
		// envtest leaves etcd and kube-apiserver running when a step after
		// their start (installing the CRDs) fails: stop what started.
		err = fmt.Errorf("starting control plane from %s: %w", env.BinaryAssetsDirectory, err)
		if stopErr := env.Stop(); stopErr != nil {
			err = fmt.Errorf("%w (stopping what had started: %v)", err, stopErr)
		}
		return nil, nil, err
	}
	return env, cfg, nil
}
