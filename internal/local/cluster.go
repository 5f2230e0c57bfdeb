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
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/internal/atomicfile"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// Cluster is a running local control plane.
type Cluster struct {
	env *envtest.Environment
	// Config is an admin rest config for the control plane.
	Config *rest.Config
	// Kubeconfig is the path of the admin kubeconfig written for kubectl.
	Kubeconfig string
	// Kubectl is the path of the kubectl binary that matches the server.
	Kubectl string
}

// Start starts etcd and kube-apiserver from the local binaries, installs the
// CRDs and writes an admin kubeconfig to kubeconfigPath. opts configure the
// API server (controlplane.WithPodGroups).
func Start(kubeconfigPath string, opts ...controlplane.Option) (*Cluster, error) {
	env, cfg, err := controlplane.Start(opts...)
	if err != nil {
		return nil, err
	}
	c := &Cluster{env: env, Config: cfg, Kubectl: filepath.Join(env.BinaryAssetsDirectory, "kubectl")}
	user, err := env.AddUser(envtest.User{Name: "local-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	if err := os.MkdirAll(filepath.Dir(kubeconfigPath), 0o700); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	if err := atomicfile.Write(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	c.Kubeconfig = kubeconfigPath
	return c, nil
}

// Stop stops the control plane and every process it started.
func (c *Cluster) Stop() error {
	return c.env.Stop()
}

// NodeSpec describes one node of the local cluster.
type NodeSpec struct {
	Name   string
	Zone   string
	CPU    string
	Memory string
	Pods   string
}

// DefaultNodes are six nodes in three zones (two in each), sized like
// common cloud VMs.
func DefaultNodes() []NodeSpec {
	return []NodeSpec{
		{Name: "node-a1", Zone: "zone-a", CPU: "4", Memory: "16Gi", Pods: "110"},
		{Name: "node-a2", Zone: "zone-a", CPU: "8", Memory: "32Gi", Pods: "110"},
		{Name: "node-b1", Zone: "zone-b", CPU: "4", Memory: "16Gi", Pods: "110"},
		{Name: "node-b2", Zone: "zone-b", CPU: "8", Memory: "32Gi", Pods: "110"},
		{Name: "node-c1", Zone: "zone-c", CPU: "4", Memory: "16Gi", Pods: "110"},
		{Name: "node-c2", Zone: "zone-c", CPU: "16", Memory: "64Gi", Pods: "110"},
	}
}

// nodeFor returns the Ready node object of spec.
func nodeFor(spec NodeSpec) *corev1.Node {
	node := controlplane.Node(spec.Name, corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(spec.CPU),
		corev1.ResourceMemory: resource.MustParse(spec.Memory),
		corev1.ResourcePods:   resource.MustParse(spec.Pods),
	})
	node.Labels[corev1.LabelOSStable] = "linux"
	node.Labels[corev1.LabelArchStable] = "amd64"
	if spec.Zone != "" {
		node.Labels[corev1.LabelTopologyZone] = spec.Zone
		node.Labels[corev1.LabelTopologyRegion] = "local"
	}
	node.Status.Conditions[0].Message = "local mode node, no kubelet behind it"
	return node
}

// CreateNodes creates the nodes Ready and without the not-ready taint
// (controlplane.CreateReadyNode: there is no kubelet and no node lifecycle
// controller here); nodes that already exist are left alone.
func CreateNodes(ctx context.Context, c client.Client, specs []NodeSpec) error {
	for _, spec := range specs {
		if err := controlplane.CreateReadyNode(ctx, c, nodeFor(spec)); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// ApplyDir server-side applies every YAML document of every *.yaml file in
// dir, ExtenderConfigs first so profiles find their extenders.
func ApplyDir(ctx context.Context, c client.Client, dir string) ([]string, error) {
	return ApplyFS(ctx, c, os.DirFS(dir))
}

// ApplyFS is ApplyDir for the *.yaml files at the root of fsys.
func ApplyFS(ctx context.Context, c client.Client, fsys fs.FS) ([]string, error) {
	objs, err := decodeFS(fsys)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(objs, func(i, j int) bool {
		return objs[i].GetKind() == "ExtenderConfig" && objs[j].GetKind() != "ExtenderConfig"
	})
	var applied []string
	for _, u := range objs {
		// Record what was applied as kubectl apply does, so a later
		// `kubectl apply -f config/samples` merges with it quietly.
		last, err := u.MarshalJSON()
		if err != nil {
			return applied, err
		}
		annotations := u.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[corev1.LastAppliedConfigAnnotation] = string(last)
		u.SetAnnotations(annotations)
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("local-mode"), client.ForceOwnership); err != nil {
			return applied, fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
		}
		applied = append(applied, u.GetKind()+"/"+u.GetName())
	}
	return applied, nil
}

// CRDs decodes the CustomResourceDefinitions of the *.yaml files at the
// root of fsys.
func CRDs(fsys fs.FS) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	objs, err := decodeFS(fsys)
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(objs))
	for _, u := range objs {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
			return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
		out = append(out, crd)
	}
	return out, nil
}

// decodeFS decodes every YAML document of the *.yaml files at the root of
// fsys, in file order.
func decodeFS(fsys fs.FS) ([]*unstructured.Unstructured, error) {
	files, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		docs, err := controlplane.DecodeAll(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		objs = append(objs, docs...)
	}
	return objs, nil
}
