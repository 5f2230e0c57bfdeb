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
	"os"
	"os/exec"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// No operator runs in these specs: the review waits until the spec
// answers it (or is never answered), so what the plugin does on the way
// out is what is tested.
var _ = Describe("kubectl sp on the way out", Ordered, func() {
	const ns = "sp-signals"
	var plugin, admin string

	BeforeAll(func(ctx SpecContext) {
		plugin = buildTool("kubectl-sp", "./cmd/kubectl-sp")
		admin = writeKubeconfig("sp-signals-admin", nil)
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	})

	reviews := func(ctx SpecContext) []v1alpha1.SchedulingReview {
		var list v1alpha1.SchedulingReviewList
		Expect(k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
		return list.Items
	}

	It("deletes its review when Ctrl-C interrupts the wait", func(ctx SpecContext) {
		cmd := exec.Command(plugin, "explain", "web", "-n", ns, "--kubeconfig", admin, "--timeout", "2m")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		Expect(cmd.Start()).To(Succeed())
		Eventually(reviews).WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(1))
		Expect(cmd.Process.Signal(os.Interrupt)).To(Succeed())
		err := cmd.Wait()
		Expect(err).To(HaveOccurred(), "an interrupted command exits non-zero")
		Expect(stderr.String()).To(ContainSubstring("interrupted while waiting for SchedulingReview " + ns + "/explain-"))
		Expect(reviews(ctx)).To(BeEmpty())
	})

	It("deletes its review when its output is cut short (| head: SIGPIPE)", func(ctx SpecContext) {
		r, w, err := os.Pipe()
		Expect(err).NotTo(HaveOccurred())
		// The reader is gone before anything is written: the first write
		// of the answer raises SIGPIPE, which ends the plugin at once.
		Expect(r.Close()).To(Succeed())
		cmd := exec.Command(plugin, "what-if", "--profile", "spread", "-n", ns, "--kubeconfig", admin, "--timeout", "2m")
		cmd.Stdout = w
		Expect(cmd.Start()).To(Succeed())
		Expect(w.Close()).To(Succeed())

		By("answering the review as the operator would")
		var sr v1alpha1.SchedulingReview
		Eventually(func(g Gomega) {
			items := reviews(ctx)
			g.Expect(items).To(HaveLen(1))
			sr = items[0]
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		sr.Status = v1alpha1.SchedulingReviewStatus{
			Profile: "spread", ProfileGeneration: 1, SchedulerName: "spread", SnapshotNodes: 1,
			WhatIf: &v1alpha1.WhatIfResult{PendingPods: 1, Placed: 1, Pods: []v1alpha1.WhatIfPod{{Pod: ns + "/web", Node: "node-1"}}},
			Conditions: []metav1.Condition{{
				Type: v1alpha1.ConditionComplete, Status: metav1.ConditionTrue, Reason: "Answered",
				Message: "answered by the test", LastTransitionTime: metav1.Now(),
			}},
		}
		Expect(k8s.Status().Update(ctx, &sr)).To(Succeed())

		err = cmd.Wait()
		Expect(err).To(HaveOccurred())
		if status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			Expect(status.Signal()).To(Equal(syscall.SIGPIPE))
		}
		Expect(reviews(ctx)).To(BeEmpty())
	})
})
