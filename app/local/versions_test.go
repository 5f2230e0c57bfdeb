package local

import (
	"os/exec"
	"strings"
	"testing"
)

// The versions local mode's error tells users to build are the ones the
// operator's go.mod pins.
func TestVersionsMatchGoMod(t *testing.T) {
	for mod, want := range map[string]string{"k8s.io/kubernetes": kubernetesVersion, "go.etcd.io/etcd/server/v3": etcdVersion} {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", mod).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", mod, err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s: go.mod pins %s, local mode says %s", mod, got, want)
		}
	}
}
