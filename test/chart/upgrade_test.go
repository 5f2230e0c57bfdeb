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

// operatorWrittenPolicyChart is the last commit whose chart created the
// routes policy inert and let the operator write every route into its CEL
// (and kept that CEL across upgrades with lookup).
const operatorWrittenPolicyChart = "6aaa75e"

// An upgrade from the chart whose operator wrote the routes into the
// policy's CEL: the README's upgrade step writes the RoutingTable of the
// routes in force (kubectl sp route --routing-table), then the upgrade
// replaces the policy with the routes program, which reads that table;
// every pod created meanwhile is routed. No operator runs: routing is
// kube-apiserver's alone, which an upgrade must not disturb.
func TestHelmUpgradeFromOperatorWrittenPolicyKeepsPodsRouted(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	g := NewWithT(t)
	ensureNamespace(ctx, t, c)
	root := repoRoot(t)

	oldChart := t.TempDir()
	archive := exec.Command("sh", "-c", fmt.Sprintf("git -C %q archive %s charts/profile-scheduler | tar -x -C %q", root, operatorWrittenPolicyChart, oldChart))
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("extracting the chart of %s (the test needs the repository's history: git fetch --unshallow): %v\n%s", operatorWrittenPolicyChart, err, out)
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-C", root, "-o", filepath.Join(bin, "kubectl-sp"), "./cmd/kubectl-sp").CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-sp: %v\n%s", err, out)
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
	say("the older chart, installed; its operator wrote the routes into the policy")
	// The control plane's CRDs are envtest's, not the release's.
	_, err = helmRun("install", releaseName, installable(t, filepath.Join(oldChart, "charts", "profile-scheduler")), "--set", "webhook.enabled=false,crds.install=false")
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _, _ = helmRun("uninstall", releaseName, "--wait") })
	routed := "upgrade-routed"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: routed, Labels: map[string]string{"upgrade": "routed"}}}); err != nil {
		g.Expect(client.IgnoreAlreadyExists(err)).To(Succeed())
	}
	route := v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: "upgrade"}, Spec: v1alpha1.ProfileRouteSpec{
		Profile: "upgrade-target", WhenProfileNotServing: v1alpha1.ProfileNotServingHold,
		NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"upgrade": "routed"}}}}
	g.Expect(c.Create(ctx, route.DeepCopy())).To(Succeed())
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: "upgrade"}})
	})
	table, verdicts := routing.Build(routing.Input{Routes: []v1alpha1.ProfileRoute{route}, Protected: routing.DefaultProtected(namespace)})
	g.Expect(verdicts["upgrade"].InTable()).To(BeTrue(), "%+v", verdicts["upgrade"])
	compiled, _, _ := table.CompiledPolicy(routing.PolicyName)
	var policy admissionregistrationv1.MutatingAdmissionPolicy
	g.Expect(c.Get(ctx, client.ObjectKey{Name: routing.PolicyName}, &policy)).To(Succeed())
	policy.Spec = compiled.Spec
	policy.Annotations = compiled.Annotations
	g.Expect(c.Update(ctx, &policy)).To(Succeed(), "the older operator writes the routes over the policy")
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &v1alpha1.RoutingTable{ObjectMeta: metav1.ObjectMeta{Name: routing.PolicyName}})
	})
	newPod := func(prefix string) (string, error) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: routed, GenerateName: prefix},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}}}}
		err := c.Create(ctx, p)
		return p.Spec.SchedulerName, err
	}
	g.Eventually(func() (string, error) { return newPod("upgrade-before-") }).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).
		Should(Equal("upgrade-target"), "kube-apiserver runs the policy")

	say("pods created throughout the upgrade")
	stream := startPods(func() (string, error) { return newPod("upgrade-") }, "upgrade-target")
	stopped := false
	defer func() {
		if !stopped {
			_, _, _ = stream.stop()
		}
	}()

	say("the README's upgrade step, as written, then the upgrade")
	blocks := fencedBlocks(section(t, readme(t), "### Upgrading from a chart whose operator wrote the routes policy"), "sh")
	g.Expect(blocks).NotTo(BeEmpty())
	step := exec.Command("sh", "-e", "-c", blocks[0])
	step.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "CHART="+chartDir(t),
		"PATH="+bin+":"+filepath.Dir(kubectlPath(t))+":"+filepath.Dir(helmTool.bin(t))+":"+os.Getenv("PATH"))
	out, err := step.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	_, err = helmRun("upgrade", releaseName, installable(t, chartDir(t)), "--set", "webhook.enabled=false,crds.install=false")
	g.Expect(err).NotTo(HaveOccurred())
	time.Sleep(2 * time.Second) // pods keep coming after the upgrade, while kube-apiserver applies the changed policy
	created, unrouted, err := stream.stop()
	stopped = true
	g.Expect(err).NotTo(HaveOccurred())
	t.Logf("%d pods created during the upgrade, %d not routed", created, len(unrouted))
	g.Expect(created).To(BeNumerically(">", 10))
	g.Expect(unrouted).To(BeEmpty(), "pods created during the upgrade that were not routed")

	say("the release's policy is the routes program, reading the table the step wrote, and the operator has no right on it")
	program, _, err := routing.Program(routing.PolicyName)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Get(ctx, client.ObjectKey{Name: routing.PolicyName}, &policy)).To(Succeed())
	g.Expect(policy.Annotations).To(HaveKeyWithValue("meta.helm.sh/release-name", releaseName))
	g.Expect(policy.Spec.Variables).To(Equal(program.Spec.Variables), "the upgrade installed the program")
	var written v1alpha1.RoutingTable
	g.Expect(c.Get(ctx, client.ObjectKey{Name: routing.PolicyName}, &written)).To(Succeed())
	g.Expect(written.Spec).To(Equal(table.Params(routing.PolicyName).Spec), "the table the operator writes")
	var role rbacv1.ClusterRole
	g.Expect(c.Get(ctx, client.ObjectKey{Name: releaseName}, &role)).To(Succeed())
	for _, r := range role.Rules {
		g.Expect(r.Resources).NotTo(ContainElement(HavePrefix("mutatingadmissionpolic")))
	}
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
