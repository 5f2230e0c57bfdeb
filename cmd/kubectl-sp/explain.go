package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func newExplainCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &reviewOptions{flags: flags, streams: streams}
	cmd := &cobra.Command{
		Use:   "explain POD",
		Short: "Explain where a pod would be scheduled, node by node and plugin by plugin",
		Long: `Explain runs the scheduling cycle of profile-scheduler for one pod of the
namespace, on a snapshot of the live cluster: every node's filter verdict (the
plugin or extender that rejects it, and why), every score plugin's score of the
feasible nodes and their total, the node the cycle picks (marked *), and, when
no node fits, the FailedScheduling message and what preemption would do.

By default the profile serving the pod's schedulerName evaluates it; --profile
names another SchedulerProfile, -f a draft profile that is never applied.`,
		Example: `  kubectl sp explain web
  kubectl sp explain web -n shop --profile bin-packing
  kubectl sp explain web -f draft-profile.yaml -o yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return fmt.Errorf("explain takes exactly one pod name: %w", err)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			spec := v1alpha1.SchedulingReviewSpec{PodName: args[0], Profile: o.profile}
			if o.file != "" {
				draft, _, err := o.draft()
				if err != nil {
					return err
				}
				spec.ProfileSpec = draft
			}
			return o.run(cmd.Context(), spec, "explain-", func(sr *v1alpha1.SchedulingReview) error {
				return renderExplain(o.streams.Out, sr)
			})
		},
	}
	o.addFlags(cmd)
	return cmd
}
