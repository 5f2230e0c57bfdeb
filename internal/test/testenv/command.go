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
	"context"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// RunCommand runs the operator command cmd with args in the background,
// against the control plane of kubeconfig, with metrics and probes off.
// When the test ends it cancels ctx (cancel) and fails the test unless the
// command then stopped without error within timeout. The channel receives
// the command's error should it stop before: a test checks with it that the
// operator still runs.
func RunCommand(ctx context.Context, t testing.TB, cancel context.CancelFunc, cmd *cobra.Command, kubeconfig string, timeout time.Duration) <-chan error {
	t.Helper()
	cmd.SetArgs([]string{"--kubeconfig=" + kubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address=0"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the operator stopped with %v", err)
			}
		case <-time.After(timeout):
			t.Errorf("the operator did not stop within %v", timeout)
		}
	})
	return done
}
