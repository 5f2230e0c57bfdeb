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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// The bash script loads, registers kubectl-sp, and turns what
// `kubectl-sp __complete` answers into COMPREPLY (a shell function stands
// in for the binary); zsh's and fish's scripts are for kubectl-sp too.
func TestCompletionScripts(t *testing.T) {
	script := func(shell string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		root := newRootCommand(streamsFor(&out, &errOut))
		root.SetArgs([]string{"completion", shell})
		if err := root.Execute(); err != nil {
			t.Fatalf("completion %s: %v (%s)", shell, err, errOut.String())
		}
		return out.String()
	}
	file := filepath.Join(t.TempDir(), "kubectl-sp.bash")
	if err := os.WriteFile(file, []byte(script("bash")), 0o600); err != nil {
		t.Fatal(err)
	}
	// The script calls bash-completion's _get_comp_words_by_ref (as
	// kubectl's does, bash-completion is a prerequisite); a minimal one, for
	// words without '=' or ':', stands in for the package.
	bash := exec.Command("bash", "--norc", "--noprofile", "-c", `_get_comp_words_by_ref() {
  while [[ $1 == -* ]]; do shift 2; done
  cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cword=$COMP_CWORD
  words=("${COMP_WORDS[@]}")
}
compopt() { :; } # only valid while bash itself runs a completion
source "$1" || exit 1
complete -p kubectl-sp || exit 1
kubectl-sp() { printf 'bin-packing\nspread\n:4\n'; }
COMP_WORDS=(kubectl-sp rollout status "")
COMP_CWORD=3
COMP_LINE="kubectl-sp rollout status "
COMP_POINT=${#COMP_LINE}
__start_kubectl-sp || exit 1
printf 'reply:%s\n' "${COMPREPLY[@]}"`, "bash", file)
	out, err := bash.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	for _, want := range []string{"-F __start_kubectl-sp kubectl-sp\n", "reply:bin-packing", "reply:spread"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("bash printed no %q:\n%s", want, out)
		}
	}

	if s := script("zsh"); !strings.HasPrefix(s, "#compdef kubectl-sp") {
		t.Errorf("zsh script starts with %.40q", s)
	}
	if s := script("fish"); !strings.Contains(s, "complete -c kubectl-sp ") {
		t.Errorf("fish script registers no completion for kubectl-sp")
	}

	var out2, errOut bytes.Buffer
	root := newRootCommand(streamsFor(&out2, &errOut))
	root.SetArgs([]string{"completion", "powershell"})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), `invalid argument "powershell"`) {
		t.Errorf("completion powershell: %v, want an invalid argument", err)
	}
}

// complete runs `kubectl-sp __complete ARGS` as the shell scripts do and
// returns the completions offered, without the directive line.
func complete(t *testing.T, kubeconfig string, args ...string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRootCommand(streamsFor(&out, &errOut))
	root.SetArgs(append([]string{"__complete", "--kubeconfig", kubeconfig}, args...))
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("__complete %v: %v (%s)", args, err, errOut.String())
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, ":") {
			if line != ":4" {
				t.Errorf("__complete %v: directive %s, want :4 (no file names)", args, line)
			}
			break
		}
		got = append(got, line)
	}
	return got
}

// Names are completed from the cluster, and version reads the operator's
// Deployment; one control plane for both.
func TestCompletionAndVersionFromTheCluster(t *testing.T) {
	e := startRolloutEnv(t)
	ctx := context.Background()
	cs := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(cs); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", e.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	core, err := client.New(cfg, client.Options{Scheme: cs})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{
		&v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "bin-packing"}},
		&v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "spread"}, Spec: v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("spread-pods")}},
	} {
		if err := e.c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "profile-scheduler-system"}},
		inNamespace("team-a", testenv.PausePod("web-1", "", nil)),
		inNamespace("team-a", testenv.PausePod("batch-1", "", nil)),
		testenv.PausePod("elsewhere", "", nil),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pool-a-1"}},
	} {
		if err := core.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"rollout", "status", ""}, []string{"bin-packing", "spread"}},
		{[]string{"rollout", "promote", "sp"}, []string{"spread"}},
		{[]string{"rollout", "promote", "spread", ""}, nil},
		{[]string{"explain", "-n", "team-a", ""}, []string{"batch-1", "web-1"}},
		{[]string{"explain", "-n", "team-a", "w"}, []string{"web-1"}},
		{[]string{"explain", ""}, []string{"elsewhere"}},
		{[]string{"what-if", "--profile", ""}, []string{"bin-packing", "spread"}},
		{[]string{"what-if", "--scheduler-name", ""}, []string{"bin-packing", "spread-pods"}},
		{[]string{"route", "--scheduler-name", "s"}, []string{"spread-pods"}},
		{[]string{"what-if", "--min-nodes", ""}, []string{"pool-a-1"}},
		{[]string{"route", "-n", "team"}, []string{"team-a"}},
		{[]string{"version", "--operator-namespace", "prof"}, []string{"profile-scheduler-system"}},
		{[]string{"version", "-o", ""}, []string{"yaml", "json"}},
		{[]string{"route", "-o", ""}, []string{"wide"}},
		{[]string{"explain", "-o", "t"}, []string{"table", "template", "templatefile"}},
		{[]string{"rollout", "pause", "-o", "n"}, []string{"name"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"--context", ""}, []string{"envtest"}},
	} {
		got := complete(t, e.kubeconfig, tc.args...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("kubectl-sp %s<TAB>: %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}

	// A cluster that cannot be reached completes nothing, and quickly.
	bad := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"+
		"contexts: [{name: c, context: {cluster: c}}]\ncurrent-context: c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := complete(t, bad, "rollout", "status", ""); got != nil {
		t.Errorf("completions from an unreachable cluster: %q", got)
	}

	// version: the client only; then without, and with, the operator's Deployment.
	res := e.run("version", "--client")
	if res.err != nil || !strings.HasPrefix(res.out.String(), "Client Version: ") || strings.Contains(res.out.String(), "Operator") {
		t.Errorf("version --client: %v\n%s", res.err, res.out)
	}
	res = e.run("version")
	if res.err != nil || !strings.Contains(res.out.String(), "Operator Version: unknown (no Deployment labelled "+operatorSelector+" in any namespace)") {
		t.Errorf("version without an operator: %v\n%s", res.err, res.out)
	}
	labels := map[string]string{"app.kubernetes.io/part-of": "profile-scheduler", "control-plane": "controller-manager", "app": "ps"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "profile-scheduler-system", Name: "profile-scheduler", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ps"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{
				{Name: "sidecar", Image: "example.com/sidecar:9"},
				{Name: "manager", Image: "registry.example.com:5000/team/profile-scheduler:v0.1.0"},
			}}},
		},
	}
	if err := core.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	d.Status.Replicas, d.Status.ReadyReplicas = 2, 1
	if err := core.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	res = e.run("version")
	want := "Operator Version: v0.1.0 (deployment profile-scheduler-system/profile-scheduler, image registry.example.com:5000/team/profile-scheduler:v0.1.0, 1/2 ready)\n"
	if res.err != nil || !strings.HasSuffix(res.out.String(), want) {
		t.Errorf("version: %v\n%s\nwant it to end with %s", res.err, res.out, want)
	}
	d.Labels["app.kubernetes.io/version"] = "0.1.0"
	if err := core.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	res = e.run("version", "-o", "yaml", "--operator-namespace", "profile-scheduler-system")
	var info versionInfo
	if err := yaml.UnmarshalStrict([]byte(res.out.String()), &info); res.err != nil || err != nil {
		t.Fatalf("version -o yaml: %v, %v\n%s", res.err, err, res.out)
	}
	if len(info.OperatorVersions) != 1 || info.OperatorVersions[0].Version != "0.1.0" || info.ClientVersion.Version == "" {
		t.Errorf("version -o yaml: %+v", info)
	}
	if res := e.run("version", "-o", "wide"); res.err == nil || res.err.Error() != `--output must be yaml or json, not "wide"` {
		t.Errorf("version -o wide: %v", res.err)
	}
	if res := e.run("version", "--operator-namespace", "team-a"); res.err != nil ||
		!strings.Contains(res.out.String(), "(no Deployment labelled "+operatorSelector+" in namespace team-a)") {
		t.Errorf("version in another namespace: %v\n%s", res.err, res.out)
	}
}

func inNamespace(ns string, pod *corev1.Pod) *corev1.Pod {
	pod.Namespace = ns
	return pod
}
