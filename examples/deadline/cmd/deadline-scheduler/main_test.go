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

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/app"
	"github.com/profile-scheduler/profile-scheduler/app/local/localtest"
	"github.com/profile-scheduler/profile-scheduler/examples/deadline"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

const timeout = 60 * time.Second

// TestScheduler runs this binary's command against a local control plane
// and checks what a user sees: the README's profile, whose args are in
// upstream's convention, goes Ready with Deadline as its QueueSort and
// Score plugin and places an urgent pod on the fast node and a relaxed one
// elsewhere; args of the wrong type, unknown fields and args the validator
// rejects refuse a profile naming the field.
func TestScheduler(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	cluster, c := localtest.Start(t)

	g.Expect(local.CreateNodes(ctx, c, []local.NodeSpec{
		{Name: "fast", Zone: "zone-a", CPU: "8", Memory: "32Gi", Pods: "110"},
		{Name: "slow", Zone: "zone-a", CPU: "8", Memory: "32Gi", Pods: "110"},
	})).To(Succeed())
	node := &corev1.Node{}
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "fast"}, node)).To(Succeed())
	base := node.DeepCopy()
	node.Labels["example.com/fast"] = ""
	g.Expect(c.Patch(ctx, node, client.MergeFrom(base))).To(Succeed())

	done := testenv.RunCommand(ctx, t, cancel, app.NewCommand(options()...), cluster.Kubeconfig, timeout)

	readyCondition := func(g Gomega, name string) (*v1alpha1.SchedulerProfile, *metav1.Condition) {
		sp := &v1alpha1.SchedulerProfile{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: name}, sp)).To(Succeed())
		g.Expect(sp.Status.ObservedGeneration).To(Equal(sp.Generation))
		cond := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady)
		g.Expect(cond).NotTo(BeNil())
		return sp, cond
	}
	podOn := func(name string, annotations map[string]string) string {
		node, err := testenv.CreateBound(ctx, c, testenv.PausePod(name, "deadline", annotations), timeout)
		NewWithT(t).Expect(err).NotTo(HaveOccurred())
		return node
	}

	t.Run("the README's profile goes Ready and places pods by deadline", func(t *testing.T) {
		g := NewWithT(t)
		data, err := os.ReadFile(filepath.Join("..", "..", "profile.yaml"))
		g.Expect(err).NotTo(HaveOccurred())
		sp := &v1alpha1.SchedulerProfile{}
		g.Expect(yaml.UnmarshalStrict(data, sp)).To(Succeed())
		g.Expect(c.Create(ctx, sp)).To(Succeed())
		g.Eventually(func(g Gomega) {
			var cond *metav1.Condition
			sp, cond = readyCondition(g, "deadline")
			g.Expect(cond.Status).To(Equal(metav1.ConditionTrue), cond.Message)
		}).WithTimeout(timeout).Should(Succeed())
		g.Expect(sp.Status.Plugins).To(ContainElement(v1alpha1.ExtensionPointPlugins{
			ExtensionPoint: "QueueSort", Plugins: []v1alpha1.EffectivePlugin{{Name: deadline.Name}},
		}))
		g.Expect(sp.Status.Plugins).To(ContainElement(HaveField("ExtensionPoint", "Score")))

		soon := time.Now().Add(2 * time.Minute).UTC().Format(time.RFC3339)
		g.Expect(podOn("urgent", map[string]string{"example.com/deadline": soon})).To(Equal("fast"))
		g.Expect(podOn("relaxed", nil)).To(Equal("slow"), "a pod due in an hour keeps off the fast node")
	})

	for _, tc := range []struct {
		name, profile, args string
		mentions            []string
	}{
		{name: "args of the wrong type are refused, naming the field", profile: "wrong-type",
			args: `{"urgentWithinSeconds":"soon"}`, mentions: []string{"plugin Deadline", "spec.pluginConfig[0].args.urgentWithinSeconds", "must be of type integer"}},
		{name: "an unknown field is refused, naming it", profile: "unknown-field",
			args: `{"urgentWithin":60}`, mentions: []string{"plugin Deadline", "spec.pluginConfig[0].args.urgentWithin"}},
		{name: "args the validator rejects are refused, naming the field", profile: "zero-window",
			args: `{"urgentWithinSeconds":0}`, mentions: []string{"plugin Deadline", "spec.pluginConfig[0].args.urgentWithinSeconds", "must be greater than 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			sp := &v1alpha1.SchedulerProfile{
				ObjectMeta: metav1.ObjectMeta{Name: tc.profile},
				Spec: v1alpha1.SchedulerProfileSpec{
					Plugins:      &v1alpha1.Plugins{Score: v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: deadline.Name}}}},
					PluginConfig: []v1alpha1.PluginConfig{{Name: deadline.Name, Args: runtime.RawExtension{Raw: []byte(tc.args)}}},
				},
			}
			g.Expect(c.Create(ctx, sp)).To(Succeed())
			g.Eventually(func(g Gomega) {
				_, cond := readyCondition(g, tc.profile)
				g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
				g.Expect(cond.Reason).To(Equal(v1alpha1.ReasonInvalidPluginArgs), cond.Message)
				for _, m := range tc.mentions {
					g.Expect(cond.Message).To(ContainSubstring(m))
				}
			}).WithTimeout(timeout).Should(Succeed())
		})
	}

	select {
	case err := <-done:
		t.Fatalf("the operator stopped: %v", err)
	default:
	}
}
