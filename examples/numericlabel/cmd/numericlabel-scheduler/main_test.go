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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-base/metrics/legacyregistry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/app"
	"github.com/profile-scheduler/profile-scheduler/app/local/localtest"
	"github.com/profile-scheduler/profile-scheduler/examples/numericlabel"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

const (
	timeout = 60 * time.Second
	costKey = "example.com/cost"
)

// TestScheduler runs this binary's command, as the README runs it, against
// a local control plane, and checks what a user sees: profiles enabling
// NumericLabel go Ready and list it, pods land where its scores say, bad
// args and a pluginConfig for no plugin are refused naming the field, and
// upstream's metrics carry the plugin's name.
func TestScheduler(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	cluster, c := localtest.Start(t)

	costs := map[string]string{"cheap": "1", "mid": "5", "dear": "9", "unlabelled": ""}
	var nodes []local.NodeSpec
	for name := range costs {
		nodes = append(nodes, local.NodeSpec{Name: name, Zone: "zone-a", CPU: "8", Memory: "32Gi", Pods: "110"})
	}
	g.Expect(local.CreateNodes(ctx, c, nodes)).To(Succeed())
	for name, cost := range costs {
		if cost == "" {
			continue
		}
		node := &corev1.Node{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: name}, node)).To(Succeed())
		base := node.DeepCopy()
		node.Labels[costKey] = cost
		g.Expect(c.Patch(ctx, node, client.MergeFrom(base))).To(Succeed())
	}

	done := testenv.RunCommand(ctx, t, cancel, app.NewCommand(options()...), cluster.Kubeconfig, timeout)

	profile := func(name, args string, pluginConfigName ...string) *v1alpha1.SchedulerProfile {
		pcName := numericlabel.Name
		if len(pluginConfigName) > 0 {
			pcName = pluginConfigName[0]
		}
		return &v1alpha1.SchedulerProfile{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.SchedulerProfileSpec{
				Plugins: &v1alpha1.Plugins{Score: v1alpha1.PluginSet{
					Disabled: []v1alpha1.Plugin{{Name: "*"}},
					Enabled:  []v1alpha1.Plugin{{Name: numericlabel.Name}},
				}},
				PluginConfig: []v1alpha1.PluginConfig{{Name: pcName, Args: runtime.RawExtension{Raw: []byte(args)}}},
			},
		}
	}
	ready := func(g Gomega, name string) (*v1alpha1.SchedulerProfile, *metav1.Condition) {
		sp := &v1alpha1.SchedulerProfile{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: name}, sp)).To(Succeed())
		g.Expect(sp.Status.ObservedGeneration).To(Equal(sp.Generation))
		cond := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady)
		g.Expect(cond).NotTo(BeNil())
		return sp, cond
	}
	podOn := func(name, schedulerName string) string {
		node, err := testenv.CreateBound(ctx, c, testenv.PausePod(name, schedulerName, nil), timeout)
		NewWithT(t).Expect(err).NotTo(HaveOccurred())
		return node
	}

	t.Run("the README's profile goes Ready, lists the plugin, and places pods by its scores", func(t *testing.T) {
		g := NewWithT(t)
		data, err := os.ReadFile(filepath.Join("..", "..", "profile.yaml"))
		g.Expect(err).NotTo(HaveOccurred())
		readme := &v1alpha1.SchedulerProfile{}
		g.Expect(yaml.UnmarshalStrict(data, readme)).To(Succeed())
		g.Expect(readme.Name).To(Equal("cheapest"))
		g.Expect(c.Create(ctx, readme)).To(Succeed())
		var sp *v1alpha1.SchedulerProfile
		g.Eventually(func(g Gomega) {
			var cond *metav1.Condition
			sp, cond = ready(g, "cheapest")
			g.Expect(cond.Status).To(Equal(metav1.ConditionTrue), cond.Message)
		}).WithTimeout(timeout).Should(Succeed())
		g.Expect(sp.Status.Plugins).To(ContainElement(v1alpha1.ExtensionPointPlugins{
			ExtensionPoint: "Score", Plugins: []v1alpha1.EffectivePlugin{{Name: numericlabel.Name, Weight: 1}},
		}))
		for i := range 3 {
			g.Expect(podOn(fmt.Sprintf("cheap-%d", i), "cheapest")).To(Equal("cheap"))
		}

		// A new generation preferring high values goes live and places the
		// next pod on the dearest node.
		base := sp.DeepCopy()
		sp.Spec.PluginConfig[0].Args.Raw = []byte(`{"labelKey":"example.com/cost"}`)
		g.Expect(c.Patch(ctx, sp, client.MergeFrom(base))).To(Succeed())
		g.Eventually(func(g Gomega) {
			sp, cond := ready(g, "cheapest")
			g.Expect(cond.Status).To(Equal(metav1.ConditionTrue), cond.Message)
			g.Expect(sp.Status.ActiveGeneration).To(BeEquivalentTo(2))
		}).WithTimeout(timeout).Should(Succeed())
		g.Expect(podOn("dear-0", "cheapest")).To(Equal("dear"))
	})

	t.Run("upstream metrics carry the plugin's name", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(pluginEvaluations(numericlabel.Name, "cheapest")).To(BeNumerically(">=", 4*len(costs)),
			"every pod is scored on every node")
	})

	for _, tc := range []struct {
		name, profile, args, pcName, reason string
		mentions                            []string
	}{
		{
			name: "an unknown args field is refused, naming it", profile: "unknown-field",
			args: `{"labelKey":"example.com/cost","preferlow":true}`, reason: v1alpha1.ReasonInvalidPluginArgs,
			mentions: []string{"plugin NumericLabel", "unknown field spec.pluginConfig[0].args.preferlow"},
		},
		{
			name: "a bad args value is refused, naming the field", profile: "bad-key",
			args: `{"labelKey":"not a label key"}`, reason: v1alpha1.ReasonInvalidPluginArgs,
			mentions: []string{"plugin NumericLabel", "spec.pluginConfig[0].args.labelKey", `"not a label key"`},
		},
		{
			name: "pluginConfig for a plugin that does not exist is refused, naming it", profile: "typo",
			args: `{"labelKey":"example.com/cost"}`, pcName: "NumericLabels", reason: v1alpha1.ReasonUnknownPlugin,
			mentions: []string{"spec.pluginConfig[0].name", `"NumericLabels"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			sp := profile(tc.profile, tc.args)
			if tc.pcName != "" {
				sp.Spec.PluginConfig[0].Name = tc.pcName
			}
			g.Expect(c.Create(ctx, sp)).To(Succeed())
			g.Eventually(func(g Gomega) {
				_, cond := ready(g, tc.profile)
				g.Expect(cond.Status).To(Equal(metav1.ConditionFalse))
				g.Expect(cond.Reason).To(Equal(tc.reason), cond.Message)
				for _, m := range tc.mentions {
					g.Expect(cond.Message).To(ContainSubstring(m))
				}
			}).WithTimeout(timeout).Should(Succeed())
		})
	}

	select {
	case err := <-done:
		t.Fatalf("the operator stopped: %v", errors.Join(err, errors.New("it should still run")))
	default:
	}
}

// pluginEvaluations reads scheduler_plugin_evaluation_total of a plugin's
// Score in a profile from upstream's registry.
func pluginEvaluations(plugin, profile string) (float64, error) {
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return 0, err
	}
	for _, f := range families {
		if f.GetName() != "scheduler_plugin_evaluation_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["plugin"] == plugin && labels["profile"] == profile && labels["extension_point"] == "Score" {
				return m.GetCounter().GetValue(), nil
			}
		}
	}
	return 0, nil
}
