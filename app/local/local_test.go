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

package local_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fmt"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/app"
	_ "github.com/profile-scheduler/profile-scheduler/app/local"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// assets is the repository's bin/k8s (or $KUBEBUILDER_ASSETS), found before
// a test leaves the repository.
func assets(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "bin", "k8s")
}

// Local mode run from a directory outside any module, as from a custom
// build's: the CRDs and samples come from the binary, the control plane's
// binaries from --local-assets; the sample profiles go Ready, and stopping
// the command stops the control plane. With --enable-webhook, local mode
// points kube-apiserver at the operator's webhook server on localhost: a
// SchedulerProfile naming an unknown plugin is refused at create, and with
// --bind-arbiter a bind onto a node without room is refused by the
// arbiter. (One command per process: the operator's controllers are named
// once.)
func TestLocalModeOutsideTheRepository(t *testing.T) {
	g := NewWithT(t)
	bin := assets(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("KUBEBUILDER_ASSETS", "")

	ctx, cancel := context.WithCancel(context.Background())
	cmd := app.NewCommand()
	cmd.SetArgs([]string{"--local", "--local-assets=" + bin, "--local-dir=kc", "--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--enable-webhook", "--bind-arbiter", fmt.Sprintf("--webhook-port=%d", testenv.FreePort(t)), "--webhook-cert-dir=" + filepath.Join(t.TempDir(), "certs")})
	done, exited := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(exited)
		done <- cmd.ExecuteContext(ctx)
	}()
	// A test that fails midway still stops the command, and with it the
	// control plane it started: else etcd and kube-apiserver outlive the
	// test process.
	t.Cleanup(func() {
		cancel()
		select {
		case <-exited:
		case <-time.After(time.Minute):
			t.Errorf("the command did not stop within a minute of its context's end")
		}
	})
	// The command stopping early ends the test with its error.
	running := func(g Gomega) {
		select {
		case err := <-done:
			t.Fatalf("the command stopped: %v", err)
		default:
		}
	}

	kubeconfig := filepath.Join(dir, "kc", "kubeconfig")
	g.Eventually(func() error { _, err := os.Stat(kubeconfig); return err }).WithTimeout(2 * time.Minute).Should(Succeed())
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	g.Expect(err).NotTo(HaveOccurred())
	scheme := runtime.NewScheme()
	g.Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	g.Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) {
		running(g)
		sp := &v1alpha1.SchedulerProfile{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: "bin-packing"}, sp)).To(Succeed())
		ready := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
	}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
	// Local mode installs the routes policy as the chart does: the sample
	// route goes Ready although the operator may not create a policy.
	g.Eventually(func(g Gomega) {
		pr := &v1alpha1.ProfileRoute{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: "batch"}, pr)).To(Succeed())
		ready := meta.FindStatusCondition(pr.Status.Conditions, v1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
	}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())

	// Until the operator has written its CA, the webhooks fail open: a
	// profile admitted meanwhile is deleted and tried again.
	g.Eventually(func(g Gomega) {
		running(g)
		sp := &v1alpha1.SchedulerProfile{
			ObjectMeta: metav1.ObjectMeta{Name: "refused"},
			Spec: v1alpha1.SchedulerProfileSpec{Plugins: &v1alpha1.Plugins{Score: v1alpha1.PluginSet{
				Enabled: []v1alpha1.Plugin{{Name: "NoSuchScorer", Weight: ptr.To[int32](2)}},
			}}},
		}
		err := c.Create(ctx, sp)
		if err == nil {
			_ = c.Delete(ctx, sp)
		}
		g.Expect(err).To(HaveOccurred())
		g.Expect(err.Error()).To(ContainSubstring(`"NoSuchScorer" does not exist`))
	}).WithTimeout(time.Minute).WithPolling(500 * time.Millisecond).Should(Succeed())

	// A pod asking more CPU than any node has, bound by hand to node-a1.
	g.Eventually(func(g Gomega) {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, GenerateName: "too-big-"},
			Spec: corev1.PodSpec{SchedulerName: "nobody", Containers: []corev1.Container{{
				Name: "c", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}},
			}}},
		}
		g.Expect(c.Create(ctx, pod)).To(Succeed())
		defer func() { _ = c.Delete(ctx, pod) }()
		err := c.SubResource("binding").Create(ctx, pod, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name},
			Target:     corev1.ObjectReference{Kind: "Node", Name: "node-a1"},
		})
		g.Expect(err).To(HaveOccurred())
		g.Expect(err.Error()).To(ContainSubstring("node node-a1 has no room for default/" + pod.Name + ": cpu 100 requested"))
	}).WithTimeout(time.Minute).WithPolling(500 * time.Millisecond).Should(Succeed())

	cancel()
	g.Eventually(done).WithTimeout(time.Minute).Should(Receive(BeNil()))
	children, err := testenv.ChildProcesses(os.Getpid())
	g.Expect(err).NotTo(HaveOccurred())
	for _, p := range children {
		g.Expect(p.Name()).NotTo(BeElementOf("etcd", "kube-apiserver"), "the control plane stops with the command")
	}
}

func TestLocalModeSaysHowToGetTheBinaries(t *testing.T) {
	g := NewWithT(t)
	missing := filepath.Join(t.TempDir(), "k8s")
	cmd := app.NewCommand()
	cmd.SetArgs([]string{"--local", "--local-assets=" + missing})
	err := cmd.Execute()
	g.Expect(err).To(HaveOccurred())
	for _, want := range []string{
		"not found in " + missing,
		"make envtest-assets",
		"go build -o " + missing + "/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver",
		"go build -o " + missing + "/etcd go.etcd.io/etcd/server/v3",
		"go get go.etcd.io/etcd/server/v3@v3.7.3 k8s.io/kubernetes/cmd/kube-apiserver@v1.37.2 k8s.io/kubernetes/cmd/kubectl@v1.37.2",
	} {
		g.Expect(err.Error()).To(ContainSubstring(want))
	}
	g.Expect(strings.Count(err.Error(), "\n")).To(BeNumerically(">", 3), "one command a line")
}
