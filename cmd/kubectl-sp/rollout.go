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
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// The rollout commands read status.rollout, which the operator writes, and
// steer a rollout only through the annotations of api/v1alpha1
// (AnnotationRolloutPaused, AnnotationRolloutPromote,
// AnnotationRolloutAbort), set with a JSON merge patch of
// metadata.annotations: what the command does, a GitOps tool or
// `kubectl annotate` can do as well, and nothing else of the object is
// written.
//
//	kubectl sp rollout status NAME [--watch=false] [--timeout DURATION]
//	kubectl sp rollout promote NAME [--full] [-o name|yaml|json|...]
//	kubectl sp rollout abort NAME [-o ...]
//	kubectl sp rollout pause NAME [-o ...]
//	kubectl sp rollout resume NAME [-o ...]

// profileResource names SchedulerProfiles in messages as kubectl does
// (resource.group).
const profileResource = "schedulerprofiles.scheduling.profilescheduler.io"

func newRolloutCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout SUBCOMMAND",
		Short: "Watch and steer the progressive rollout of a SchedulerProfile",
		Long: `Rollout watches and steers the progressive rollout of a SchedulerProfile
(spec.rollout): a new generation first judges live traffic in shadow, then
schedules a share of the profile's pods as a canary, and is promoted after the
last step, or rolled back when an analysis fails, the serving generation
staying.

status reads status.rollout and, by default, waits until the rollout ends, as
kubectl rollout status does. promote, abort, pause and resume only set or
remove an annotation of the profile, which the operator acts on:

  scheduling.profilescheduler.io/rollout-promote  "<generation>/<step>" or "<generation>/full"
  scheduling.profilescheduler.io/rollout-abort    "<generation>"
  scheduling.profilescheduler.io/rollout-paused   "true"

history lists the specs that served (ControllerRevisions the operator keeps);
undo and retry set, in the same way:

  scheduling.profilescheduler.io/rollout-undo     "<revision>@<generation>"
  scheduling.profilescheduler.io/rollout-retry    "<generation>/<attempt>"

A GitOps tool (or kubectl annotate) can set them the same way; where one
applies the profile from Git, the spec in Git still wins over an undo.`,
		Example: `  kubectl sp rollout status bin-packing
  kubectl sp rollout promote bin-packing
  kubectl sp rollout promote bin-packing --full
  kubectl sp rollout pause bin-packing
  kubectl sp rollout resume bin-packing
  kubectl sp rollout abort bin-packing
  kubectl sp rollout history bin-packing
  kubectl sp rollout undo bin-packing --to-revision 2
  kubectl sp rollout retry bin-packing`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(
		newRolloutStatusCommand(flags, streams),
		newRolloutActionCommand(flags, streams, actionPromote),
		newRolloutActionCommand(flags, streams, actionAbort),
		newRolloutActionCommand(flags, streams, actionPause),
		newRolloutActionCommand(flags, streams, actionResume),
		newRolloutHistoryCommand(flags, streams),
		newRolloutUndoCommand(flags, streams),
		newRolloutRetryCommand(flags, streams),
	)
	return cmd
}

// rolloutOptions are what every rollout command shares: the connection and
// the profile's name.
type rolloutOptions struct {
	flags   *genericclioptions.ConfigFlags
	streams genericiooptions.IOStreams
	name    string
}

// profileName is the Args of every rollout command: exactly one NAME.
func profileName(verb string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(1)(cmd, args); err != nil {
			return fmt.Errorf("rollout %s takes exactly one SchedulerProfile name: %w", verb, err)
		}
		return nil
	}
}

// complete takes the name, as schedulerprofile/NAME, sp/NAME or NAME.
func (o *rolloutOptions) complete(args []string) error {
	name := args[0]
	if kind, n, found := strings.Cut(name, "/"); found {
		switch strings.ToLower(kind) {
		case "schedulerprofile", "schedulerprofiles", "sp", profileResource, "schedulerprofile.scheduling.profilescheduler.io":
			name = n
		default:
			return fmt.Errorf("rollout acts on a SchedulerProfile, not %q", kind)
		}
	}
	if name == "" {
		return fmt.Errorf("%q names no SchedulerProfile", args[0])
	}
	o.name = name
	return nil
}

// client connects with kubectl's flags.
func (o *rolloutOptions) client() (client.WithWatch, error) {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	return client.NewWithWatch(cfg, client.Options{Scheme: scheme})
}

// get reads the profile, saying so as kubectl does when there is none.
func (o *rolloutOptions) get(ctx context.Context, c client.Client) (*v1alpha1.SchedulerProfile, error) {
	sp := &v1alpha1.SchedulerProfile{}
	if err := c.Get(ctx, client.ObjectKey{Name: o.name}, sp); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%s %q not found", profileResource, o.name)
		}
		return nil, err
	}
	return sp, nil
}

// rolloutAction is one of the commands that steer a rollout.
type rolloutAction string

// The actions, by their verb.
const (
	actionPromote rolloutAction = "promote"
	actionAbort   rolloutAction = "abort"
	actionPause   rolloutAction = "pause"
	actionResume  rolloutAction = "resume"
)

// pastTense is the operation kubectl's name printer reports.
func (a rolloutAction) pastTense() string {
	switch a {
	case actionPromote:
		return "promoted"
	case actionAbort:
		return "aborted"
	case actionPause:
		return "paused"
	default:
		return "resumed"
	}
}

// rolloutActionOptions are the options of promote, abort, pause and
// resume.
type rolloutActionOptions struct {
	rolloutOptions
	action rolloutAction
	// full is promote --full: the remaining steps are skipped.
	full bool

	print   *genericclioptions.PrintFlags
	printer printers.ResourcePrinter
}

func newRolloutActionCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, action rolloutAction) *cobra.Command {
	o := &rolloutActionOptions{
		rolloutOptions: rolloutOptions{flags: flags, streams: streams},
		action:         action,
		print:          genericclioptions.NewPrintFlags(action.pastTense()).WithTypeSetter(scheme),
	}
	cmd := &cobra.Command{
		Use:  string(action) + " NAME",
		Args: profileName(string(action)),
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
	switch action {
	case actionPromote:
		cmd.Use = "promote NAME [--full]"
		cmd.Short = "End the rollout's current step now, as if its analysis had passed"
		cmd.Long = `Promote ends the current step of the profile's rollout now, as if its
analysis had passed: the next step starts, or the new generation serves every
pod after the last one. --full promotes the new generation at once, skipping
the steps left.

It sets the annotation scheduling.profilescheduler.io/rollout-promote to
"<generation>/<step>" (with --full, "<generation>/full") from status.rollout;
a value that names a step already past, or another generation, does nothing.
It is refused when no rollout is in progress.`
		cmd.Example = `  kubectl sp rollout promote bin-packing
  kubectl sp rollout promote bin-packing --full`
		cmd.Flags().BoolVar(&o.full, "full", false, "Promote the new generation at once, skipping the steps left.")
	case actionAbort:
		cmd.Short = "Roll the rollout back: the serving generation stays"
		cmd.Long = `Abort rolls the profile's rollout back, as a failed analysis does: the new
generation is retired and the serving one schedules every pod again. The
profile is then Stalled (reason RolloutAborted) until its spec changes.

It sets the annotation scheduling.profilescheduler.io/rollout-abort to
"<generation>" from status.rollout. It is refused when no rollout is in
progress.`
		cmd.Example = `  kubectl sp rollout abort bin-packing`
	case actionPause:
		cmd.Short = "Hold the rollout at its current step"
		cmd.Long = `Pause holds the profile's rollout at its current step: the step's window
does not end and no analysis is judged until it is resumed. Both generations
keep scheduling their share of the pods meanwhile.

It sets the annotation scheduling.profilescheduler.io/rollout-paused to
"true". It is refused when no rollout is in progress, and when the profile is
already paused.`
		cmd.Example = `  kubectl sp rollout pause bin-packing`
	case actionResume:
		cmd.Short = "Resume a paused rollout"
		cmd.Long = `Resume removes the annotation scheduling.profilescheduler.io/rollout-paused,
so that the rollout's step goes on. It is refused when the profile is not
paused by the annotation. A rollout paused by its failed analysis
(onFailure: Pause) is not resumed: promote or abort it.

An annotation left over after the rollout ended would pause the next one at
its first step: resume removes it then too.`
		cmd.Example = `  kubectl sp rollout resume bin-packing`
	}
	o.print.AddFlags(cmd)
	return cmd
}

// Complete takes the name and the printer of -o (by default kubectl's
// "<resource>/<name> <operation>").
func (o *rolloutActionOptions) Complete(args []string) error {
	if err := o.complete(args); err != nil {
		return err
	}
	p, err := o.print.ToPrinter()
	if err != nil {
		return err
	}
	o.printer = p
	return nil
}

// Validate has nothing left to check: the flags are the action's own, and
// whether the action applies depends on the profile's status (Run).
func (o *rolloutActionOptions) Validate() error { return nil }

// Run reads the profile, decides the annotation from its status, patches
// it and prints the profile.
func (o *rolloutActionOptions) Run(ctx context.Context) error {
	c, err := o.client()
	if err != nil {
		return err
	}
	sp, err := o.get(ctx, c)
	if err != nil {
		return err
	}
	annotations, warning, err := steer(sp, o.action, o.full)
	if err != nil {
		return err
	}
	if warning != "" {
		fmt.Fprintf(o.streams.ErrOut, "Warning: %s\n", warning)
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	if err := c.Patch(ctx, sp, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("annotating %s %q: %w", profileResource, sp.Name, err)
	}
	return o.printer.PrintObj(sp, o.streams.Out)
}

// inProgress reports whether ro is a rollout still running (or paused).
func inProgress(ro *v1alpha1.RolloutStatus) bool {
	return ro != nil && (ro.Phase == v1alpha1.RolloutProgressing || ro.Phase == v1alpha1.RolloutPaused)
}

// steer returns the annotations that ask the operator for action on sp's
// rollout (a nil value removes the annotation), and a warning to print, or
// why the action does not apply.
func steer(sp *v1alpha1.SchedulerProfile, action rolloutAction, full bool) (map[string]*string, string, error) {
	ro := sp.Status.Rollout
	paused := sp.Annotations[v1alpha1.AnnotationRolloutPaused] == "true"
	if action == actionResume && paused {
		// Also once the rollout ended: a leftover annotation would hold the
		// next rollout at its first step.
		return map[string]*string{v1alpha1.AnnotationRolloutPaused: nil}, "", nil
	}
	if !inProgress(ro) {
		return nil, "", fmt.Errorf("cannot %s %s %q: %s", action, profileResource, sp.Name, noRollout(sp))
	}
	var warning string
	if sp.Generation > ro.Generation {
		warning = fmt.Sprintf("generation %d of %s %q is not rolled out yet; this acts on the rollout of generation %d",
			sp.Generation, profileResource, sp.Name, ro.Generation)
	}
	var key, value string
	switch action {
	case actionPromote:
		key = v1alpha1.AnnotationRolloutPromote
		switch {
		case full:
			value = fmt.Sprintf("%d/full", ro.Generation)
		case ro.Step >= 1:
			value = fmt.Sprintf("%d/%d", ro.Generation, ro.Step)
		default:
			return nil, "", fmt.Errorf("cannot promote %s %q: status.rollout names no step (use --full to promote generation %d at once)",
				profileResource, sp.Name, ro.Generation)
		}
	case actionAbort:
		key, value = v1alpha1.AnnotationRolloutAbort, fmt.Sprintf("%d", ro.Generation)
	case actionPause:
		if paused {
			return nil, "", fmt.Errorf("%s %q is already paused", profileResource, sp.Name)
		}
		key, value = v1alpha1.AnnotationRolloutPaused, "true"
	case actionResume:
		// paused was handled above.
		if ro.Phase == v1alpha1.RolloutPaused {
			return nil, "", fmt.Errorf("%s %q is not paused by %s: its rollout of generation %d is held by its failed analysis (onFailure: Pause); promote or abort it",
				profileResource, sp.Name, v1alpha1.AnnotationRolloutPaused, ro.Generation)
		}
		return nil, "", fmt.Errorf("%s %q is not paused", profileResource, sp.Name)
	}
	return map[string]*string{key: &value}, warning, nil
}

// noRollout says why sp has no rollout in progress, naming its phase.
func noRollout(sp *v1alpha1.SchedulerProfile) string {
	ro := sp.Status.Rollout
	serving := fmt.Sprintf("generation %d serves", sp.Status.ActiveGeneration)
	if sp.Status.ActiveGeneration == 0 {
		serving = "no generation serves"
	}
	if ro == nil {
		return "no rollout in progress (it has had none); " + serving
	}
	return fmt.Sprintf("no rollout in progress (the last one, of generation %d, is %s); %s", ro.Generation, ro.Phase, serving)
}
