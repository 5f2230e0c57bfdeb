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

package lint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

func lintText(t *testing.T, o Options, text string) Result {
	t.Helper()
	docs, err := readDocuments("manifest.yaml", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Documents(context.Background(), o, docs...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The samples the operator ships, and that make run applies, pass.
func TestSamplesPass(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "config", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	res, err := Paths(context.Background(), Options{}, nil, files...)
	if err != nil {
		t.Fatal(err)
	}
	if res.Checked != len(files) || res.Refused() != 0 {
		t.Errorf("%d of %d samples checked, %d refused: %v", res.Checked, len(files), res.Refused(), res.Findings)
	}
}

const profileHead = `apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: SchedulerProfile
metadata:
  name: p
`

// Each bad manifest is refused at the step of the admission path that
// refuses it, naming the field.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, manifest      string
		reason, field, text string
	}{
		{"duplicated field", profileHead + "spec:\n  percentageOfNodesToScore: 10\n  percentageOfNodesToScore: 20\n",
			"StrictDecoding", "", `key "percentageOfNodesToScore" already set`},
		{"unknown field", profileHead + "spec:\n  plugns: {}\n", "UnknownField", "spec.plugns", `unknown field "spec.plugns"`},
		{"schema bound", profileHead + "spec:\n  percentageOfNodesToScore: 101\n", "Invalid", "spec.percentageOfNodesToScore", "less than or equal to 100"},
		{"CEL rule", profileHead + "spec:\n  plugins:\n    queueSort:\n      enabled: [{name: PrioritySort}, {name: Other}]\n",
			"Invalid", "spec.plugins", "at most one queueSort plugin may be enabled"},
		{"CEL rule of an ExtenderConfig", "apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: ExtenderConfig\nmetadata: {name: e}\nspec: {urlPrefix: 'ftp://x', filterVerb: filter}\n",
			"Invalid", "spec.urlPrefix", "urlPrefix must start with http:// or https://"},
		{"name", "apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: SchedulerProfile\nmetadata: {name: Bad_Name}\n", "Invalid", "metadata.name", "lowercase RFC 1123"},
		{"kind of another version", "apiVersion: scheduling.profilescheduler.io/v1beta1\nkind: SchedulerProfile\nmetadata: {name: p}\n", "Invalid", "", `no kind "SchedulerProfile" is served in version`},
		{"unknown plugin", profileHead + "spec:\n  plugins:\n    filter:\n      enabled: [{name: NoSuchFilter}]\n", "UnknownPlugin", "spec.plugins.filter.enabled[0].name", `"NoSuchFilter" does not exist`},
		{"plugin args", profileHead + "spec:\n  pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: Biggest}}\n", "InvalidPluginArgs", "spec.pluginConfig[0].args.scoringStrategy.type", "Biggest"},
		{"pluginConfig for no plugin", profileHead + "spec:\n  pluginConfig:\n  - name: NodeResourcesFitt\n    args: {}\n", "UnknownPlugin", "spec.pluginConfig[0].name", "NodeResourcesFitt"},
		{"extender refused by its reconciler", "apiVersion: scheduling.profilescheduler.io/v1alpha1\nkind: ExtenderConfig\nmetadata: {name: e}\nspec:\n  urlPrefix: http://x\n  filterVerb: filter\n  tlsConfig: {secretRef: {name: s, namespace: kube-system}}\n  enableHTTPS: true\n",
			"SecretNamespaceNotAllowed", "spec.tlsConfig.secretRef.namespace", "kube-system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := lintText(t, Options{}, tc.manifest)
			if res.Refused() != 1 {
				t.Fatalf("%d refusals, want 1: %v", res.Refused(), res.Findings)
			}
			var f Finding
			for _, x := range res.Findings {
				if x.Severity == Refused {
					f = x
				}
			}
			if f.Reason != tc.reason || f.Field != tc.field || !strings.Contains(f.Message, tc.text) || f.File != "manifest.yaml" || f.Document != 1 {
				t.Errorf("got %+v\nwant reason %s, field %q, a message with %q, in manifest.yaml:1", f, tc.reason, tc.field, tc.text)
			}
		})
	}
}

// emptyCluster is a cluster without objects of the operator's: what the
// operator reads when it decides a profile of the refusal table.
type emptyCluster struct{}

func (emptyCluster) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: strings.ToLower(obj.GetObjectKind().GroupVersionKind().Kind)}, key.Name)
}

func (emptyCluster) List(context.Context, client.ObjectList, ...client.ListOption) error { return nil }

// Lint refuses every profile of the controllers' refusal table, which the
// operator's spec refuses through the reconciler, with the reason and the
// words the operator's status gives, with the plugins the operator ran
// with and against the same (empty) cluster.
func TestRefusesWhatTheOperatorRefuses(t *testing.T) {
	o := Options{Cluster: emptyCluster{}, OutOfTreeRegistry: frameworkruntime.Registry{testenv.SecondSortName: testenv.NewSecondSort}}
	for _, r := range testenv.ProfileRefusals() {
		t.Run(r.Description, func(t *testing.T) {
			sp := r.Profile.DeepCopy()
			sp.APIVersion, sp.Kind = "scheduling.profilescheduler.io/v1alpha1", "SchedulerProfile"
			data, err := yaml.Marshal(sp)
			if err != nil {
				t.Fatal(err)
			}
			res := lintText(t, o, string(data))
			if res.Refused() != 1 {
				t.Fatalf("%d refusals, want 1: %v", res.Refused(), res.Findings)
			}
			f := res.Findings[len(res.Findings)-1]
			if f.Reason != r.Reason {
				t.Errorf("reason %s, want %s: %s", f.Reason, r.Reason, f.Message)
			}
			for _, m := range r.Mentions {
				if !strings.Contains(f.Message, m) {
					t.Errorf("message does not name %q: %s", m, f.Message)
				}
			}
		})
	}
}

// Several documents (an empty one between two separators is not
// counted), other kinds, references the files do not resolve, and what
// the files decide together.
func TestManifestsTogether(t *testing.T) {
	res := lintText(t, Options{}, `# a kustomize build's output
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
---
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: SchedulerProfile
metadata: {name: gpu}
spec:
  extenders: [gpu-filter, elsewhere]
---
---
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: ExtenderConfig
metadata: {name: gpu-filter}
spec: {urlPrefix: 'http://gpu', filterVerb: filter}
---
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: SchedulerProfile
metadata: {name: gpu-copy}
spec: {schedulerName: gpu}
---
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: ProfileRoute
metadata: {name: a}
spec: {profile: gpu, namespaceSelector: {matchLabels: {team: a}}}
---
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: ProfileRoute
metadata: {name: b}
spec: {profile: gpu, namespaceSelector: {matchLabels: {team: a}}}
---
apiVersion: scheduling.profilescheduler.io/v1alpha1
kind: ProfileRoute
metadata: {name: c}
spec: {profile: nowhere, priority: 5, allNamespaces: true, podSelector: {matchLabels: {app: c}}}
`)
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.String())
	}
	want := []string{
		`manifest.yaml:1: ConfigMap c: note: skipped: not an object of scheduling.profilescheduler.io`,
		`manifest.yaml:2: SchedulerProfile gpu: note: spec.extenders[1]: reading ExtenderConfig "elsewhere": not in the files given (--cluster reads it from the cluster): checked without it`,
		`manifest.yaml:4: SchedulerProfile gpu-copy: refused: SchedulerNameConflict: spec.schedulerName "gpu" is already claimed by the older SchedulerProfile "gpu"; this profile takes it over when "gpu" is deleted or renamed`,
	}
	if res.Checked != 6 || res.Refused() < 2 {
		t.Errorf("%d checked, %d refused, want 6 and the conflicts", res.Checked, res.Refused())
	}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Errorf("finding %d:\n got %q\nwant %q", i, at(got, i), w)
		}
	}
	if len(got) != 5 {
		t.Fatalf("findings:\n%s", strings.Join(got, "\n"))
	}
	if f := res.Findings[3]; f.Document != 6 || f.Severity != Refused || f.Reason != "RouteConflict" || !strings.Contains(f.Message, `"a"`) {
		t.Errorf("the newer of two routes of equal priority selecting the same pods: %s", f)
	}
	if f := res.Findings[4]; f.Document != 7 || f.Severity != Note || f.Reason != "ProfileNotFound" || !strings.Contains(f.Message, "--cluster") {
		t.Errorf("a route to a profile not given: %s", f)
	}
}

// A v1 List, as kubectl get -o yaml prints one, is checked item by item.
func TestList(t *testing.T) {
	res := lintText(t, Options{}, `apiVersion: v1
kind: List
items:
- apiVersion: scheduling.profilescheduler.io/v1alpha1
  kind: SchedulerProfile
  metadata: {name: fine}
- apiVersion: scheduling.profilescheduler.io/v1alpha1
  kind: SchedulerProfile
  metadata: {name: late}
  spec: {percentageOfNodesToScore: 101}
`)
	if res.Checked != 2 || res.Refused() != 1 || res.Findings[0].Name != "late" || res.Findings[0].Document != 1 {
		t.Errorf("%d checked, %d refused: %v", res.Checked, res.Refused(), res.Findings)
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// A directory is read recursively, its manifest files in order; a file of
// the directory that is not YAML or JSON is left alone.
func TestReadPaths(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"b/profile.yaml": profileHead,
		"a.yml":          "---\n# only a comment\n---\n" + profileHead,
		"README.md":      "# not a manifest",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := ReadPaths(strings.NewReader(profileHead), dir, "-")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		rel, _ := filepath.Rel(dir, d.File)
		if d.File == "-" {
			rel = "-"
		}
		got = append(got, rel+":"+string(rune('0'+d.Index)))
	}
	if strings.Join(got, " ") != "a.yml:2 b/profile.yaml:1 -:1" {
		t.Errorf("documents %v", got)
	}
	if _, err := ReadPaths(nil, filepath.Join(dir, "nope")); err == nil {
		t.Error("a path that does not exist is an error")
	}
}
