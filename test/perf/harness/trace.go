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
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Trace is what an investigation records beside a run's figures, named on
// the bench command line as -trace=cpu,heap,gc. A run without it measures
// the same; with it, the files below land in the results directory.
type Trace struct {
	// CPU records the scheduler's CPU profile with Linux perf over each
	// measured step: <run>.perf.data, and its hottest functions in
	// <run>.perf.txt.
	CPU bool
	// Heap saves the scheduler's heap profile (/debug/pprof/heap) after
	// each measured step's last bind as <run>.heap.pb.gz; both schedulers
	// serve /debug/pprof for it.
	Heap bool
	// GC runs both schedulers, kube-apiserver and etcd with
	// GODEBUG=gctrace=1: every garbage collection is a line in the
	// scheduler's log and in <run>-kube-apiserver.log and <run>-etcd.log,
	// which also keep those processes' own output.
	GC bool
	// Mutex saves the scheduler's mutex profile (/debug/pprof/mutex, the
	// time goroutines waited for a lock, at the holder's release) after
	// each measured step's last bind as <run>.mutex.pb.gz: cumulative
	// since the process started, which serves that one run. Both
	// schedulers serve /debug/pprof for it; ours is started with
	// --contention-profiling (kube-scheduler's records blocking only: its
	// mutex profile is empty).
	Mutex bool
}

// TraceNames are the words of -trace, in the order String writes them.
var TraceNames = []string{"cpu", "heap", "gc", "mutex"}

// ParseTrace reads a comma-separated list of TraceNames; empty is none.
func ParseTrace(s string) (Trace, error) {
	var t Trace
	for _, name := range strings.Split(s, ",") {
		switch strings.TrimSpace(name) {
		case "":
		case "cpu":
			t.CPU = true
		case "heap":
			t.Heap = true
		case "gc":
			t.GC = true
		case "mutex":
			t.Mutex = true
		default:
			return Trace{}, fmt.Errorf("-trace: unknown %q (want a comma-separated list of %s)", name, strings.Join(TraceNames, ", "))
		}
	}
	return t, nil
}

// String writes the trace as ParseTrace reads it.
func (t Trace) String() string {
	var on []string
	for i, set := range []bool{t.CPU, t.Heap, t.GC, t.Mutex} {
		if set {
			on = append(on, TraceNames[i])
		}
	}
	return strings.Join(on, ",")
}

// cpuProfile starts recording the CPU profile of pid as name (startPerf)
// and returns what stops it; a profile that fails is logged, the run goes on.
func (r *Runner) cpuProfile(name string, pid int) (stop func()) {
	stopPerf, err := startPerf(r.Dir, name, pid)
	if err != nil {
		r.logf("perf: %v", err)
		return func() {}
	}
	return func() {
		if err := stopPerf(); err != nil {
			r.logf("perf: %v", err)
		}
	}
}

// heapProfile saves the heap profile served under base as name
// (saveProfile); one that fails is logged, the run goes on.
func (r *Runner) heapProfile(ctx context.Context, name, base string) {
	if err := saveProfile(ctx, r.Dir, name, base, "heap"); err != nil {
		r.logf("heap profile: %v", err)
	}
}

// stepProfiles saves the profiles r.Trace asks for after a measured
// step (Heap, Mutex); one that fails is logged, the run goes on.
func (r *Runner) stepProfiles(ctx context.Context, name, base string) {
	if r.Trace.Heap {
		r.heapProfile(ctx, name, base)
	}
	if r.Trace.Mutex {
		if err := saveProfile(ctx, r.Dir, name, base, "mutex"); err != nil {
			r.logf("mutex profile: %v", err)
		}
	}
}

// startPerf samples pid's stacks with `perf record` (499 Hz, call graphs)
// into dir/name.perf.data until the returned stop is called; stop then
// writes the hottest functions to dir/name.perf.txt, first by time spent in
// them and their callees, then by their own time.
func startPerf(dir, name string, pid int) (stop func() error, err error) {
	if pid == 0 {
		return nil, fmt.Errorf("no process to profile")
	}
	bin, err := exec.LookPath("perf")
	if err != nil {
		return nil, fmt.Errorf("perf not installed: %w", err)
	}
	data := filepath.Join(dir, name+".perf.data")
	cmd := exec.Command(bin, "record", "-F", "499", "-g", "-p", fmt.Sprint(pid), "-o", data)
	log, err := os.Create(filepath.Join(dir, name+".perf.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	return func() error {
		defer log.Close()
		_ = cmd.Process.Signal(syscall.SIGINT)
		// perf's exit status after SIGINT says nothing: only its end counts.
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		out, err := os.Create(filepath.Join(dir, name+".perf.txt"))
		if err != nil {
			return err
		}
		defer out.Close()
		for _, mode := range [][]string{{"--children", "--percent-limit", "3"}, {"--no-children", "--percent-limit", "0.5"}} {
			args := append([]string{"report", "-i", data, "--stdio", "-g", "none", "--sort", "symbol"}, mode...)
			rep := exec.Command(bin, args...)
			rep.Stdout, rep.Stderr = out, out
			if err := rep.Run(); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// pprofClient reads profiles: a heap profile of a busy process on a busy
// machine may take longer than a probe's 2 s.
var pprofClient = &http.Client{Timeout: 30 * time.Second, Transport: httpClient.Transport}

// getPprof requests base+path (a process's /debug/pprof/...) and returns
// the body of its answer, which must be 200 OK.
func getPprof(ctx context.Context, base, path string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := pprofClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("%s: %s: %s", req.URL, resp.Status, b)
	}
	return resp.Body, nil
}

// saveProfile saves the profile kind served under base (a process's
// /debug/pprof) as dir/name.<kind>.pb.gz. The heap profile holds in-use
// and allocated space and objects as of the process's last garbage
// collection (`go tool pprof -sample_index=inuse_space`); the mutex
// profile, contentions and delay by the holder's stack.
func saveProfile(ctx context.Context, dir, name, base, kind string) error {
	if base == "" {
		return fmt.Errorf("%s: the scheduler serves no /debug/pprof", name)
	}
	body, err := getPprof(ctx, base, "/debug/pprof/"+kind)
	if err != nil {
		return err
	}
	defer body.Close()
	f, err := os.Create(filepath.Join(dir, name+"."+kind+".pb.gz"))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
