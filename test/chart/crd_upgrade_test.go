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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// crdsDirChart is a chart that carried its CRDs in crds/, from before
// SchedulerProfile had spec.rollout.
const crdsDirChart = "4188207"

// An upgrade from a chart with its CRDs in crds/ (which Helm installs once
// and never upgrades): after the chart README's step hands the CRDs to the
// release, helm upgrade updates them and spec.rollout, which the older CRD
// pruned, is served; helm uninstall then keeps the CRDs and the profiles.
// The test has a control plane of its own, started without CRDs, so the
// older chart installs its own.
func TestHelmUpgradeFromCRDsDirServesNewFields(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	root := repoRoot(t)

	e, cfg, err := controlplane.Start(controlplane.WithCRDs([]*apiextensionsv1.CustomResourceDefinition{}))
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = e.Stop() })
	scheme := runtime.NewScheme()
	g.Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	g.Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	g.Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	g.Expect(err).NotTo(HaveOccurred())
	user, err := e.AddUser(envtest.User{Name: "helm-crds", Groups: []string{"system:masters"}}, nil)
	g.Expect(err).NotTo(HaveOccurred())
	kc, err := user.KubeConfig()
	g.Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	g.Expect(os.WriteFile(kubeconfig, kc, 0o600)).To(Succeed())
	helmRun := func(args ...string) ([]byte, error) {
		return run(t, helmTool.bin(t), append(args, "--kubeconfig", kubeconfig, "--namespace", namespace)...)
	}
	_, err = run(t, kubectlPath(t), "--kubeconfig", kubeconfig, "create", "namespace", namespace)
	g.Expect(err).NotTo(HaveOccurred())

	oldChart := t.TempDir()
	archive := exec.Command("sh", "-c", fmt.Sprintf("git -C %q archive %s charts/profile-scheduler | tar -x -C %q", root, crdsDirChart, oldChart))
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("extracting the chart of %s (the test needs the repository's history: git fetch --unshallow): %v\n%s", crdsDirChart, err, out)
	}
	_, err = os.Stat(filepath.Join(oldChart, "charts", "profile-scheduler", "crds"))
	g.Expect(err).NotTo(HaveOccurred(), "the chart of %s has its CRDs in crds/", crdsDirChart)

	t.Log("the older chart, installed with the CRDs of its crds/")
	_, err = helmRun("install", releaseName, installable(t, filepath.Join(oldChart, "charts", "profile-scheduler")), "--set", "webhook.enabled=false")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _, _ = helmRun("uninstall", releaseName, "--wait") })

	withRollout := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": v1alpha1.GroupVersion.String(),
			"kind":       "SchedulerProfile",
			"metadata":   map[string]any{"name": name},
			"spec": map[string]any{"rollout": map[string]any{"steps": []any{
				map[string]any{"shadow": map[string]any{"duration": "1m"}},
				map[string]any{"canary": map[string]any{"percent": int64(10), "duration": "2m"}},
			}}},
		}}
		return u
	}
	served := func(name string) error {
		if err := c.Create(ctx, withRollout(name), client.FieldValidation("Strict")); err != nil {
			return err
		}
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("SchedulerProfile"))
		if err := c.Get(ctx, client.ObjectKey{Name: name}, got); err != nil {
			return err
		}
		if steps, _, _ := unstructured.NestedSlice(got.Object, "spec", "rollout", "steps"); len(steps) != 2 {
			return fmt.Errorf("spec.rollout read back as %v", got.Object["spec"])
		}
		return nil
	}
	g.Eventually(func() error { return served("before-upgrade") }).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).
		Should(MatchError(ContainSubstring(`unknown field "spec.rollout"`)), "the older CRD does not serve spec.rollout")

	t.Log("without the README's step Helm refuses to take the CRDs over")
	newChart := installable(t, chartDir(t))
	_, err = helmRun("upgrade", releaseName, newChart, "--set", "webhook.enabled=false")
	g.Expect(err).To(MatchError(ContainSubstring("invalid ownership metadata")))

	t.Log("the README's step, as written, then the upgrade")
	blocks := fencedBlocks(section(t, readme(t), "### Upgrading from a chart with the CRDs in `crds/`"), "sh")
	g.Expect(blocks).To(HaveLen(1))
	step := exec.Command("sh", "-e", "-c", blocks[0])
	step.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PATH="+filepath.Dir(kubectlPath(t))+":"+os.Getenv("PATH"))
	out, err := step.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	_, err = helmRun("upgrade", releaseName, newChart, "--set", "webhook.enabled=false")
	g.Expect(err).NotTo(HaveOccurred())

	g.Eventually(func() error { return served("after-upgrade") }).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).
		Should(Succeed(), "spec.rollout is served after helm upgrade")

	var crds apiextensionsv1.CustomResourceDefinitionList
	g.Expect(c.List(ctx, &crds)).To(Succeed())
	g.Expect(crds.Items).To(HaveLen(5)) // and RoutingTable, new with the upgrade
	for _, crd := range crds.Items {
		g.Expect(crd.Annotations).To(HaveKeyWithValue("meta.helm.sh/release-name", releaseName), crd.Name)
		g.Expect(crd.Annotations).To(HaveKeyWithValue("helm.sh/resource-policy", "keep"), crd.Name)
	}

	t.Log("helm uninstall keeps the CRDs, and the profiles")
	_, err = helmRun("uninstall", releaseName, "--wait")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.List(ctx, &crds)).To(Succeed())
	g.Expect(crds.Items).To(HaveLen(5))
	var profile v1alpha1.SchedulerProfile
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "after-upgrade"}, &profile)).To(Succeed())
	g.Expect(profile.Spec.Rollout).NotTo(BeNil())
}
