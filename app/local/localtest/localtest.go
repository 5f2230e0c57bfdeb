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

package localtest

import (
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/app/operator"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
)

// Start starts a control plane (the project's CRDs installed) that is
// stopped when the test ends, and returns it with an admin client on the
// operator's scheme.
func Start(t testing.TB) (*local.Cluster, client.Client) {
	t.Helper()
	cluster, err := local.Start(filepath.Join(t.TempDir(), "kubeconfig"))
	if err != nil {
		t.Fatalf("starting the control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	c, err := client.New(cluster.Config, client.Options{Scheme: operator.Scheme})
	if err != nil {
		t.Fatalf("client of the control plane: %v", err)
	}
	return cluster, c
}
