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
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"
)

// KubeScheduler runs upstream kube-scheduler from a configuration file.
type KubeScheduler struct {
	Bin        string
	Kubeconfig string
	Dir        string
	Settings   Settings
	// ExtraArgs are appended to kube-scheduler's command line.
	ExtraArgs []string
	// FeatureGates, when set, is a --feature-gates flag for the next runs
	// (the case's gates), put before ExtraArgs.
	FeatureGates string
	// LeaderElect runs kube-scheduler with leader election on a Lease
	// (upstream's default durations: 15 s lease, 2 s retry), and makes
	// Restart a hand-over: the new process starts and waits as a standby,
	// then the old one stops and releases the lease.
	LeaderElect bool
	// Pprof lets anyone who reaches the secure port read /debug/pprof
	// (kube-scheduler serves it there, with enableProfiling, its default;
	// otherwise only an authorized client may).
	Pprof bool

	run      string
	seq      int
	proc     *Process
	url      string // base URL of the running process's secure port
	finished Usage  // usage of the run's processes that already ended
}

var _ Scheduler = &KubeScheduler{}

// Name implements Scheduler.
func (k *KubeScheduler) Name() string { return Upstream }

// SetRun names the log and config files of the next run.
func (k *KubeScheduler) SetRun(run string) { k.run, k.seq, k.finished = run, 0, Usage{} }

// Config renders the KubeSchedulerConfiguration for prof.
func (k *KubeScheduler) Config(prof schedv1.KubeSchedulerProfile) ([]byte, error) {
	return k.config([]ServedProfile{{Profile: prof}})
}

// config renders the KubeSchedulerConfiguration serving profs: every
// profile in one process (one queue, one scheduling loop), and the
// extenders they name, each once, in the configuration's extenders, which
// apply to every profile.
func (k *KubeScheduler) config(profs []ServedProfile) ([]byte, error) {
	var (
		profiles  []any
		extenders []any
		names     = map[string]bool{}
	)
	for _, p := range profs {
		profiles = append(profiles, p.Profile)
		for _, x := range p.Extenders {
			if !names[x.Name] {
				names[x.Name] = true
				extenders = append(extenders, x.Config)
			}
		}
	}
	cfg := map[string]any{
		"apiVersion":     "kubescheduler.config.k8s.io/v1",
		"kind":           "KubeSchedulerConfiguration",
		"parallelism":    k.Settings.Parallelism,
		"leaderElection": k.leaderElection(),
		"clientConnection": map[string]any{
			"kubeconfig": k.Kubeconfig,
			"qps":        k.Settings.QPS,
			"burst":      k.Settings.Burst,
		},
		"profiles": profiles,
	}
	if len(extenders) > 0 {
		cfg["extenders"] = extenders
	}
	return yaml.Marshal(cfg)
}

// leaderElection is the configuration's leaderElection section. The lease
// is named after the run, so no run waits for another's.
func (k *KubeScheduler) leaderElection() map[string]any {
	if !k.LeaderElect {
		return map[string]any{"leaderElect": false}
	}
	return map[string]any{
		"leaderElect":       true,
		"resourceLock":      "leases",
		"resourceNamespace": "kube-system",
		"resourceName":      "bench-" + k.run,
	}
}

// Start implements Scheduler: it writes the configuration file and starts
// kube-scheduler with it, then waits for /healthz.
func (k *KubeScheduler) Start(ctx context.Context, prof schedv1.KubeSchedulerProfile) error {
	return k.StartProfiles(ctx, []ServedProfile{{Profile: prof}})
}

// StartProfiles implements Scheduler: Start with every profile of profs in
// the configuration file.
func (k *KubeScheduler) StartProfiles(ctx context.Context, profs []ServedProfile) error {
	k.seq++
	cfg, err := k.config(profs)
	if err != nil {
		return err
	}
	base := filepath.Join(k.Dir, fmt.Sprintf("%s-upstream-%d", k.run, k.seq))
	if err := os.WriteFile(base+".yaml", cfg, 0o644); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	certDir := base + "-certs"
	args := []string{
		"--config=" + base + ".yaml",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + certDir,
		"--v=1",
	}
	if k.FeatureGates != "" {
		args = append(args, k.FeatureGates)
	}
	if k.Pprof {
		args = append(args, "--authorization-always-allow-paths=/healthz,/readyz,/livez,/debug/pprof,/debug/pprof/*")
	}
	p, err := StartProcess(k.Bin, append(args, k.ExtraArgs...), base+".log")
	if err != nil {
		return err
	}
	k.proc = p
	k.url = fmt.Sprintf("https://127.0.0.1:%d", port)
	return p.waitReady(ctx, time.Minute, probeURL(fmt.Sprintf("https://127.0.0.1:%d/healthz", port)))
}

// Restart replaces the running process by one with prof, the only way
// upstream changes a profile, and returns when the old process was told to
// stop (the change). Without leader election the old process stops, then
// the new one starts. With it, the new one starts first and waits as a
// standby with its caches synced, then the old one stops and releases the
// lease, which the standby takes at its next retry: a rolling update.
func (k *KubeScheduler) Restart(ctx context.Context, prof schedv1.KubeSchedulerProfile) (time.Time, error) {
	old := k.proc
	k.proc = nil
	if !k.LeaderElect || old == nil {
		at := time.Now()
		if old != nil {
			k.finished = add(k.finished, old.Stop(30*time.Second))
		}
		return at, k.Start(ctx, prof)
	}
	err := k.Start(ctx, prof)
	if err == nil {
		// kube-scheduler serves /healthz before its caches sync; it tries
		// for the lease only after they have: then it is a standby.
		err = k.proc.waitReady(ctx, time.Minute, logContains(k.proc.log.Name(), standbyLine))
	}
	at := time.Now()
	k.finished = add(k.finished, old.Stop(30*time.Second))
	return at, err
}

// standbyLine is what kube-scheduler logs when, its caches synced, it
// starts trying for the lease.
const standbyLine = "Attempting to acquire leader lease"

// logContains is a readiness probe that passes once the file holds line.
func logContains(path, line string) func(context.Context) error {
	return func(context.Context) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte(line)) {
			return fmt.Errorf("%s does not say %q yet", path, line)
		}
		return nil
	}
}

// PID implements Scheduler.
func (k *KubeScheduler) PID() int {
	if k.proc == nil {
		return 0
	}
	return k.proc.PID()
}

// PprofURL implements Scheduler.
func (k *KubeScheduler) PprofURL() string {
	if k.proc == nil || !k.Pprof {
		return ""
	}
	return k.url
}

// Usage implements Scheduler.
func (k *KubeScheduler) Usage() Usage {
	if k.proc == nil {
		return k.finished
	}
	return add(k.finished, k.proc.Usage())
}

// Stop implements Scheduler.
func (k *KubeScheduler) Stop(context.Context) Usage {
	if k.proc != nil {
		k.finished = add(k.finished, k.proc.Stop(30*time.Second))
		k.proc = nil
	}
	return k.finished
}
