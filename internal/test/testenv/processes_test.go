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
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

func TestChildProcessesFindsChildrenOnly(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	// Start returns once exec is past its point of no return, which comes
	// before the kernel has set the new command line: for a moment
	// /proc/PID/cmdline is empty and the child is not listed yet, so the
	// test looks again for a while rather than once.
	var children []ChildProcess
	i := -1
	for deadline := time.Now().Add(10 * time.Second); i < 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var err error
		if children, err = ChildProcesses(os.Getpid()); err != nil {
			t.Fatal(err)
		}
		i = slices.IndexFunc(children, func(c ChildProcess) bool { return c.PID == cmd.Process.Pid })
	}
	if i < 0 {
		t.Fatalf("sleep (pid %d) not among the children %+v after 10s", cmd.Process.Pid, children)
	}
	if got := children[i]; got.Name() != "sleep" || !slices.Equal(got.Argv[1:], []string{"30"}) {
		t.Errorf("child %+v: want sleep with argument 30", got)
	}
	// Only children: the test process's parent has it as a grandchild.
	others, err := ChildProcesses(os.Getppid())
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(others, func(c ChildProcess) bool { return c.PID == cmd.Process.Pid }) {
		t.Errorf("a grandchild was reported as a child")
	}
}
