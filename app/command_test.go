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

package app

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/app/local/localtest"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

func newBoom(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	panic("boom: the plugin's backend is missing")
}

// TestCommandSurvivesAPanickingPlugin runs the command, built with a plugin
// whose factory panics, against a local control plane: the profile that
// enables the plugin is refused naming it, the operator keeps running and
// its other profile keeps binding pods.
func TestCommandSurvivesAPanickingPlugin(t *testing.T) {
	const timeout = 60 * time.Second
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cluster, c := localtest.Start(t)
	g.Expect(local.CreateNodes(ctx, c, local.DefaultNodes()[:2])).To(Succeed())

	done := testenv.RunCommand(ctx, t, cancel, NewCommand(WithPlugin("Boom", newBoom)), cluster.Kubeconfig, timeout)

	g.Expect(c.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "boom"}, Spec: v1alpha1.SchedulerProfileSpec{
		Plugins: &v1alpha1.Plugins{Score: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "Boom"}}}},
	}})).To(Succeed())
	g.Expect(c.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "good"}})).To(Succeed())

	ready := func(g Gomega, name string) *metav1.Condition {
		sp := &v1alpha1.SchedulerProfile{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: name}, sp)).To(Succeed())
		g.Expect(sp.Status.ObservedGeneration).To(Equal(sp.Generation))
		cond := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady)
		g.Expect(cond).NotTo(BeNil())
		return cond
	}
	g.Eventually(func(g Gomega) {
		cond := ready(g, "boom")
		g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(cond.Reason).To(Equal(v1alpha1.ReasonBuildFailed), cond.Message)
		g.Expect(cond.Message).To(ContainSubstring("plugin Boom panicked while being built: boom: the plugin's backend is missing"))
	}).WithTimeout(timeout).Should(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(ready(g, "good").Status).To(Equal(metav1.ConditionTrue))
	}).WithTimeout(timeout).Should(Succeed())

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "after-boom"},
		Spec: corev1.PodSpec{
			SchedulerName:                "good",
			AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			}}},
		},
	}
	g.Expect(c.Create(ctx, pod)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		g.Expect(pod.Spec.NodeName).NotTo(BeEmpty())
	}).WithTimeout(timeout).Should(Succeed())

	select {
	case err := <-done:
		t.Fatalf("the operator stopped (%v); it should survive the plugin's panic", err)
	default:
	}
}

// The operator's binary (the image's) links no test framework: local mode
// lives in package app/local, which only a developer's binary imports.
func TestImageBinaryLinksNoTestFramework(t *testing.T) {
	g := NewWithT(t)
	out, err := exec.Command("go", "list", "-deps", "github.com/profile-scheduler/profile-scheduler").CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	deps := strings.Fields(string(out))
	g.Expect(deps).To(ContainElement("github.com/profile-scheduler/profile-scheduler/app"))
	for _, dep := range deps {
		g.Expect(dep).NotTo(Or(
			HavePrefix("sigs.k8s.io/controller-runtime/pkg/envtest"),
			HavePrefix("github.com/profile-scheduler/profile-scheduler/internal/test/"),
			HavePrefix("github.com/profile-scheduler/profile-scheduler/internal/controlplane"),
			HavePrefix("github.com/profile-scheduler/profile-scheduler/internal/local"),
			HavePrefix("github.com/profile-scheduler/profile-scheduler/app/local"),
		))
	}
}

// The local binary starts its control plane through internal/controlplane
// and links none of the tests' packages (internal/test/).
func TestLocalBinaryLinksNoTestFixtures(t *testing.T) {
	g := NewWithT(t)
	out, err := exec.Command("go", "list", "-deps", "github.com/profile-scheduler/profile-scheduler/cmd/profile-scheduler-local").CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), string(out))
	deps := strings.Fields(string(out))
	g.Expect(deps).To(ContainElement("github.com/profile-scheduler/profile-scheduler/internal/controlplane"))
	g.Expect(deps).NotTo(ContainElement(HavePrefix("github.com/profile-scheduler/profile-scheduler/internal/test/")))
}

// Without package app/local, --local says what the binary lacks.
func TestLocalNeedsLocalMode(t *testing.T) {
	g := NewWithT(t)
	cmd := NewCommand()
	cmd.SetArgs([]string{"--local"})
	g.Expect(cmd.Execute()).To(MatchError(ContainSubstring("must import github.com/profile-scheduler/profile-scheduler/app/local")))
}
