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

package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"
)

// With LeaderElect, upstream's configuration turns leader election on with
// a Lease named after the run; without it, leader election is off.
func TestKubeSchedulerLeaderElectionConfig(t *testing.T) {
	k := &KubeScheduler{Kubeconfig: "kc", Settings: Settings{QPS: 1, Burst: 1, Parallelism: 2}}
	k.SetRun("swap-leader-election")
	name := "bench"
	le := func() map[string]any {
		b, err := k.Config(schedv1.KubeSchedulerProfile{SchedulerName: &name})
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := yaml.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		return cfg["leaderElection"].(map[string]any)
	}
	if got := le(); got["leaderElect"] != false || len(got) != 1 {
		t.Errorf("leaderElection without LeaderElect = %v", got)
	}
	k.LeaderElect = true
	got := le()
	if got["leaderElect"] != true || got["resourceLock"] != "leases" || got["resourceNamespace"] != "kube-system" ||
		got["resourceName"] != "bench-swap-leader-election" {
		t.Errorf("leaderElection with LeaderElect = %v", got)
	}
}

func TestLogContains(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	probe := logContains(path, standbyLine)
	if err := probe(context.Background()); err == nil {
		t.Error("passed on a missing file")
	}
	if err := os.WriteFile(path, []byte("I1126 starting\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := probe(context.Background()); err == nil || !strings.Contains(err.Error(), standbyLine) {
		t.Errorf("error %v, want one naming the line waited for", err)
	}
	if err := os.WriteFile(path, []byte(`I1126 leaderelection.go:258] "Attempting to acquire leader lease..." lock="kube-system/x"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := probe(context.Background()); err != nil {
		t.Errorf("the standby line is there: %v", err)
	}
}
