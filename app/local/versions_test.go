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
	"os/exec"
	"strings"
	"testing"
)

// The versions local mode's error tells users to build are the ones the
// operator's go.mod pins.
func TestVersionsMatchGoMod(t *testing.T) {
	for mod, want := range map[string]string{"k8s.io/kubernetes": kubernetesVersion, "go.etcd.io/etcd/server/v3": etcdVersion} {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", mod).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", mod, err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s: go.mod pins %s, local mode says %s", mod, got, want)
		}
	}
}
