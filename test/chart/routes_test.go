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
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

// The routes program and its binding follow the release's full name,
// read the RoutingTable of that name, and the operator's flag names it,
// so that two releases in one cluster each keep their own. The program is
// config/routes' whatever the release, and the ClusterRole grants nothing
// on admission policies or their bindings.
func TestRoutesPolicyFollowsTheRelease(t *testing.T) {
	program := programOf(t, renderKustomize(t, "routes"))
	for _, tc := range []struct {
		release, fullname, want string
	}{
		{releaseName, "profile-scheduler", "profile-scheduler-routes"},
		{"team-b", "team-b-profile-scheduler", "team-b-profile-scheduler-routes"},
	} {
		t.Run(tc.release, func(t *testing.T) {
			g := NewWithT(t)
			out, err := helm(t, "template", tc.release, chartDir(t), "--namespace", namespace, "--api-versions", mutatingAdmissionPolicyV1)
			g.Expect(err).NotTo(HaveOccurred())
			objs, err := decode(out)
			g.Expect(err).NotTo(HaveOccurred())

			policy := find(objs, "MutatingAdmissionPolicy", tc.want)
			g.Expect(policy).NotTo(BeNil(), "MutatingAdmissionPolicy %s", tc.want)
			g.Expect(policy.GetLabels()).To(HaveKeyWithValue("scheduling.profilescheduler.io/owned-by", "profile-scheduler"))
			g.Expect(policy.Object["spec"]).To(Equal(program.Object["spec"]), "the program of config/routes")
			binding := find(objs, "MutatingAdmissionPolicyBinding", tc.want)
			g.Expect(binding).NotTo(BeNil())
			name, _, _ := unstructured.NestedString(binding.Object, "spec", "policyName")
			g.Expect(name).To(Equal(tc.want))
			param, _, _ := unstructured.NestedString(binding.Object, "spec", "paramRef", "name")
			g.Expect(param).To(Equal(tc.want), "the binding reads the release's RoutingTable")
			for _, o := range objs {
				g.Expect(o.GetKind()).NotTo(Equal("RoutingTable"), "the operator writes the table, not the chart")
			}

			role := find(objs, "ClusterRole", tc.fullname)
			g.Expect(role).NotTo(BeNil())
			for _, p := range permissions(t, role) {
				g.Expect(p).NotTo(ContainSubstring("admissionpolicies"), "no right on admission policies")
				g.Expect(p).NotTo(ContainSubstring("admissionpolicybindings"), "no right on their bindings")
			}
			g.Expect(permissions(t, role)).To(ContainElements(
				"create routingtables.scheduling.profilescheduler.io", "update routingtables.scheduling.profilescheduler.io"))
			d := find(objs, "Deployment", tc.fullname)
			g.Expect(d).NotTo(BeNil())
			args, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			g.Expect(args).To(HaveLen(1))
			g.Expect(args[0]).To(HaveKeyWithValue("args", ContainElement("--routes-policy-name="+tc.want)))
		})
	}
}

// programOf returns the routes MutatingAdmissionPolicy of objs.
func programOf(t *testing.T, objs []*unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == "MutatingAdmissionPolicy" {
			return o
		}
	}
	t.Fatal("no MutatingAdmissionPolicy")
	return nil
}

// The routes program and its binding render the same whatever the
// values that do not concern routes, and whatever the cluster holds (no
// lookup): a GitOps tool that renders the chart on every sync applies
// the same objects.
func TestRoutesProgramRendersTheSame(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile(filepath.Join(chartDir(t), "templates", "routes-policy.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(data)).NotTo(ContainSubstring("lookup"))
	routesObjects := func(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
		var out []*unstructured.Unstructured
		for _, o := range objs {
			if strings.HasPrefix(o.GetKind(), "MutatingAdmissionPolicy") {
				out = append(out, o)
			}
		}
		g.Expect(out).To(HaveLen(2))
		return out
	}
	first := routesObjects(renderChart(t))
	g.Expect(routesObjects(renderChart(t, "--set", gitOpsValues[1]))).To(Equal(first))
	g.Expect(routesObjects(renderChart(t, "--set", gitOpsValues[0]))).To(Equal(first))
}

// gitOpsValues are two sets of values that do not concern routes.
var gitOpsValues = []string{
	"replicaCount=1,logVerbosity=2,webhook.enabled=false",
	"replicaCount=2,logVerbosity=4,webhook.enabled=false,reviews.concurrency=8",
}

// A GitOps tool applies the rendered chart on every sync, here every
// second and with other values each time (as Argo CD does after a change
// of values), while routes are in force (the RoutingTable as the
// operator writes it) and a pod is created every 50 ms: none misses its
// route. No operator runs: routing is kube-apiserver's alone, which a
// sync must not disturb.
func TestGitOpsSyncKeepsPodsRouted(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	g := NewWithT(t)
	ensureNamespace(ctx, t, c)
	routed := "gitops-routed"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: routed, Labels: map[string]string{"gitops": "routed"}}}); err != nil {
		g.Expect(client.IgnoreAlreadyExists(err)).To(Succeed())
	}
	renders := [][]*unstructured.Unstructured{
		renderChart(t, "--set", "crds.install=false,"+gitOpsValues[0]),
		renderChart(t, "--set", "crds.install=false,"+gitOpsValues[1]),
	}
	t.Cleanup(func() {
		deleteAll(context.Background(), t, c, renders[0])
		deleteAll(context.Background(), t, c, renders[1]) // what only the second has (a PodDisruptionBudget)
	})
	applyAll(ctx, t, c, "argocd-controller", renders[0])

	table, verdicts := routing.Build(routing.Input{
		Routes: []v1alpha1.ProfileRoute{{ObjectMeta: metav1.ObjectMeta{Name: "gitops"}, Spec: v1alpha1.ProfileRouteSpec{
			Profile: "gitops-target", WhenProfileNotServing: v1alpha1.ProfileNotServingHold,
			NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"gitops": "routed"}}}}},
		Protected: routing.DefaultProtected(namespace),
	})
	g.Expect(verdicts["gitops"].InTable()).To(BeTrue(), "%+v", verdicts["gitops"])
	params := table.Params(routing.PolicyName)
	g.Expect(c.Create(ctx, params)).To(Succeed())
	t.Cleanup(func() { _ = c.Delete(context.Background(), params) })

	newPod := func(prefix string) (string, error) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: routed, GenerateName: prefix},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}}}}
		err := c.Create(ctx, p)
		return p.Spec.SchedulerName, err
	}
	g.Eventually(func() (string, error) { return newPod("gitops-before-") }).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).
		Should(Equal("gitops-target"), "kube-apiserver runs the program over the table")

	stream := startPods(func() (string, error) { return newPod("gitops-") }, "gitops-target")
	for i := range 8 {
		applyAll(ctx, t, c, "argocd-controller", renders[i%2])
		time.Sleep(time.Second)
	}
	time.Sleep(2 * time.Second) // pods keep coming after the last sync, while kube-apiserver would apply a changed policy
	created, unrouted, err := stream.stop()
	g.Expect(err).NotTo(HaveOccurred())
	t.Logf("%d pods created during 8 syncs, %d not routed", created, len(unrouted))
	g.Expect(created).To(BeNumerically(">", 100))
	g.Expect(unrouted).To(BeEmpty(), "pods created during the syncs that were not routed")
}

// podStream creates a pod every 50 ms until stopped and keeps those that
// did not get the schedulerName wanted.
type podStream struct {
	done     chan struct{}
	finished sync.WaitGroup
	created  int
	unrouted []string
	err      error
}

func startPods(create func() (string, error), want string) *podStream {
	s := &podStream{done: make(chan struct{})}
	s.finished.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-s.done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			got, err := create()
			if err != nil {
				s.err = err
				return
			}
			s.created++
			if got != want {
				s.unrouted = append(s.unrouted, fmt.Sprintf("pod %d (%s)", i, got))
			}
		}
	})
	return s
}

// stop stops the stream and returns how many pods it created, those not
// routed, and the error that stopped it early.
func (s *podStream) stop() (int, []string, error) {
	close(s.done)
	s.finished.Wait()
	return s.created, s.unrouted, s.err
}

// On a cluster without MutatingAdmissionPolicy v1 the chart installs
// without the routes policy (routes are refused there).
func TestChartWithoutMutatingAdmissionPolicy(t *testing.T) {
	g := NewWithT(t)
	objs := renderChartWithout(t)
	g.Expect(find(objs, "Deployment", releaseName)).NotTo(BeNil())
	for _, o := range objs {
		g.Expect(o.GetKind()).NotTo(HavePrefix("MutatingAdmissionPolicy"))
	}
}
