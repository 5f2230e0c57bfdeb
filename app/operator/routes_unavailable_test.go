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

package operator

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// TestRoutesWithoutMutatingAdmissionPolicy runs the operator on a
// kube-apiserver with the MutatingAdmissionPolicy gate off: it stores the
// policy but does not run it. Routes are Stalled with
// AdmissionPolicyNotInForce once a policy has waited 30 s, a deleted
// route is let go, and nothing else stops (profiles go live).
func TestRoutesWithoutMutatingAdmissionPolicy(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The gate is GA in 1.37 but not locked: off, the v1 API is not served
	// and the admission plugin does not run.
	env, cfg, err := controlplane.Start(controlplane.WithAPIServerArg("feature-gates", "MutatingAdmissionPolicy=false"))
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = env.Stop() }()
	c, err := client.New(cfg, client.Options{Scheme: Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	// The installer's routes policy: stored, never run.
	g.Expect(controlplane.InstallRoutesPolicy(ctx, c)).To(Succeed())

	opts := Defaults()
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	opts.ExtenderSecretsNamespace = "default"
	opts.SkipControllerNameValidation = true
	op, err := New(cfg, opts)
	g.Expect(err).NotTo(HaveOccurred())
	opCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- op.Start(opCtx) }()
	defer func() {
		stop()
		g.Expect(<-done).To(Succeed())
	}()

	route := &v1alpha1.ProfileRoute{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Spec: v1alpha1.ProfileRouteSpec{
		Profile: "old-server", NamespaceSelector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"team": "batch"}}}}
	g.Expect(c.Create(ctx, route)).To(Succeed())
	sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "old-server"}}
	g.Expect(c.Create(ctx, sp)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(sp), sp)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
	}).WithTimeout(time.Minute).WithPolling(100*time.Millisecond).Should(Succeed(), "profiles go live all the same")
	g.Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(route), route)).To(Succeed())
		stalled := meta.FindStatusCondition(route.Status.Conditions, v1alpha1.ConditionStalled)
		g.Expect(stalled).NotTo(BeNil())
		g.Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(stalled.Reason).To(Equal(v1alpha1.ReasonAdmissionPolicyNotInForce))
		g.Expect(stalled.Message).To(ContainSubstring("a dry-run pod is not mutated by it"))
		g.Expect(route.Status.ObservedGeneration).To(Equal(route.Generation))
	}).WithTimeout(time.Minute).WithPolling(100 * time.Millisecond).Should(Succeed())

	// Deleting the route: a policy routing nothing is not in force either,
	// but the route's removal is what it waits for, and no policy routes
	// it: let go.
	g.Expect(c.Delete(ctx, route)).To(Succeed())
	g.Eventually(func() error {
		return c.Get(ctx, client.ObjectKeyFromObject(route), route)
	}).WithTimeout(30 * time.Second).Should(MatchError(ContainSubstring("not found")))
}
