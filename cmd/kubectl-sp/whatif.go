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

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// whatIfOptions are the options of `kubectl sp what-if`.
type whatIfOptions struct {
	reviewOptions
	// capacity are the flags of a capacity scenario.
	capacity scenarioOptions
	// changed reports whether a flag was set on the command line.
	changed func(string) bool
}

func newWhatIfCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &whatIfOptions{reviewOptions: reviewOptions{flags: flags, streams: streams}}
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
			if err := o.Complete(cmd); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.addFlags(cmd)
	o.capacity.addFlags(cmd)
	cmd.Flags().StringVar(&o.schedulerName, "scheduler-name", "", "The schedulerName whose pending pods are placed.")
	return cmd
}

// Complete takes the printer from -o, and which flags were set.
func (o *whatIfOptions) Complete(cmd *cobra.Command) error {
	o.changed = cmd.Flags().Changed
	return o.complete()
}

// Validate checks the shared flags, and that a draft or a profile is given.
func (o *whatIfOptions) Validate() error {
	if err := o.validate(); err != nil {
		return err
	}
	if o.file == "" && o.profile == "" {
		return errors.New("what-if needs a draft profile (-f) or --profile")
	}
	return o.capacity.validate(o.changed)
}

// Run asks the review (the draft of -f and the scenario's files read
// first) and prints the answer: the scenario's table when one is asked.
func (o *whatIfOptions) Run(ctx context.Context) error {
	spec := v1alpha1.SchedulingReviewSpec{PendingPods: true, Profile: o.profile, SchedulerName: o.schedulerName}
	if o.file != "" {
		draft, err := o.draft()
		if err != nil {
			return err
		}
		spec.ProfileSpec = draft
		if spec.SchedulerName == "" && draft.SchedulerName == nil {
			return errors.New("the draft names no schedulerName: set --scheduler-name")
		}
	}
	sc, err := o.capacity.scenario(o.streams.In)
	if err != nil {
		return err
	}
	spec.Scenario = sc
	return o.ask(ctx, spec, "what-if-", func(sr *v1alpha1.SchedulingReview) error {
		if sc != nil {
			if warning := drainWarning(o.capacity.drain, sr); warning != "" {
				fmt.Fprintln(o.streams.ErrOut, warning)
			}
			return renderScenario(o.streams.Out, sr, o.wide)
		}
		return renderWhatIf(o.streams.Out, sr, o.wide)
	})
}
