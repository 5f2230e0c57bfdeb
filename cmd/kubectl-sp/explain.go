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
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// explainOptions are the options of `kubectl sp explain`.
type explainOptions struct {
	reviewOptions
	// target is the argument: POD, pod/POD or podgroup/NAME.
	target string
}

func newExplainCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &explainOptions{reviewOptions: reviewOptions{flags: flags, streams: streams}}
	cmd := &cobra.Command{
		Use:   "explain POD | podgroup/NAME",
		Short: "Explain where a pod would be scheduled, node by node and plugin by plugin",
		Long: `Explain runs the scheduling cycle of profile-scheduler for one pod of the
namespace, on a snapshot of the live cluster: every node's filter verdict (the
plugin or extender that rejects it, and why), every score plugin's score of the
feasible nodes and their total, the node the cycle picks (marked *), and, when
no node fits, the FailedScheduling message and what preemption would do.

A pending pod that belongs to a PodGroup (GenericWorkload) is answered for its
whole group, as the pod-group cycle places it: podgroup/NAME asks for a group
directly. The answer gives the group's verdict and the message of the PodGroup
condition the cycle would write, each pending member's node or reason, the
members each node would take, and the victims workload-aware preemption would
evict (none is evicted).

By default the profile serving the pod's schedulerName evaluates it; --profile
names another SchedulerProfile, -f a draft profile that is never applied.`,
		Example: `  kubectl sp explain web
  kubectl sp explain web -n shop --profile bin-packing
  kubectl sp explain web -f draft-profile.yaml -o yaml
  kubectl sp explain podgroup/training -n ml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return fmt.Errorf("explain takes exactly one pod name: %w", err)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.addFlags(cmd)
	return cmd
}

// Complete takes the pod or pod group from args and the printer from -o.
func (o *explainOptions) Complete(args []string) error {
	o.target = args[0]
	return o.complete()
}

// Validate checks the shared flags, then that the target names a pod or a
// pod group.
func (o *explainOptions) Validate() error {
	if err := o.validate(); err != nil {
		return err
	}
	return explainTarget(o.target, &v1alpha1.SchedulingReviewSpec{})
}

// Run asks the review (the draft of -f read first) and prints the answer.
func (o *explainOptions) Run(ctx context.Context) error {
	spec := v1alpha1.SchedulingReviewSpec{Profile: o.profile}
	if err := explainTarget(o.target, &spec); err != nil {
		return err
	}
	if o.file != "" {
		draft, err := o.draft()
		if err != nil {
			return err
		}
		spec.ProfileSpec = draft
	}
	return o.ask(ctx, spec, "explain-", func(sr *v1alpha1.SchedulingReview) error {
		return renderExplain(o.streams.Out, sr, o.wide)
	})
}

// explainTarget sets the pod (POD or pod/POD) or the pod group
// (podgroup/NAME, podgroups/NAME or pg/NAME) that spec asks about.
func explainTarget(arg string, spec *v1alpha1.SchedulingReviewSpec) error {
	kind, name, found := strings.Cut(arg, "/")
	if !found {
		kind, name = "pod", arg
	}
	if name == "" {
		return fmt.Errorf("%q names nothing: give POD or podgroup/NAME", arg)
	}
	switch strings.ToLower(kind) {
	case "pod", "pods", "po":
		spec.PodName = name
	case "podgroup", "podgroups", "pg":
		spec.PodGroupName = name
	default:
		return fmt.Errorf("explain answers for a pod or a podgroup, not %q", kind)
	}
	return nil
}
