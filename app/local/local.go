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

package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/app"
	"github.com/profile-scheduler/profile-scheduler/app/operator"
	"github.com/profile-scheduler/profile-scheduler/config"
	"github.com/profile-scheduler/profile-scheduler/controllers"
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
		// The routes program and its binding, as the chart installs
		// them: the operator writes their RoutingTable.
		err = controlplane.InstallRoutesPolicy(ctx, c)
	}
	if err == nil && o.Webhook != nil {
		err = c.Create(ctx, webhookConfiguration(o.Webhook))
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

%sCtrl-C stops the operator and the control plane.

`, len(local.DefaultNodes()), applied, base, kubeconfig, kubectl, kubectl, kubectl, webhookBanner(o.Webhook))
	return &app.LocalControlPlane{Config: cluster.Config, Stop: cluster.Stop}, nil
}

// webhookConfiguration sends kube-apiserver's admission reviews to the
// operator's webhook server on localhost, as the chart's configuration
// sends them to its Service: SchedulerProfiles and ExtenderConfigs, and
// with the bind arbiter every pods/binding outside kube-system. All fail
// open; the operator writes its self-signed CA into the caBundles.
func webhookConfiguration(w *app.LocalWebhook) *admissionregistrationv1.ValidatingWebhookConfiguration {
	hook := func(name, path string, timeout int32, rule admissionregistrationv1.RuleWithOperations) admissionregistrationv1.ValidatingWebhook {
		url := fmt.Sprintf("https://localhost:%d%s", w.Port, path)
		return admissionregistrationv1.ValidatingWebhook{
			Name:                    name,
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			MatchPolicy:             ptr.To(admissionregistrationv1.Equivalent),
			TimeoutSeconds:          ptr.To(timeout),
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules:                   []admissionregistrationv1.RuleWithOperations{rule},
		}
	}
	ours := func(resource string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{v1alpha1.GroupVersion.Group}, APIVersions: []string{v1alpha1.GroupVersion.Version},
				Resources: []string{resource}, Scope: ptr.To(admissionregistrationv1.ClusterScope),
			},
		}
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: w.ConfigurationName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			hook("vschedulerprofile.scheduling.profilescheduler.io", controllers.ProfileWebhookPath, 10, ours("schedulerprofiles")),
			hook("vextenderconfig.scheduling.profilescheduler.io", controllers.ExtenderWebhookPath, 10, ours("extenderconfigs")),
		},
	}
	if w.BindArbiter {
		binding := hook("vbinding.bindarbiter.profilescheduler.io", controllers.BindingWebhookPath, 1, admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/binding", "bindings"},
				Scope: ptr.To(admissionregistrationv1.NamespacedScope),
			},
		})
		binding.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{metav1.NamespaceSystem},
		}}}
		vwc.Webhooks = append(vwc.Webhooks, binding)
	}
	return vwc
}

// webhookBanner tells, in the start banner, where kube-apiserver sends
// admission reviews ("" without the webhook server).
func webhookBanner(w *app.LocalWebhook) string {
	if w == nil {
		return ""
	}
	what := "SchedulerProfiles and ExtenderConfigs"
	if w.BindArbiter {
		what = "SchedulerProfiles, ExtenderConfigs and, for the bind arbiter, every bind outside kube-system"
	}
	return fmt.Sprintf("Admission webhooks at https://localhost:%d (ValidatingWebhookConfiguration %s): %s.\n\n", w.Port, w.ConfigurationName, what)
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
