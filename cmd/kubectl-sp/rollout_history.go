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
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// history, undo and retry: the specs that served a profile, kept by the
// operator as ControllerRevisions labelled with the profile's name (in
// the operator's namespace), and the annotations that go back to one, or
// roll a rolled-back generation out again.
//
//	kubectl sp rollout history NAME [-n OPERATOR-NAMESPACE]
//	kubectl sp rollout undo NAME [--to-revision N] [-o ...]
//	kubectl sp rollout retry NAME [-o ...]

func newRolloutHistoryCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &rolloutOptions{flags: flags, streams: streams}
	return &cobra.Command{
		Use:   "history NAME",
		Short: "List the specs that served the profile, newest last",
		Long: `History lists the specs that served the profile, as the operator keeps them
(ControllerRevisions labelled scheduling.profilescheduler.io/profile=NAME, in
the operator's namespace, at most spec.revisionHistoryLimit of them): the
revision number, the generation, when it was kept, the field manager that
wrote the spec (kubectl, argocd-controller, ...), and the outcome of its
rollout from status.rollout.history. undo --to-revision takes a number of this
list. Without -n the revisions are looked for in every namespace.`,
		Example: `  kubectl sp rollout history bin-packing`,
		Args:    profileName("history"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.complete(args); err != nil {
				return err
			}
			c, err := o.client()
			if err != nil {
				return err
			}
			sp, err := o.get(cmd.Context(), c)
			if err != nil {
				return err
			}
			revs, err := listRevisions(cmd.Context(), c, o.flags, sp.Name)
			if err != nil {
				return err
			}
			return renderHistory(o.streams.Out, sp, revs, time.Now())
		},
	}
}

// listRevisions lists the revisions of the profile named name, oldest
// first: in the namespace of -n when it is given, else in every one.
func listRevisions(ctx context.Context, c client.Client, flags *genericclioptions.ConfigFlags, name string) ([]appsv1.ControllerRevision, error) {
	opts := []client.ListOption{client.MatchingLabels{v1alpha1.LabelProfile: name}}
	if flags.Namespace != nil && *flags.Namespace != "" {
		opts = append(opts, client.InNamespace(*flags.Namespace))
	}
	var list appsv1.ControllerRevisionList
	if err := c.List(ctx, &list, opts...); err != nil {
		return nil, fmt.Errorf("listing the revisions of %s %q: %w", profileResource, name, err)
	}
	slices.SortFunc(list.Items, func(a, b appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
	return list.Items, nil
}

// renderHistory prints revs, one a line, with the outcome status.rollout
// records for each one's generation.
func renderHistory(out io.Writer, sp *v1alpha1.SchedulerProfile, revs []appsv1.ControllerRevision, now time.Time) error {
	if len(revs) == 0 {
		fmt.Fprintf(out, "No history of %s %q: the operator keeps the specs that served once one has (spec.revisionHistoryLimit: 0 keeps none).\n", profileResource, sp.Name)
		return nil
	}
	outcomes := map[string]string{}
	if ro := sp.Status.Rollout; ro != nil {
		for i := len(ro.History) - 1; i >= 0; i-- {
			outcomes[strconv.FormatInt(ro.History[i].Generation, 10)] = ro.History[i].Outcome
		}
	}
	w := printers.GetNewTabWriter(out)
	fmt.Fprintln(w, "REVISION\tGENERATION\tKEPT\tCHANGED BY\tOUTCOME")
	for _, cr := range revs {
		gen := cr.Annotations[v1alpha1.AnnotationRevisionGeneration]
		outcome := outcomes[gen]
		if outcome == "" {
			outcome = "Live"
		}
		if gen == strconv.FormatInt(sp.Status.ActiveGeneration, 10) {
			outcome += " (serving)"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", cr.Revision, orNone(gen), when(&cr.CreationTimestamp, now), orNone(cr.Annotations[v1alpha1.AnnotationRevisionChangedBy]), outcome)
	}
	return w.Flush()
}

// rolloutChangeOptions are the options of undo and retry.
type rolloutChangeOptions struct {
	rolloutOptions
	verb       string
	toRevision int64

	print   *genericclioptions.PrintFlags
	printer printers.ResourcePrinter
}

func newRolloutUndoCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &rolloutChangeOptions{rolloutOptions: rolloutOptions{flags: flags, streams: streams}, verb: "undo",
		print: genericclioptions.NewPrintFlags("rolled back").WithTypeSetter(scheme)}
	cmd := &cobra.Command{
		Use:   "undo NAME [--to-revision N]",
		Short: "Put back the spec of an earlier revision, and promote it at once",
		Long: `Undo puts back the spec of an earlier revision of the profile's history
(kubectl sp rollout history): by default the one before the newest, with
--to-revision the one named. The operator writes that spec (spec.rollout and
spec.revisionHistoryLimit stay as they are) and promotes it at once, since it
served before; a spec that no longer builds is refused as any bad spec, and
the serving generation stays.

It sets the annotation scheduling.profilescheduler.io/rollout-undo to
"<revision>@<generation>"; the operator acts on it while the profile is at
that generation, so an annotation left in place undoes nothing twice.

Where a GitOps tool applies the profile from Git, the spec in Git wins: its
next sync puts the spec back. Undo there by reverting the change in Git.`,
		Example: `  kubectl sp rollout undo bin-packing
  kubectl sp rollout undo bin-packing --to-revision 3`,
		Args: profileName("undo"),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd.Context(), args) },
	}
	cmd.Flags().Int64Var(&o.toRevision, "to-revision", 0, "The revision to go back to (kubectl sp rollout history); 0: the one before the newest.")
	o.print.AddFlags(cmd)
	return cmd
}

func newRolloutRetryCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &rolloutChangeOptions{rolloutOptions: rolloutOptions{flags: flags, streams: streams}, verb: "retry",
		print: genericclioptions.NewPrintFlags("retried").WithTypeSetter(scheme)}
	cmd := &cobra.Command{
		Use:   "retry NAME",
		Short: "Roll a rolled-back generation out again, from its first step",
		Long: `Retry rolls the profile's latest generation out again, from its first step,
after its rollout was rolled back or aborted (by a transient failure, say).
It sets the annotation scheduling.profilescheduler.io/rollout-retry to
"<generation>/<attempt>"; the operator honours each attempt once
(status.rollout.retried). It is refused unless the latest generation's
rollout was rolled back or aborted; a retry while a newer spec rolls out
does nothing.`,
		Example: `  kubectl sp rollout retry bin-packing`,
		Args:    profileName("retry"),
		RunE:    func(cmd *cobra.Command, args []string) error { return o.run(cmd.Context(), args) },
	}
	o.print.AddFlags(cmd)
	return cmd
}

// run reads the profile (and, for undo, its history), decides the
// annotation, patches it and prints the profile.
func (o *rolloutChangeOptions) run(ctx context.Context, args []string) error {
	if err := o.complete(args); err != nil {
		return err
	}
	p, err := o.print.ToPrinter()
	if err != nil {
		return err
	}
	o.printer = p
	c, err := o.client()
	if err != nil {
		return err
	}
	sp, err := o.get(ctx, c)
	if err != nil {
		return err
	}
	var key, value string
	annotations := map[string]any{}
	switch o.verb {
	case "undo":
		revs, err := listRevisions(ctx, c, o.flags, sp.Name)
		if err != nil {
			return err
		}
		n, err := undoTarget(revs, o.toRevision)
		if err != nil {
			return fmt.Errorf("cannot undo %s %q: %w", profileResource, sp.Name, err)
		}
		key, value = v1alpha1.AnnotationRolloutUndo, fmt.Sprintf("%d@%d", n, sp.Generation)
	case "retry":
		v, err := retryValue(sp)
		if err != nil {
			return err
		}
		key, value = v1alpha1.AnnotationRolloutRetry, v
		// An abort or a step's promotion of the generation, left in
		// place, would end the retried rollout at once: removed in the
		// same write.
		gen := strconv.FormatInt(sp.Generation, 10)
		if sp.Annotations[v1alpha1.AnnotationRolloutAbort] == gen {
			annotations[v1alpha1.AnnotationRolloutAbort] = nil
		}
		if g, _, _ := strings.Cut(sp.Annotations[v1alpha1.AnnotationRolloutPromote], "/"); g == gen {
			annotations[v1alpha1.AnnotationRolloutPromote] = nil
		}
	}
	annotations[key] = value
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	if err := c.Patch(ctx, sp, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("annotating %s %q: %w", profileResource, sp.Name, err)
	}
	return o.printer.PrintObj(sp, o.streams.Out)
}

// undoTarget is the revision undo goes back to: to, when it is in revs,
// else (to 0) the one before the newest.
func undoTarget(revs []appsv1.ControllerRevision, to int64) (int64, error) {
	if to != 0 {
		if !slices.ContainsFunc(revs, func(cr appsv1.ControllerRevision) bool { return cr.Revision == to }) {
			return 0, fmt.Errorf("revision %d is not in its history (kubectl sp rollout history)", to)
		}
		return to, nil
	}
	if len(revs) < 2 {
		return 0, fmt.Errorf("its history holds %d revision(s): nothing served before the newest", len(revs))
	}
	return revs[len(revs)-2].Revision, nil
}

// retryValue is the rollout-retry annotation that rolls sp's latest
// generation out again, or why it does not apply.
func retryValue(sp *v1alpha1.SchedulerProfile) (string, error) {
	ro := sp.Status.Rollout
	if ro == nil || ro.Generation != sp.Generation || (ro.Phase != v1alpha1.RolloutRolledBack && ro.Phase != v1alpha1.RolloutAborted) {
		return "", fmt.Errorf("cannot retry %s %q: its latest generation's rollout was not rolled back or aborted (%s)", profileResource, sp.Name, noRollout(sp))
	}
	attempt := 1
	if gen, n, ok := strings.Cut(ro.Retried, "/"); ok && gen == strconv.FormatInt(sp.Generation, 10) {
		if k, err := strconv.Atoi(n); err == nil {
			attempt = k + 1
		}
	}
	return fmt.Sprintf("%d/%d", sp.Generation, attempt), nil
}
