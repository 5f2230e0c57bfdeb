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

package local

import (
	"context"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	schedulingv1alpha1 "github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// TestLocalCluster starts the local control plane as local mode does and
// checks what a person then finds in it with the written kubeconfig.
func TestLocalCluster(t *testing.T) {
	ctx := context.Background()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cluster, err := Start(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(); err != nil {
			t.Error(err)
		}
	})

	// The kubeconfig on disk is what kubectl uses: build the client from it.
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("kubeconfig written by Start does not load: %v", err)
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(schedulingv1alpha1.AddToScheme(scheme))
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	for range 2 { // a second run finds the nodes there and leaves them alone
		if err := CreateNodes(ctx, c, DefaultNodes()); err != nil {
			t.Fatal(err)
		}
	}
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != len(DefaultNodes()) {
		t.Fatalf("got %d nodes, want %d", len(nodes.Items), len(DefaultNodes()))
	}
	zones := map[string]bool{}
	for _, n := range nodes.Items {
		if n.Status.Allocatable.Cpu().IsZero() {
			t.Errorf("node %s has no allocatable CPU", n.Name)
		}
		ready := false
		for _, cond := range n.Status.Conditions {
			ready = ready || (cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue)
		}
		if !ready {
			t.Errorf("node %s is not Ready", n.Name)
		}
		for _, taint := range n.Spec.Taints {
			t.Errorf("node %s has taint %s: pods could not land on it", n.Name, taint.ToString())
		}
		z := n.Labels[corev1.LabelTopologyZone]
		if z == "" {
			t.Errorf("node %s has no %s label: the walkthrough says every node is in a zone", n.Name, corev1.LabelTopologyZone)
		}
		zones[z] = true
	}
	if len(zones) != 3 {
		t.Errorf("nodes span zones %v, want 3 zones", zones)
	}

	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	applied, err := ApplyDir(ctx, c, filepath.Join(root, "config", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) == 0 || applied[0] != "ExtenderConfig/gpu-filter" {
		t.Errorf("applied %v: want ExtenderConfigs first", applied)
	}
	var profiles schedulingv1alpha1.SchedulerProfileList
	if err := c.List(ctx, &profiles); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, p := range profiles.Items {
		names[p.Name] = true
		if p.Annotations[corev1.LastAppliedConfigAnnotation] == "" {
			t.Errorf("profile %s has no %s annotation: kubectl apply would warn", p.Name, corev1.LastAppliedConfigAnnotation)
		}
	}
	for _, want := range []string{"bin-packing", "spread", "with-extender"} {
		if !names[want] {
			t.Errorf("sample profile %s not applied (have %v)", want, names)
		}
	}
}
