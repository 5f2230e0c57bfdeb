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

package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ChildProcess is a running process whose parent is the one asked about.
type ChildProcess struct {
	PID int
	// Argv is its command line; Argv[0] the executable as started.
	Argv []string
}

// Name is the base name of the executable (kube-apiserver, etcd).
func (c ChildProcess) Name() string { return filepath.Base(c.Argv[0]) }

// StatFields reads /proc/PID/stat and returns its fields after the
// command name, which may hold spaces and parens: [0] is the state, [1]
// the parent's pid, [11] and [12] utime and stime in clock ticks.
func StatFields(pid int) ([]string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, errors.New("malformed /proc stat")
	}
	return strings.Fields(string(stat[i+1:])), nil
}

// ChildProcesses lists the processes whose parent is ppid, from /proc:
// envtest starts etcd and kube-apiserver as children of the process that
// starts the environment.
func ChildProcesses(ppid int) ([]ChildProcess, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	parent := strconv.Itoa(ppid)
	var out []ChildProcess
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fields, err := StatFields(pid)
		if err != nil {
			continue // gone meanwhile
		}
		if len(fields) < 2 || fields[1] != parent {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			// Gone meanwhile, a zombie, or one exec'ing this instant: its
			// command line is set a little after its parent's Start
			// returned, and it is listed once it is.
			continue
		}
		out = append(out, ChildProcess{PID: pid, Argv: strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")})
	}
	return out, nil
}
