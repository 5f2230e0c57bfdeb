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
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

// operatorCreatedPolicyChart is the last commit whose chart let the
// operator create, update and delete any MutatingAdmissionPolicy: its
// operator created the routes policy itself.
const operatorCreatedPolicyChart = "4188207"

// An upgrade from the chart whose operator created the routes policy:
// Helm refuses to take the policy over until the README's upgrade step
// hands it to the release; then the upgrade keeps the policy's spec, and
// every pod created meanwhile is routed. No operator runs: routing is
// kube-apiserver's alone, which is what an upgrade must not disturb.
func TestHelmUpgradeFromOperatorCreatedPolicyKeepsPodsRouted(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	g := NewWithT(t)
	ensureNamespace(ctx, t, c)
	root := repoRoot(t)

	oldChart := t.TempDir()
	archive := exec.Command("sh", "-c", fmt.Sprintf("git -C %q archive %s charts/profile-scheduler | tar -x -C %q", root, operatorCreatedPolicyChart, oldChart))
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("extracting the chart of %s (the test needs the repository's history: git fetch --unshallow): %v\n%s", operatorCreatedPolicyChart, err, out)
	}
	user, err := env.AddUser(envtest.User{Name: "helm-upgrade", Groups: []string{"system:masters"}}, nil)
	g.Expect(err).NotTo(HaveOccurred())
	kc, err := user.KubeConfig()
	g.Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	g.Expect(os.WriteFile(kubeconfig, kc, 0o600)).To(Succeed())
	helmRun := func(args ...string) ([]byte, error) {
		return run(t, helmTool.bin(t), append(args, "--kubeconfig", kubeconfig, "--namespace", namespace)...)
	}

	say := func(what string) { t.Helper(); t.Log(what) }
	say("the older chart, installed; its operator created the routes policy and binding")
	_, err = helmRun("install", releaseName, installable(t, filepath.Join(oldChart, "charts", "profile-scheduler")), "--skip-crds", "--set", "webhook.enabled=false")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _, _ = helmRun("uninstall", releaseName, "--wait") })
	routed := "upgrade-routed"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: routed, Labels: map[string]string{"upgrade": "routed"}}}); err != nil {
		g.Expect(client.IgnoreAlreadyExists(err)).To(Succeed())
	}
	table, verdicts := routing.Build(routing.Input{
		Routes: []v1alpha1.ProfileRoute{{ObjectMeta: metav1.ObjectMeta{Name: "upgrade"}, Spec: v1alpha1.ProfileRouteSpec{
			Profile: "upgrade-target", WhenProfileNotServing: v1alpha1.ProfileNotServingHold,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"upgrade": "routed"}}}}},
		Namespaces: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: routed, Labels: map[string]string{"upgrade": "routed"}}}},
		Protected:  routing.DefaultProtected(namespace),
	})
	g.Expect(verdicts["upgrade"].InTable()).To(BeTrue(), "%+v", verdicts["upgrade"])
	policy, binding, revision := table.Policy(routing.PolicyName)
	g.Expect(c.Create(ctx, policy)).To(Succeed())
	g.Expect(c.Create(ctx, binding)).To(Succeed())
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: routing.PolicyName}})
		_ = c.Delete(context.Background(), &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: routing.PolicyName}})
	})
	newPod := func(i int) (string, error) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: routed, Name: fmt.Sprintf("upgrade-%d", i)},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}}}}
		if i < 0 {
			p.Name, p.GenerateName = "", "upgrade-before-"
		}
		err := c.Create(ctx, p)
		return p.Spec.SchedulerName, err
	}
	g.Eventually(func() (string, error) { return newPod(-1) }).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).
		Should(Equal("upgrade-target"), "kube-apiserver runs the policy")

	say("pods created throughout the upgrade")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var created, unrouted []string
	var createErr error
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			name, err := newPod(i)
			if err != nil {
				createErr = err
				return
			}
			created = append(created, fmt.Sprintf("upgrade-%d", i))
			if name != "upgrade-target" {
				unrouted = append(unrouted, fmt.Sprintf("upgrade-%d (%s)", i, name))
			}
		}
	})
	defer func() {
		close(stop)
		wg.Wait()
	}()

	say("without the README's step Helm refuses to take the policy over, and changes nothing")
	// The control plane's CRDs are envtest's, not the release's.
	newChart := installable(t, chartDir(t))
	_, err = helmRun("upgrade", releaseName, newChart, "--set", "webhook.enabled=false,crds.install=false")
	g.Expect(err).To(MatchError(ContainSubstring("invalid ownership metadata")))

	say("the README's upgrade step, as written, then the upgrade")
	blocks := fencedBlocks(section(t, readme(t), "### Upgrading from a chart whose operator created the routes policy"), "sh")
	g.Expect(blocks).To(HaveLen(1))
	step := exec.Command("sh", "-e", "-c", blocks[0])
	step.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PATH="+filepath.Dir(kubectlPath(t))+":"+os.Getenv("PATH"))
	out, err := step.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	_, err = helmRun("upgrade", releaseName, newChart, "--set", "webhook.enabled=false,crds.install=false")
	g.Expect(err).NotTo(HaveOccurred())
	time.Sleep(2 * time.Second) // pods keep coming after the upgrade, while kube-apiserver would apply a changed policy
	close(stop)
	wg.Wait()
	stop = make(chan struct{})
	g.Expect(createErr).NotTo(HaveOccurred())
	g.Expect(len(created)).To(BeNumerically(">", 10))
	g.Expect(unrouted).To(BeEmpty(), "pods created during the upgrade that were not routed")

	say("the release owns the policy, with the routes in force, and the operator's rule names it")
	var got admissionregistrationv1.MutatingAdmissionPolicy
	g.Expect(c.Get(ctx, client.ObjectKey{Name: routing.PolicyName}, &got)).To(Succeed())
	g.Expect(got.Annotations).To(HaveKeyWithValue("meta.helm.sh/release-name", releaseName))
	g.Expect(got.Annotations).To(HaveKeyWithValue(routing.RevisionAnnotation, revision))
	g.Expect(got.Spec.Variables).To(Equal(policy.Spec.Variables), "the upgrade kept the routes' spec")
	var role rbacv1.ClusterRole
	g.Expect(c.Get(ctx, client.ObjectKey{Name: releaseName}, &role)).To(Succeed())
	var onPolicies []rbacv1.PolicyRule
	for _, r := range role.Rules {
		if strings.Join(r.Resources, ",") == "mutatingadmissionpolicies,mutatingadmissionpolicybindings" {
			onPolicies = append(onPolicies, r)
		}
	}
	g.Expect(onPolicies).To(ConsistOf(HaveField("ResourceNames", []string{routing.PolicyName})))
}

// installable copies the chart at dir without its kubeVersion constraint,
// and returns the copy: the control plane's kube-apiserver, built from Go
// modules without version stamps, reports v0.0.0-master, which no
// constraint admits.
func installable(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "profile-scheduler")
	if b, err := exec.Command("cp", "-r", dir, out).CombinedOutput(); err != nil {
		t.Fatalf("copying %s: %v\n%s", dir, err, b)
	}
	meta := filepath.Join(out, "Chart.yaml")
	data, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "kubeVersion:") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(meta, []byte(strings.Join(kept, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// kubectlPath is the control plane's kubectl (bin/k8s, or
// $KUBEBUILDER_ASSETS).
func kubectlPath(t *testing.T) string {
	t.Helper()
	if env != nil && env.ControlPlane.KubectlPath != "" {
		return env.ControlPlane.KubectlPath
	}
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "bin", "k8s")
	}
	return filepath.Join(dir, "kubectl")
}
