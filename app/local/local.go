// Package local gives a binary built with package app its --local mode: a
// throw-away control plane (etcd and kube-apiserver) with the operator's
// CRDs installed, a few nodes and the sample profiles, for a developer's
// machine. Import it from a main package for its side effect:
//
//	import _ "github.com/profile-scheduler/profile-scheduler/app/local"
//
// It links controller-runtime's envtest; the operator's image does not
// import it. The CRDs and samples travel inside the binary (package
// config), so local mode works from any module; the control plane's
// binaries are found in --local-assets, $KUBEBUILDER_ASSETS or bin/k8s
// under the module's root, and a missing one is reported with the commands
// that build it.
package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/app"
	"github.com/profile-scheduler/profile-scheduler/app/operator"
	"github.com/profile-scheduler/profile-scheduler/config"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
)

func init() {
	app.RegisterLocalMode(Start)
}

// The versions of etcd and Kubernetes the operator's go.mod pins.
const (
	etcdVersion       = "v3.7.3"
	kubernetesVersion = "v1.37.2"
)

// Start starts the control plane, installs the CRDs, creates nodes and
// applies the samples. A start that fails half way stops what it started.
func Start(ctx context.Context, o app.LocalOptions) (*app.LocalControlPlane, error) {
	logger := klog.FromContext(ctx)
	base, err := controlplane.RepoRoot()
	if err != nil {
		if base, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	assets := o.Assets
	if assets == "" {
		assets = os.Getenv("KUBEBUILDER_ASSETS")
	}
	if assets == "" {
		assets = filepath.Join(base, "bin", "k8s")
	}
	if err := controlplane.CheckAssets(assets); err != nil {
		return nil, missingAssets(assets, err)
	}
	crds, err := local.CRDs(sub(config.CRDs, "crd/bases"))
	if err != nil {
		return nil, fmt.Errorf("local mode's CRDs: %w", err)
	}
	envOpts := []controlplane.Option{controlplane.WithAssets(assets), controlplane.WithCRDs(crds)}
	if utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		// The scheduler watches PodGroups: the API server serves them.
		logger.Info("GenericWorkload is on: the control plane serves scheduling.k8s.io/v1beta1 (Workload, PodGroup)")
		envOpts = append(envOpts, controlplane.WithPodGroups())
	}
	logger.Info("Starting local control plane", "assets", assets)
	cluster, err := local.Start(filepath.Join(base, o.Dir, "kubeconfig"), envOpts...)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cluster.Config, client.Options{Scheme: operator.Scheme})
	if err == nil {
		err = local.CreateNodes(ctx, c, local.DefaultNodes())
	}
	var applied []string
	if err == nil {
		// The routes policy and binding, inert, as the chart installs
		// them: the operator only updates them.
		err = controlplane.InstallRoutesPolicy(ctx, c)
	}
	if err == nil {
		applied, err = local.ApplyFS(ctx, c, sub(config.Samples, "samples"))
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("seeding local control plane: %w", err), cluster.Stop())
	}
	kubectl, kubeconfig := relative(base, cluster.Kubectl), relative(base, cluster.Kubeconfig)
	fmt.Fprintf(os.Stderr, `
Local control plane is up: %d nodes, samples applied: %v
In another shell, from %s:

  export KUBECONFIG=$PWD/%s
  %s get schedulerprofiles
  %s run nginx --image=nginx --overrides='{"spec":{"schedulerName":"bin-packing"}}'
  %s get pods -o wide

Ctrl-C stops the operator and the control plane.

`, len(local.DefaultNodes()), applied, base, kubeconfig, kubectl, kubectl, kubectl)
	return &app.LocalControlPlane{Config: cluster.Config, Stop: cluster.Stop}, nil
}

// missingAssets says how to get the control plane's binaries, in this
// repository and from a module of one's own.
func missingAssets(dir string, err error) error {
	return fmt.Errorf(`local mode: %w
Local mode runs etcd, kube-apiserver and kubectl from --local-assets (or $KUBEBUILDER_ASSETS, else bin/k8s under the module's root).
In the profile-scheduler repository: make envtest-assets
In a module of your own that requires profile-scheduler (several minutes, once):
  go get go.etcd.io/etcd/server/v3@%s k8s.io/kubernetes/cmd/kube-apiserver@%s k8s.io/kubernetes/cmd/kubectl@%[3]s
  go build -o %[4]s/etcd go.etcd.io/etcd/server/v3
  go build -o %[4]s/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
  go build -o %[4]s/kubectl k8s.io/kubernetes/cmd/kubectl`, err, etcdVersion, kubernetesVersion, dir)
}

// sub is fs.Sub of a directory that go:embed guarantees.
func sub(fsys fs.FS, dir string) fs.FS {
	s, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return s
}

// relative is path relative to base when it is below it.
func relative(base, path string) string {
	if rel, err := filepath.Rel(base, path); err == nil {
		return rel
	}
	return path
}
