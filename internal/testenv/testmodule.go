package testenv

import (
	"path/filepath"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// TestModuleRoot returns test/ under the repository root, where the test
// module's tools (helm, kustomize, kube-scheduler) are built from.
func TestModuleRoot() (string, error) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "test"), nil
}
