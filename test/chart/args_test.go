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
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// TestDeploymentArgsParse runs the operator binary with the arguments the
// chart and config/default give it, plus --version (which exits after the
// flags are parsed), so a flag the chart passes and the command does not define
// fails here rather than in a CrashLoopBackOff.
func TestDeploymentArgsParse(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "profile-scheduler")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the operator: %v\n%s", err, out)
	}

	renderings := map[string]func(t *testing.T) []string{}
	for name, set := range valueSets {
		renderings["chart "+name] = func(t *testing.T) []string {
			return deployment(t, renderChart(t, set...)).Spec.Template.Spec.Containers[0].Args
		}
	}
	renderings["config/default"] = func(t *testing.T) []string {
		requireGeneratedRole(t)
		return deployment(t, renderKustomize(t, "default")).Spec.Template.Spec.Containers[0].Args
	}
	for name, args := range renderings {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			var expanded []string
			for _, a := range args(t) {
				expanded = append(expanded, strings.ReplaceAll(a, "$(POD_NAMESPACE)", namespace))
			}
			cmd := exec.Command(bin, append(expanded, "--version")...)
			out, err := cmd.CombinedOutput()
			g.Expect(err).NotTo(HaveOccurred(), "%s %s\n%s", bin, strings.Join(expanded, " "), out)
			g.Expect(string(out)).To(HavePrefix("profile-scheduler "))
		})
	}
}
