package harness

import (
	"os"
	"os/exec"
	"testing"
)

func TestChildrenFindsChildProcessesByName(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	found, err := children(os.Getpid(), "sleep", "etcd")
	if err != nil {
		t.Fatal(err)
	}
	if found["sleep"] != cmd.Process.Pid {
		t.Errorf("sleep: got pid %d, want %d", found["sleep"], cmd.Process.Pid)
	}
	if pid, ok := found["etcd"]; ok {
		t.Errorf("etcd found as pid %d, but none was started", pid)
	}
	// Only children: the test process's parent has none named sleep here.
	if other, _ := children(os.Getppid(), "sleep"); other["sleep"] == cmd.Process.Pid {
		t.Errorf("a grandchild was reported as a child")
	}
}
