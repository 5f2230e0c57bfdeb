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
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

// userHZ is the unit of utime and stime in /proc/PID/stat (USER_HZ, 100
// on every Linux architecture the benchmark runs on).
const userHZ = 100

// Process is a scheduler process started by the harness.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	log  *os.File
	// last usage read while the process was alive.
	last Usage
}

// Usage is what a process consumed.
type Usage struct {
	// CPUSeconds is user plus system time.
	CPUSeconds float64 `json:"cpuSeconds"`
	// PeakRSSBytes is the high-water mark of the resident set (VmHWM).
	PeakRSSBytes int64 `json:"peakRSSBytes"`
}

// StartProcess runs bin with args, its output appended to logPath, in its
// own process group.
func StartProcess(bin string, args []string, logPath string) (*Process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f, "# %s %s\n", bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &Process{cmd: cmd, done: make(chan struct{}), log: f}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// PID of the process.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited reports whether the process has ended, and how.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Usage reads the process's CPU time and peak RSS from /proc. After the
// process ended it returns the last values read.
func (p *Process) Usage() Usage {
	if exited, _ := p.Exited(); exited {
		return p.last
	}
	u, err := readUsage(p.PID())
	if err == nil {
		p.last = u
	}
	return p.last
}

// cpuSeconds is pid's CPU time so far, 0 when pid is 0 or unreadable.
func cpuSeconds(pid int) float64 {
	if pid == 0 {
		return 0
	}
	u, err := readUsage(pid)
	if err != nil {
		return 0
	}
	return u.CPUSeconds
}

func readUsage(pid int) (Usage, error) {
	var u Usage
	f, err := testenv.StatFields(pid)
	if err != nil {
		return u, err
	}
	if len(f) < 13 {
		return u, errors.New("short /proc stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return u, err
	}
	u.CPUSeconds = float64(ut+st) / userHZ
	status, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	defer status.Close()
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return u, err
			}
			u.PeakRSSBytes = kb * 1024
		}
	}
	return u, sc.Err()
}

// openSockets counts the sockets among pid's open file descriptors.
func openSockets(pid int) (int, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(dir + "/" + e.Name()); err == nil && strings.HasPrefix(target, "socket:") {
			n++
		}
	}
	return n, nil
}

// watchSockets samples openSockets(pid) every interval until the returned
// stop is called, which samples once more and returns the largest count
// seen (0 when pid is 0 or could not be read).
func watchSockets(pid int, interval time.Duration) (stop func() int) {
	done, result := make(chan struct{}), make(chan int, 1)
	go func() {
		peak := 0
		sample := func() {
			if pid != 0 {
				if n, err := openSockets(pid); err == nil {
					peak = max(peak, n)
				}
			}
		}
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			sample()
			select {
			case <-done:
				sample()
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() int {
		close(done)
		return <-result
	}
}

// Stop sends SIGTERM, waits up to grace, then kills the process group. It
// returns the usage read just before the signal.
func (p *Process) Stop(grace time.Duration) Usage {
	u := p.Usage()
	if exited, _ := p.Exited(); !exited {
		_ = syscall.Kill(-p.PID(), syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
			_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
			<-p.done
		}
	}
	p.log.Close()
	return u
}

// Signal sends sig to the process only (SIGSTOP/SIGCONT for pprof-free
// pauses, for example).
func (p *Process) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// waitHTTP polls url until it answers 200, the process exits or ctx ends.
func (p *Process) waitReady(ctx context.Context, timeout time.Duration, probe func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if exited, err := p.Exited(); exited {
			return fmt.Errorf("process exited before it was ready (%v); see %s", err, p.log.Name())
		}
		if last = probe(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after %s: %v; see %s", timeout, last, p.log.Name())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// pause stops the scheduler process pid (SIGSTOP) and returns what resumes
// it (SIGCONT), the first time it is called: a throughput run creates its
// pods with the scheduler stopped and measures from its resume, and
// resumes it in any case when it returns.
func pause(pid int) (resume func(), err error) {
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return nil, fmt.Errorf("stopping the scheduler: %w", err)
	}
	var once sync.Once
	return func() { once.Do(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) }, nil
}
