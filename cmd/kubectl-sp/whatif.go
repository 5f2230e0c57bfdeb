package main

import (
	"errors"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func newWhatIfCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &reviewOptions{flags: flags, streams: streams}
	so := &scenarioOptions{}
	cmd := &cobra.Command{
		Use:   "what-if -f DRAFT | --profile NAME",
		Short: "Say where every pending pod would go under a draft profile",
		Long: `What-if places every pending pod of a schedulerName, in queue order, on a
private snapshot of the live cluster, each placed pod taking its room for the
next, with a draft profile (-f) or a SchedulerProfile (--profile). It prints
how many would be placed and, for the pods of the namespace, where, or why
not. Nothing is applied, bound or changed.

The pods are those of --scheduler-name, by default the draft's (or the
profile's) schedulerName, or the name of the draft manifest.

A capacity scenario changes the cluster in the review's snapshot only:
--add-nodes adds copies of a node or of a Node manifest, --drain removes the
nodes of a selector and places their pods again (priority first), --pods
adds --replicas copies of a Pod after the pending pods, and --min-nodes
searches for the smallest count of nodes of a shape that places every pod.
It prints how many pods would be placed, the allocated cpu, memory and pods
per value of --report-by before and after, and the pods left unplaced with
their reasons.`,
		Example: `  kubectl sp what-if -f most-allocated.yaml
  kubectl sp what-if -f draft.yaml --scheduler-name bin-packing -n batch
  kubectl sp what-if --profile bin-packing --drain pool=old --report-by pool
  kubectl sp what-if --profile bin-packing --pods job.yaml --replicas 40 --min-nodes gpu-node.yaml --max 50`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			spec := v1alpha1.SchedulingReviewSpec{PendingPods: true, Profile: o.profile, SchedulerName: o.schedulerName}
			switch {
			case o.file != "":
				draft, name, err := o.draft()
				if err != nil {
					return err
				}
				spec.ProfileSpec = draft
				if spec.SchedulerName == "" && draft.SchedulerName == nil {
					if name == "" {
						return errors.New("the draft names no schedulerName: set --scheduler-name")
					}
					spec.SchedulerName = name
				}
			case o.profile == "":
				return errors.New("what-if needs a draft profile (-f) or --profile")
			}
			sc, err := so.scenario(o.streams.In)
			if err != nil {
				return err
			}
			spec.Scenario = sc
			return o.run(cmd.Context(), spec, "what-if-", func(sr *v1alpha1.SchedulingReview) error {
				if sc != nil {
					return renderScenario(o.streams.Out, sr)
				}
				return renderWhatIf(o.streams.Out, sr)
			})
		},
	}
	o.addFlags(cmd)
	so.addFlags(cmd)
	cmd.Flags().StringVar(&o.schedulerName, "scheduler-name", "", "The schedulerName whose pending pods are placed.")
	return cmd
}
