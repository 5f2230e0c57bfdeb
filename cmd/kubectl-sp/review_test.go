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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// answered is a review as the client reads it back: no apiVersion or kind
// (the typed client drops them), managedFields set by the API server.
func answered() *v1alpha1.SchedulingReview {
	return &v1alpha1.SchedulingReview{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "shop", Name: "explain-abcde",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl-sp", Operation: metav1.ManagedFieldsOperationUpdate}},
		},
		Status: v1alpha1.SchedulingReviewStatus{
			SchedulerName: "bin-packing",
			Result:        &v1alpha1.PodReviewResult{Pod: "shop/web", SelectedNode: "node-2"},
		},
	}
}

// options parses args with the flags explain and what-if share.
func options(t *testing.T, args ...string) *reviewOptions {
	t.Helper()
	o := &reviewOptions{}
	cmd := &cobra.Command{}
	o.addFlags(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return o
}

// printed prints the answered review with the printer args' -o chose.
func printed(t *testing.T, args ...string) string {
	t.Helper()
	o := options(t, args...)
	if err := o.complete(); err != nil {
		t.Fatal(err)
	}
	if o.printer == nil {
		t.Fatalf("%v: no printer, the table would be printed", args)
	}
	var out bytes.Buffer
	if err := o.printer.PrintObj(answered(), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestOutputFormats(t *testing.T) {
	yamlOut := printed(t, "-o", "yaml")
	if want := "apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: SchedulingReview\n"; !strings.HasPrefix(yamlOut, want) {
		t.Errorf("-o yaml does not start with %q:\n%s", want, yamlOut)
	}
	if strings.Contains(yamlOut, "managedFields") {
		t.Errorf("-o yaml prints managedFields:\n%s", yamlOut)
	}
	if out := printed(t, "-o", "yaml", "--show-managed-fields"); !strings.Contains(out, "managedFields:\n") || !strings.Contains(out, "manager: kubectl-sp") {
		t.Errorf("-o yaml --show-managed-fields hides managedFields:\n%s", out)
	}

	jsonOut := printed(t, "-o", "json")
	for _, want := range []string{`"apiVersion": "scheduling.profilescheduler.io/v1alpha1"`, `"kind": "SchedulingReview"`, `"selectedNode": "node-2"`} {
		if !strings.Contains(jsonOut, want) {
			t.Errorf("-o json lacks %s:\n%s", want, jsonOut)
		}
	}
	if strings.Contains(jsonOut, "managedFields") {
		t.Errorf("-o json prints managedFields:\n%s", jsonOut)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "name"}, "schedulingreview.scheduling.profilescheduler.io/explain-abcde\n"},
		{[]string{"-o", "jsonpath={.status.result.selectedNode}"}, "node-2"},
		{[]string{"-o", "go-template={{.kind}} {{.status.result.pod}}"}, "SchedulingReview shop/web"},
		{[]string{"--template={{.kind}}"}, "SchedulingReview"},
	} {
		if got := printed(t, tc.args...); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
	}

	for _, args := range [][]string{nil, {"-o", "table"}} {
		o := options(t, args...)
		if err := o.complete(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if o.printer != nil {
			t.Errorf("%v: a printer, want the table", args)
		}
	}
}

func TestDraft(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, data        string
		wantSchedulerName string
		wantErr           string
	}{{
		name:              "manifest",
		data:              "apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: SchedulerProfile\nmetadata: {name: batch}\nspec: {schedulerName: batch-s, percentageOfNodesToScore: 50}\n",
		wantSchedulerName: "batch-s",
	}, {
		name:              "manifest without a schedulerName",
		data:              "apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: SchedulerProfile\nmetadata: {name: batch}\nspec: {percentageOfNodesToScore: 50}\n",
		wantSchedulerName: "batch",
	}, {
		name:              "bare spec",
		data:              "schedulerName: batch-s\npercentageOfNodesToScore: 50\n",
		wantSchedulerName: "batch-s",
	}, {
		name:    "bare spec with an unknown field",
		data:    "schedulerName: batch-s\npercentageOfNodes: 50\n",
		wantErr: `not a SchedulerProfile spec: error unmarshaling JSON: while decoding JSON: json: unknown field "percentageOfNodes"`,
	}, {
		name:    "unknown field",
		data:    "apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: SchedulerProfile\nmetadata: {name: batch}\nspec: {schedulerName: batch-s, percentageOfNodes: 50}\n",
		wantErr: `unknown field "spec.percentageOfNodes"`,
	}, {
		name:    "another group",
		data:    "apiVersion: scheduling.example.com/v1alpha1\nkind: SchedulerProfile\nmetadata: {name: batch}\nspec: {}\n",
		wantErr: "want kind SchedulerProfile of apiVersion scheduling.profilescheduler.io/v1alpha1, not kind SchedulerProfile of apiVersion scheduling.example.com/v1alpha1",
	}, {
		name:    "another version",
		data:    "apiVersion: scheduling.profilescheduler.io/v1\nkind: SchedulerProfile\nmetadata: {name: batch}\nspec: {}\n",
		wantErr: "want kind SchedulerProfile of apiVersion scheduling.profilescheduler.io/v1alpha1, not kind SchedulerProfile of apiVersion scheduling.profilescheduler.io/v1",
	}, {
		name:    "another kind",
		data:    "apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: ExtenderConfig\nmetadata: {name: batch}\nspec: {urlPrefix: http://x}\n",
		wantErr: "want kind SchedulerProfile of apiVersion scheduling.profilescheduler.io/v1alpha1, not kind ExtenderConfig of apiVersion scheduling.profilescheduler.io/v1alpha1",
	}, {
		name:    "a pod",
		data:    "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: web, image: nginx}]}\n",
		wantErr: "want kind SchedulerProfile of apiVersion scheduling.profilescheduler.io/v1alpha1, not kind Pod of apiVersion v1",
	}, {
		name:    "no apiVersion",
		data:    "kind: SchedulerProfile\nmetadata: {name: batch}\nspec: {}\n",
		wantErr: "Object 'apiVersion' is missing",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(file, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			o := options(t, "-f", file)
			spec, err := o.draft()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), file+": ") {
					t.Fatalf("got error %v, want one starting with the file and containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if spec.SchedulerName == nil || *spec.SchedulerName != tc.wantSchedulerName || spec.PercentageOfNodesToScore == nil || *spec.PercentageOfNodesToScore != 50 {
				t.Errorf("got spec %+v, want schedulerName %q", spec, tc.wantSchedulerName)
			}
		})
	}
}
