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

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
)

// run runs the plugin binary and returns its stdout, stderr and exit code.
func run(bin string, args ...string) (string, string, int) {
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	return stdout.String(), stderr.String(), code
}

// userKubeconfig writes a kubeconfig for a user in no group but
// system:authenticated, and returns its path.
func userKubeconfig(name string) string {
	user, err := env.AddUser(envtest.User{Name: name}, nil)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig, err := user.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(workDir, name+".kubeconfig")
	Expect(os.WriteFile(path, kubeconfig, 0o600)).To(Succeed())
	return path
}

// reviewRoles reads the review ClusterRoles of config/rbac.
func reviewRoles() []*unstructured.Unstructured {
	root, err := controlplane.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	data, err := os.ReadFile(filepath.Join(root, "config", "rbac", "schedulingreview_roles.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			Expect(err).NotTo(HaveOccurred())
		}
		out = append(out, u)
	}
	return out
}

var _ = Describe("kubectl sp", Ordered, func() {
	const (
		nsA     = "review-a"
		nsB     = "review-b"
		profile = "review-e2e"
	)
	var plugin, admin string

	// reviewPool labels this file's nodes.
	const reviewPool = "e2e.profilescheduler.io/pool"

	gatedPod := func(ns, name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.PodSpec{
				SchedulerName:   profile,
				SchedulingGates: []corev1.PodSchedulingGate{{Name: "hold"}},
				Containers:      []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}},
				Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
						Weight: 100,
						Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
							Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"review-2"},
						}}},
					}},
				}},
			},
		}
	}

	BeforeAll(func(ctx SpecContext) {
		plugin = buildTool("kubectl-sp", "./cmd/kubectl-sp")
		admin = writeKubeconfig("review-admin", nil)
		for _, ns := range []string{nsA, nsB} {
			Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		}
		Expect(local.CreateNodes(ctx, k8s, []local.NodeSpec{
			{Name: "review-1", Zone: "zone-a", CPU: "8", Memory: "32Gi", Pods: "110"},
			{Name: "review-2", Zone: "zone-b", CPU: "8", Memory: "32Gi", Pods: "110"},
		})).To(Succeed())
		// The pool label sets these nodes apart from other specs' nodes,
		// which share the API server (and its zones).
		for _, name := range []string{"review-1", "review-2"} {
			var n corev1.Node
			Expect(k8s.Get(ctx, client.ObjectKey{Name: name}, &n)).To(Succeed())
			n.Labels[reviewPool] = "review"
			Expect(k8s.Update(ctx, &n)).To(Succeed())
		}
		for _, u := range reviewRoles() {
			Expect(k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("e2e"), client.ForceOwnership)).To(Succeed())
		}
		op := startInstance("review-operator")
		Eventually(op.ready).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(k8s.Create(ctx, &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: profile}})).To(Succeed())
		Eventually(func(g Gomega) {
			var sp v1alpha1.SchedulerProfile
			g.Expect(k8s.Get(ctx, client.ObjectKey{Name: profile}, &sp)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		}).WithTimeout(60 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(k8s.Create(ctx, gatedPod(nsA, "web"))).To(Succeed())
		Expect(k8s.Create(ctx, gatedPod(nsB, "web"))).To(Succeed())
	})

	reviewsLeft := func(ctx SpecContext, ns string) int {
		var list v1alpha1.SchedulingReviewList
		Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		return len(list.Items)
	}

	It("explains a pod as a table, marks the node the scheduler then picks, and deletes its review", func(ctx SpecContext) {
		stdout, stderr, code := run(plugin, "explain", "web", "-n", nsA, "--kubeconfig", admin)
		Expect(code).To(BeZero(), stderr)
		GinkgoWriter.Println(stdout)
		Expect(stdout).To(ContainSubstring("Pod:       " + nsA + "/web\n"))
		Expect(stdout).To(ContainSubstring("Profile:   " + profile + " (generation 1, schedulerName " + profile + ")\n"))
		Expect(stdout).To(ContainSubstring("Result:    review-2\n"))
		Expect(stdout).To(MatchRegexp(`(?m)^NODE\s+FILTER\s+.*NodeAffinity.*TOTAL$`))
		Expect(stdout).To(MatchRegexp(`(?m)^review-2 \*\s+passed\s+`))
		Expect(reviewsLeft(ctx, nsA)).To(BeZero())

		stdout, stderr, code = run(plugin, "explain", "web", "-n", nsA, "--kubeconfig", admin, "-o", "json")
		Expect(code).To(BeZero(), stderr)
		var sr v1alpha1.SchedulingReview
		Expect(json.Unmarshal([]byte(stdout), &sr)).To(Succeed())
		Expect(sr.Status.Result.SelectedNode).To(Equal("review-2"))

		// As kubectl get prints: apiVersion and kind first, managedFields
		// (which the API server did write) only when asked for.
		stdout, stderr, code = run(plugin, "explain", "web", "-n", nsA, "--kubeconfig", admin, "-o", "yaml")
		Expect(code).To(BeZero(), stderr)
		Expect(stdout).To(HavePrefix("apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: SchedulingReview\n"))
		Expect(stdout).NotTo(ContainSubstring("managedFields"))
		Expect(stdout).To(ContainSubstring("selectedNode: review-2\n"))
		stdout, stderr, code = run(plugin, "explain", "web", "-n", nsA, "--kubeconfig", admin, "-o", "yaml", "--show-managed-fields")
		Expect(code).To(BeZero(), stderr)
		Expect(stdout).To(ContainSubstring("managedFields:\n"))
		stdout, stderr, code = run(plugin, "explain", "web", "-n", nsA, "--kubeconfig", admin, "-o", "jsonpath={.status.result.selectedNode}")
		Expect(code).To(BeZero(), stderr)
		Expect(stdout).To(Equal("review-2"))
		Expect(reviewsLeft(ctx, nsA)).To(BeZero())

		var pod corev1.Pod
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: nsA, Name: "web"}, &pod)).To(Succeed())
		pod.Spec.SchedulingGates = nil
		Expect(k8s.Update(ctx, &pod)).To(Succeed())
		Eventually(func(g Gomega) string {
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: nsA, Name: "web"}, &pod)).To(Succeed())
			return pod.Spec.NodeName
		}).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Equal("review-2"))
	})

	It("exits 1 with the reason on stderr when the review fails", func(ctx SpecContext) {
		stdout, stderr, code := run(plugin, "explain", "nope", "-n", nsA, "--kubeconfig", admin)
		Expect(code).To(Equal(1))
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(ContainSubstring("PodNotFound: spec.podName"))
		Expect(reviewsLeft(ctx, nsA)).To(BeZero())
	})

	It("answers what-if for the pending pods of a draft that serves nothing yet", func(ctx SpecContext) {
		batch := gatedPod(nsB, "batch")
		batch.Spec.SchedulerName, batch.Spec.SchedulingGates = "review-draft", nil
		Expect(k8s.Create(ctx, batch)).To(Succeed())
		draft := filepath.Join(workDir, "draft.yaml")
		Expect(os.WriteFile(draft, []byte("apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: SchedulerProfile\nmetadata:\n  name: review-draft\nspec: {}\n"), 0o600)).To(Succeed())
		stdout, stderr, code := run(plugin, "what-if", "-f", draft, "-n", nsB, "--kubeconfig", admin)
		Expect(code).To(BeZero(), stderr)
		GinkgoWriter.Println(stdout)
		Expect(stdout).To(HavePrefix("1 of 1 pending pod would be placed (draft (schedulerName review-draft), "))
		Expect(stdout).To(MatchRegexp(`(?m)^review-b/batch\s+review-2\s*$`))
		Expect(k8s.Get(ctx, client.ObjectKeyFromObject(batch), batch)).To(Succeed())
		Expect(batch.Spec.NodeName).To(BeEmpty())
	})

	It("answers a capacity scenario: a drain, pods added, the smallest count of nodes", func(ctx SpecContext) {
		job := filepath.Join(workDir, "job.yaml")
		Expect(os.WriteFile(job, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: job}\nspec:\n  nodeSelector: {"+reviewPool+": review}\n  containers: [{name: c, image: pause, resources: {requests: {cpu: \"3\"}}}]\n"), 0o600)).To(Succeed())
		stdout, stderr, code := run(plugin, "what-if", "--profile", profile, "-n", nsA, "--kubeconfig", admin,
			"--drain", "kubernetes.io/hostname=review-1", "--pods", job, "--replicas", "4", "--min-nodes", "review-2", "--max", "5",
			"--report-by", reviewPool)
		Expect(code).To(BeZero(), stderr)
		GinkgoWriter.Println(stdout)
		// 4 pods of 3 CPUs: 2 on review-2 (8 CPUs), review-1 drained; one
		// copy of review-2 takes the other 2.
		Expect(stdout).To(ContainSubstring("1 node removed, 1 added"))
		Expect(stdout).To(MatchRegexp(`(?m)^Smallest count that places every pod: 1 \(tried count:unplaced 0:2 5:0 `))
		Expect(stdout).To(MatchRegexp(`(?m)^review\s+2 → 2\s`), "review-1 drained, one copy of review-2 added")
		Expect(reviewsLeft(ctx, nsA)).To(BeZero())

		By("refusing a template that says nothing of what its nodes hold, naming the field")
		node := filepath.Join(workDir, "node.yaml")
		Expect(os.WriteFile(node, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: empty}\n"), 0o600)).To(Succeed())
		_, stderr, code = run(plugin, "what-if", "--profile", profile, "-n", nsA, "--kubeconfig", admin, "--add-nodes", node+"=2")
		Expect(code).To(Equal(1))
		Expect(stderr).To(ContainSubstring("InvalidScenario: spec.scenario.addNodes[0].template.status.allocatable: Required value"))
	})

	It("lets a user who may edit namespace A review its pods, and not those of B", func(ctx SpecContext) {
		// The review-edit ClusterRole aggregates to edit and admin; envtest
		// runs no aggregation controller, so the user is bound to it directly.
		for _, u := range reviewRoles() {
			labels := u.GetLabels()
			if u.GetName() == "profile-scheduler-review-edit" {
				Expect(labels).To(HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-edit", "true"))
				Expect(labels).To(HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-admin", "true"))
			} else {
				Expect(labels).To(HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-view", "true"))
			}
		}
		Expect(k8s.Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: "alice-reviews"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "profile-scheduler-review-edit"},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "alice"}},
		})).To(Succeed())
		alice := userKubeconfig("alice")

		Eventually(func() int {
			_, _, code := run(plugin, "explain", "web", "-n", nsA, "--kubeconfig", alice)
			return code
		}).WithTimeout(30 * time.Second).WithPolling(500 * time.Millisecond).Should(BeZero())
		_, stderr, code := run(plugin, "explain", "web", "-n", nsB, "--kubeconfig", alice)
		Expect(code).To(Equal(1))
		Expect(stderr).To(ContainSubstring("forbidden"))
		Expect(reviewsLeft(ctx, nsB)).To(BeZero())
	})
})
