package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/internal/local"
	"github.com/profile-scheduler/profile-scheduler/internal/operator"
	"github.com/profile-scheduler/profile-scheduler/internal/testenv"
)

// startLocal starts the local control plane and seeds it with nodes and the
// sample profiles.
func startLocal(ctx context.Context, o *options) (*local.Cluster, error) {
	logger := klog.FromContext(ctx)
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, fmt.Errorf("local mode runs from the repository: %w", err)
	}
	kubeconfig := filepath.Join(root, o.localDir, "kubeconfig")
	logger.Info("Starting local control plane (etcd, kube-apiserver from bin/k8s)")
	var envOpts []testenv.Option
	if utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		// The scheduler watches PodGroups: the API server serves them.
		logger.Info("GenericWorkload is on: the control plane serves scheduling.k8s.io/v1beta1 (Workload, PodGroup)")
		envOpts = append(envOpts, testenv.WithPodGroups())
	}
	cluster, err := local.Start(kubeconfig, envOpts...)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cluster.Config, client.Options{Scheme: operator.Scheme})
	if err == nil {
		err = local.CreateNodes(ctx, c, local.DefaultNodes())
	}
	var applied []string
	if err == nil {
		applied, err = local.ApplyDir(ctx, c, filepath.Join(root, "config", "samples"))
	}
	if err != nil {
		return nil, fmt.Errorf("seeding local control plane: %w (stop error: %v)", err, cluster.Stop())
	}
	kubectl, _ := filepath.Rel(root, cluster.Kubectl)
	kc, _ := filepath.Rel(root, cluster.Kubeconfig)
	fmt.Fprintf(os.Stderr, `
Local control plane is up: %d nodes, samples applied: %v
In another shell, from the repository root:

  export KUBECONFIG=$PWD/%s
  %s get schedulerprofiles
  %s run nginx --image=nginx --overrides='{"spec":{"schedulerName":"bin-packing"}}'
  %s get pods -o wide

Ctrl-C stops the operator and the control plane.

`, len(local.DefaultNodes()), applied, kc, kubectl, kubectl, kubectl)
	return cluster, nil
}
