package testenv

import (
	"bytes"
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
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...; comm may hold spaces and parens.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != parent {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue // gone meanwhile, or a zombie
		}
		out = append(out, ChildProcess{PID: pid, Argv: strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")})
	}
	return out, nil
}
