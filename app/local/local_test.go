package local_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/app"
	_ "github.com/profile-scheduler/profile-scheduler/app/local"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/testenv"
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
// the command stops the control plane.
func TestLocalModeOutsideTheRepository(t *testing.T) {
	g := NewWithT(t)
	bin := assets(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("KUBEBUILDER_ASSETS", "")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := app.NewCommand()
	cmd.SetArgs([]string{"--local", "--local-assets=" + bin, "--local-dir=kc", "--metrics-bind-address=0", "--health-probe-bind-address=0"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()

	kubeconfig := filepath.Join(dir, "kc", "kubeconfig")
	g.Eventually(func() error { _, err := os.Stat(kubeconfig); return err }).WithTimeout(2 * time.Minute).Should(Succeed())
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	g.Expect(err).NotTo(HaveOccurred())
	scheme := runtime.NewScheme()
	g.Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func(g Gomega) {
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
