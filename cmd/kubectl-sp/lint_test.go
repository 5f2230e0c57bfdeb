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
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// lint prints each finding and a summary, and ends with status 1 when an
// object is refused, printing nothing more (main exits with exitError's
// status).
func TestLintCommand(t *testing.T) {
	run := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		root := newRootCommand(streamsFor(&out, &errOut))
		root.SetArgs(append([]string{"lint"}, args...))
		err := root.Execute()
		return out.String(), errOut.String(), err
	}
	out, _, err := run("-f", "../../config/samples/lint/profiles.yaml")
	var code exitError
	if !errors.As(err, &code) || code != 1 {
		t.Errorf("a refusal: %v, want exit status 1", err)
	}
	want := `../../config/samples/lint/profiles.yaml:2: SchedulerProfile packing-typo: refused: InvalidPluginArgs: plugin NodeResourcesFit: spec.pluginConfig[0].args.scoringStrategy.type: Unsupported value: "MostAlocated": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"
../../config/samples/lint/profiles.yaml:3: ConfigMap team-settings: note: skipped: not an object of scheduling.profilescheduler.io
2 objects checked, 1 refused
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}

	out, _, err = run("-f", "../../config/samples/scheduling_v1alpha1_schedulerprofile_spread.yaml")
	if err != nil || out != "1 object checked, 0 refused\n" {
		t.Errorf("a profile that passes: %v\n%s", err, out)
	}
	if _, _, err := run(); err == nil || !strings.Contains(err.Error(), "lint needs -f") {
		t.Errorf("lint without -f: %v", err)
	}
	if _, _, err := run("-f", "no-such-file.yaml"); err == nil || errors.As(err, &code) {
		t.Errorf("a file that does not exist: %v, want an error printed", err)
	}
}

// With --cluster, what the files lack comes from the cluster of the
// kubeconfig: an ExtenderConfig there resolves, one in neither is refused
// as the operator refuses it, and a profile there claims its
// schedulerName before a new one of the files.
func TestLintCluster(t *testing.T) {
	e := startRolloutEnv(t)
	ctx := context.Background()
	for _, o := range []client.Object{
		&v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: "in-cluster"}, Spec: v1alpha1.ExtenderConfigSpec{URLPrefix: "http://extender", FilterVerb: "filter"}},
		&v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "older"}, Spec: v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("taken")}},
	} {
		if err := e.c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "profiles.yaml")
	if err := os.WriteFile(file, []byte(`apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: SchedulerProfile
metadata: {name: uses-cluster-extender}
spec: {extenders: [in-cluster]}
---
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: SchedulerProfile
metadata: {name: missing-extender}
spec: {extenders: [nowhere]}
---
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: SchedulerProfile
metadata: {name: newer}
spec: {schedulerName: taken}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	res := e.run("lint", "--cluster", "-f", file)
	var code exitError
	if !errors.As(res.err, &code) || code != 1 {
		t.Errorf("lint --cluster: %v, want exit status 1", res.err)
	}
	want := file + `:2: SchedulerProfile missing-extender: refused: ExtenderNotFound: spec.extenders[0]: ExtenderConfig "nowhere" not found
` + file + `:3: SchedulerProfile newer: refused: SchedulerNameConflict: spec.schedulerName "taken" is already claimed by the older SchedulerProfile "older"; this profile takes it over when "older" is deleted or renamed
3 objects checked, 2 refused
`
	if got := res.out.String(); got != want {
		t.Errorf("lint --cluster printed:\n%s\nwant:\n%s", got, want)
	}
}
