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

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func main() {
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	cmd := newRootCommand(streams)
	// Ctrl-C, or a terminal or job control ending the command, cancels
	// the context: a review being waited for is deleted on the way out. A
	// second signal, once the first cancelled, ends the command at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop()
	}()
	if err := cmd.ExecuteContext(ctx); err != nil {
		var code exitError
		var coded codedError
		switch {
		case errors.As(err, &code):
		case errors.As(err, &coded):
			fmt.Fprintln(streams.ErrOut, "error:", err)
			code = exitError(coded.code)
		default:
			fmt.Fprintln(streams.ErrOut, "error:", err)
			code = 1
		}
		os.Exit(int(code))
	}
}

// codedError is an error printed as any other, that ends the command
// with its own exit status (rollout status: rolled back, aborted, timed
// out).
type codedError struct {
	code int
	err  error
}

func (e codedError) Error() string { return e.err.Error() }
func (e codedError) Unwrap() error { return e.err }

// exitError ends the command with its status and prints nothing more:
// what went wrong was printed already.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// newRootCommand is `kubectl sp` with kubectl's connection flags.
func newRootCommand(streams genericiooptions.IOStreams) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	root := &cobra.Command{
		Use:   "kubectl-sp",
		Short: "Ask profile-scheduler where a pod would go, and why",
		Long: `kubectl sp asks profile-scheduler, through a SchedulingReview, what its
scheduling cycle would decide: for one pod (explain) or for every pending pod
of a schedulerName under a draft profile (what-if). Nothing is changed: the
review runs on a snapshot, and is deleted once answered. route tells which
ProfileRoute and profile a new pod of a namespace would get.

rollout watches the progressive rollout of a profile (status) and steers it
(promote, abort, pause, resume) through the annotations the operator acts on.

lint checks SchedulerProfile, ExtenderConfig and ProfileRoute manifests as
the operator would, without a cluster, for a GitOps repository's CI.

version prints the plugin's version and the operator's; completion prints a
bash, zsh or fish script that completes commands, flags and names from the
cluster.

Exit status: 0 when the command did what it was asked, 1 on any error
(printed on stderr).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Help reads "kubectl sp", as kubectl runs the plugin.
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl sp"},
	}
	root.CompletionOptions.DisableDefaultCmd = true // completion is ours: bash, zsh and fish
	// Help, usage and the completions of __complete go to the streams.
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	flags.AddFlags(root.PersistentFlags())
	root.AddCommand(newExplainCommand(flags, streams), newWhatIfCommand(flags, streams), newRouteCommand(flags, streams), newRolloutCommand(flags, streams),
		newLintCommand(flags, streams), newVersionCommand(flags, streams), newCompletionCommand(streams))
	registerCompletions(root, flags)
	return root
}
