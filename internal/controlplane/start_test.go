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

package controlplane_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// lockedBuffer is written by a process's standard output and standard
// error copiers at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestWithOutputKeepsKubeAPIServerAndEtcdOutputApart(t *testing.T) {
	var apiserver, etcd lockedBuffer
	env, _, err := controlplane.Start(controlplane.WithOutput(&apiserver, &etcd))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Stop(); err != nil {
		t.Fatal(err)
	}
	// kube-apiserver logs with klog's header, etcd in JSON, each to its own
	// writer.
	klogLine := regexp.MustCompile(`(?m)^[IWE]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+\.go:\d+\]`)
	etcdLine := regexp.MustCompile(`(?m)^\{"level":"\w+".*"caller":"[^"]*etcd`)
	if got := apiserver.String(); !klogLine.MatchString(got) || etcdLine.MatchString(got) {
		t.Errorf("kube-apiserver's output: want its klog lines and no etcd line, got:\n%.2000s", got)
	}
	if got := etcd.String(); !etcdLine.MatchString(got) || klogLine.MatchString(got) {
		t.Errorf("etcd's output: want its JSON lines and no klog line, got:\n%.2000s", got)
	}
}

// A start that fails after etcd and kube-apiserver are up (here: a CRD the
// API server refuses) stops them and leaves no directory of theirs behind.
func TestStartThatFailsHalfWayStopsWhatItStarted(t *testing.T) {
	dir := t.TempDir()
	bad := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: broken.example.com}\nspec:\n  group: example.com\n  names: {kind: Broken, plural: brokens}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true}]\n"
	if err := os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	// The processes' directories go to a TMPDIR of the test's own, which
	// other packages' control planes, started in parallel, do not use.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	env, _, err := controlplane.Start(controlplane.WithCRDDirectory(dir))
	if err == nil {
		_ = env.Stop()
		t.Fatal("Start with a CRD the API server refuses: want an error")
	}
	if !strings.Contains(err.Error(), "broken.example.com") {
		t.Errorf("the error names the CRD: %v", err)
	}
	children, cerr := testenv.ChildProcesses(os.Getpid())
	if cerr != nil {
		t.Fatal(cerr)
	}
	for _, c := range children {
		if n := c.Name(); n == "etcd" || n == "kube-apiserver" {
			t.Errorf("%s (pid %d) still runs after the failed start", n, c.PID)
		}
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("%s left behind in TMPDIR", e.Name())
	}
}
