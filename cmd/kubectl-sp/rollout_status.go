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
	"io"
	"reflect"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// rolloutStatusOptions are the options of `kubectl sp rollout status`.
type rolloutStatusOptions struct {
	rolloutOptions
	watch   bool
	timeout time.Duration
	// now is the clock of the relative times printed.
	now func() time.Time
}

func newRolloutStatusCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &rolloutStatusOptions{rolloutOptions: rolloutOptions{flags: flags, streams: streams}, watch: true, now: time.Now}
	cmd := &cobra.Command{
		Use:   "status NAME",
		Short: "Show the rollout of a SchedulerProfile and wait until it ends",
		Long: `Status prints the rollout of the profile's latest generation, from
status.rollout: its phase, the step in progress and its window, the last
analysis per metric (the new generation's value, the serving one's, the
threshold, the samples, the verdict), what the new generation judged in shadow
and where it disagreed, and the rollouts that ended before.

By default it then watches the profile, as kubectl rollout status does,
printing a line at each change, until the rollout ends:

  Promoted                exit 0
  RolledBack              exit 1, with the operator's message (the metric and
                          both values); the previous generation still serves
  Aborted                 exit 2, likewise
  --timeout passed        exit 3

A generation not yet observed by the operator is waited for. A profile whose
latest generation went live without a rollout (no spec.rollout, or its first
generation) has no rollout in progress: exit 0; a latest generation refused
(Stalled) exits 1 with the condition's message. A rollout paused (by the
annotation, or by its failed analysis with onFailure: Pause) is waited for.

--watch=false prints once and exits: 0 while the rollout is in progress or
promoted, 1 when it was rolled back or refused, 2 when it was aborted.
--timeout bounds the wait (0, the default, waits for ever) and exits 3 when
it passes.

While a step runs, the analysis the operator judged at its last look
(every spec.rollout.analysis.interval) is printed again whenever it
changes: each metric's value against its bound, Pending until a failure
is certain or the step ends.`,
		Example: `  kubectl sp rollout status bin-packing
  kubectl sp rollout status bin-packing --watch=false
  kubectl sp rollout status bin-packing --timeout 15m`,
		Args: profileName("status"),
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
	cmd.Flags().BoolVarP(&o.watch, "watch", "w", o.watch, "Watch the status of the rollout until it ends.")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 0,
		"The length of time to wait before ending watch, zero means never. Any other values should contain a corresponding time unit (e.g. 1s, 2m, 3h).")
	return cmd
}

// Complete takes the profile's name.
func (o *rolloutStatusOptions) Complete(args []string) error {
	return o.complete(args)
}

// Validate refuses a negative --timeout.
func (o *rolloutStatusOptions) Validate() error {
	if o.timeout < 0 {
		return fmt.Errorf("--timeout must not be negative, not %s", o.timeout)
	}
	return nil
}

// Run prints the rollout and, with --watch, a line at each change until
// the rollout ends.
func (o *rolloutStatusOptions) Run(ctx context.Context) error {
	c, err := o.client()
	if err != nil {
		return err
	}
	sp, err := o.get(ctx, c)
	if err != nil {
		return err
	}
	if err := renderRollout(o.streams.Out, sp, o.now()); err != nil {
		return err
	}
	p := rolloutProgress(sp, o.now())
	if p.err != nil {
		return p.err
	}
	fmt.Fprintln(o.streams.Out, p.line)
	if p.done || !o.watch {
		return nil
	}

	ctx, cancel := watchtools.ContextWithOptionalTimeout(ctx, o.timeout)
	defer cancel()
	last := p
	lastAnalysis := analysisOf(sp)
	_, err = watchtools.UntilWithSync(ctx, o.listWatch(c), &v1alpha1.SchedulerProfile{}, nil, func(e watch.Event) (bool, error) {
		switch e.Type {
		case watch.Added, watch.Modified:
			sp, ok := e.Object.(*v1alpha1.SchedulerProfile)
			if !ok {
				return false, fmt.Errorf("unexpected object %T", e.Object)
			}
			if analysis := analysisOf(sp); !reflect.DeepEqual(analysis, lastAnalysis) && len(analysis) > 0 {
				lastAnalysis = analysis
				if err := renderAnalysis(o.streams.Out, analysis); err != nil {
					return false, err
				}
			}
			p := rolloutProgress(sp, o.now())
			if p.err != nil {
				return true, p.err
			}
			if p.key != last.key || p.done {
				fmt.Fprintln(o.streams.Out, p.line)
			}
			last = p
			return p.done, nil
		case watch.Deleted:
			return true, fmt.Errorf("%s %q was deleted", profileResource, o.name)
		default:
			return true, fmt.Errorf("unexpected watch event %s: %v", e.Type, e.Object)
		}
	})
	if wait.Interrupted(err) || errors.Is(err, context.DeadlineExceeded) {
		return codedError{code: exitTimedOut, err: fmt.Errorf("timed out waiting for the rollout of %s %q after %s: %s", profileResource, o.name, o.timeout, last.state)}
	}
	return err
}

// listWatch lists and watches the one profile, as kubectl rollout status
// does with a field selector on its name.
func (o *rolloutStatusOptions) listWatch(c client.WithWatch) cache.ListerWatcher {
	byName := fields.OneTermEqualSelector("metadata.name", o.name).String()
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = byName
			list := &v1alpha1.SchedulerProfileList{}
			return list, c.List(ctx, list, &client.ListOptions{Raw: &opts})
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = byName
			return c.Watch(ctx, &v1alpha1.SchedulerProfileList{}, &client.ListOptions{Raw: &opts})
		},
	}
}

// Exit statuses of rollout status (0: promoted, or no rollout).
const (
	exitRolledBack = 1
	exitAborted    = 2
	exitTimedOut   = 3
)

// progress is where the latest generation's rollout stands, as kubectl's
// status viewers read a Deployment.
type progress struct {
	// line is printed: "Waiting for ..." or "... successfully rolled out".
	line string
	// state is the line's reason without the "Waiting for" (for a timeout).
	state string
	// key changes when something a person waits for changes (phase, step,
	// extension, pause), not when only time passes.
	key string
	// done: the wait is over, successfully unless err is set.
	done bool
	// err: it ended without the latest generation serving.
	err error
}

// rolloutProgress reads sp: its latest generation's rollout in progress,
// ended, or none.
func rolloutProgress(sp *v1alpha1.SchedulerProfile, now time.Time) progress {
	ro := sp.Status.Rollout
	name := fmt.Sprintf("%s %q", profileResource, sp.Name)
	waiting := func(state, key string) progress {
		return progress{line: fmt.Sprintf("Waiting for %s rollout to finish: %s...", name, state), state: state, key: key}
	}
	if ro != nil && ro.Generation >= sp.Generation {
		serves := fmt.Sprintf("generation %d serves", sp.Status.ActiveGeneration)
		if sp.Status.ActiveGeneration == 0 {
			serves = "no generation serves"
		}
		message := ro.Message
		if message == "" {
			if c := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue {
				message = c.Message
			}
		}
		switch ro.Phase {
		case v1alpha1.RolloutProgressing:
			state := fmt.Sprintf("generation %d, %s", ro.Generation, stepOf(ro, now))
			if sp.Annotations[v1alpha1.AnnotationRolloutPaused] == "true" {
				state += ", pause requested"
			}
			return waiting(state, fmt.Sprintf("%s/%d/%d/%d/%s", ro.Phase, ro.Generation, ro.Step, ro.Extensions, sp.Annotations[v1alpha1.AnnotationRolloutPaused]))
		case v1alpha1.RolloutPaused:
			state := fmt.Sprintf("generation %d paused at step %d of %d (%s)", ro.Generation, ro.Step, ro.Steps, stepKind(ro))
			if sp.Annotations[v1alpha1.AnnotationRolloutPaused] == "true" {
				state += fmt.Sprintf(", until kubectl sp rollout resume %s", sp.Name)
			} else {
				if message != "" {
					state += ": " + message
				}
				state += fmt.Sprintf("; promote or abort it (kubectl sp rollout promote|abort %s)", sp.Name)
			}
			return waiting(state, fmt.Sprintf("%s/%d/%d/%s", ro.Phase, ro.Generation, ro.Step, sp.Annotations[v1alpha1.AnnotationRolloutPaused]))
		case v1alpha1.RolloutPromoted:
			return progress{line: fmt.Sprintf("%s successfully rolled out: generation %d promoted", name, ro.Generation), done: true}
		case v1alpha1.RolloutRolledBack, v1alpha1.RolloutAborted:
			what, code := "rolled back", exitRolledBack
			if ro.Phase == v1alpha1.RolloutAborted {
				what, code = "aborted", exitAborted
			}
			what = fmt.Sprintf("%s rollout of generation %d %s (%s)", name, ro.Generation, what, serves)
			if message != "" {
				what += ": " + message
			}
			return progress{done: true, err: codedError{code: code, err: errors.New(what)}}
		default:
			// Superseded, or a phase this client does not know: the
			// operator moves on to the next rollout.
			state := fmt.Sprintf("the rollout of generation %d is %s", ro.Generation, ro.Phase)
			return waiting(state, ro.Phase+"/"+fmt.Sprint(ro.Generation))
		}
	}
	if sp.Status.ObservedGeneration < sp.Generation {
		state := fmt.Sprintf("generation %d to be observed", sp.Generation)
		return progress{line: fmt.Sprintf("Waiting for generation %d of %s to be observed...", sp.Generation, name), state: state, key: "unobserved/" + fmt.Sprint(sp.Generation)}
	}
	// The latest generation was decided without a rollout.
	if c := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue &&
		(c.ObservedGeneration == 0 || c.ObservedGeneration >= sp.Generation) {
		return progress{done: true, err: fmt.Errorf("%s is stalled: %s", name, c.Message)}
	}
	if c := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady); c != nil && c.Status == metav1.ConditionTrue {
		return progress{line: fmt.Sprintf("%s has no rollout in progress: generation %d serves", name, sp.Status.ActiveGeneration), done: true}
	}
	state := fmt.Sprintf("generation %d to be applied", sp.Generation)
	if c := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReconciling); c != nil && c.Status == metav1.ConditionTrue && c.Message != "" {
		state += " (" + c.Message + ")"
	}
	return waiting(state, "applying/"+fmt.Sprint(sp.Generation))
}

// stepOf is "step 2 of 3 (canary 10%), window ends in 7m".
func stepOf(ro *v1alpha1.RolloutStatus, now time.Time) string {
	s := fmt.Sprintf("step %d of %d (%s)", ro.Step, ro.Steps, stepKind(ro))
	if ro.StepEnds != nil {
		if left := ro.StepEnds.Sub(now); left > 0 {
			s += ", window ends in " + duration.HumanDuration(left)
		} else {
			s += ", window ended, being judged"
		}
	}
	if ro.Extensions > 0 {
		s += fmt.Sprintf(", extended %s for want of samples", times(ro.Extensions))
	}
	return s
}

// stepKind is "shadow" or "canary 10%".
func stepKind(ro *v1alpha1.RolloutStatus) string {
	switch ro.StepKind {
	case v1alpha1.StepShadow:
		return "shadow"
	case v1alpha1.StepCanary:
		return fmt.Sprintf("canary %d%%", ro.Percent)
	case v1alpha1.StepPause:
		if ro.Percent > 0 {
			return fmt.Sprintf("pause (at canary %d%%)", ro.Percent)
		}
		return "pause"
	case "":
		return "step kind not reported"
	default:
		return ro.StepKind
	}
}

func times(n int32) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// analysisOf is the last analysis of sp's rollout.
func analysisOf(sp *v1alpha1.SchedulerProfile) []v1alpha1.RolloutMetric {
	if sp.Status.Rollout == nil {
		return nil
	}
	return sp.Status.Rollout.Analysis
}

// renderRollout prints sp's rollout as kubectl describe prints an object:
// fields, then the analysis, the shadow's counts and the history as
// tables.
func renderRollout(out io.Writer, sp *v1alpha1.SchedulerProfile, now time.Time) error {
	w := printers.GetNewTabWriter(out)
	fmt.Fprintf(w, "Name:\t%s\n", sp.Name)
	fmt.Fprintf(w, "Generation:\t%d (observed %d, serving %d)\n", sp.Generation, sp.Status.ObservedGeneration, sp.Status.ActiveGeneration)
	ro := sp.Status.Rollout
	if ro == nil {
		fmt.Fprintf(w, "Rollout:\t<none>\n")
		return w.Flush()
	}
	fmt.Fprintf(w, "Rollout:\tgeneration %d, %s\n", ro.Generation, ro.Phase)
	if inProgress(ro) {
		if ro.ServingGeneration != 0 {
			fmt.Fprintf(w, "Serving:\tgeneration %d (the pods the new one does not schedule)\n", ro.ServingGeneration)
		}
		fmt.Fprintf(w, "Step:\t%d/%d %s\n", ro.Step, ro.Steps, stepKind(ro))
		if ro.StepStarted != nil || ro.StepEnds != nil {
			fmt.Fprintf(w, "Window:\tstarted %s, ends %s\n", when(ro.StepStarted, now), when(ro.StepEnds, now))
		}
		if ro.Covers != "" {
			covers := ro.Covers
			if ro.Matched != nil {
				covers += fmt.Sprintf(" (%d attempts matched in this window)", *ro.Matched)
			}
			fmt.Fprintf(w, "Covers:\t%s\n", covers)
		}
		if ro.Looks > 0 {
			fmt.Fprintf(w, "Looks:\t%d while the step runs (a failure that is certain ends it at once)\n", ro.Looks)
		}
		if ro.HeldSince != nil {
			fmt.Fprintf(w, "Held:\tsince %s\n", when(ro.HeldSince, now))
		}
		if ro.Extensions > 0 {
			fmt.Fprintf(w, "Extended:\t%s for want of samples\n", times(ro.Extensions))
		}
	}
	if v, ok := sp.Annotations[v1alpha1.AnnotationRolloutPaused]; ok {
		fmt.Fprintf(w, "Paused:\t%s (%s)\n", v, v1alpha1.AnnotationRolloutPaused)
	}
	if ro.Summary != "" {
		fmt.Fprintf(w, "Summary:\t%s\n", ro.Summary)
	}
	if ro.Message != "" {
		fmt.Fprintf(w, "Message:\t%s\n", ro.Message)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(ro.Analysis) > 0 {
		if err := renderAnalysis(out, ro.Analysis); err != nil {
			return err
		}
	}
	if ro.Shadow != nil {
		if err := renderShadow(out, ro.Shadow); err != nil {
			return err
		}
	}
	if len(ro.History) > 0 {
		w := printers.GetNewTabWriter(out)
		fmt.Fprintln(w, "History:")
		fmt.Fprintln(w, "  GENERATION\tOUTCOME\tREASON\tTIME\tMESSAGE")
		for _, h := range ro.History {
			fmt.Fprintf(w, "  %d\t%s\t%s\t%s\t%s\n", h.Generation, h.Outcome, orNone(h.Reason), when(&h.Time, now), orNone(h.Message))
		}
		return w.Flush()
	}
	return nil
}

// renderAnalysis prints the last analysis, one metric a line.
func renderAnalysis(out io.Writer, analysis []v1alpha1.RolloutMetric) error {
	w := printers.GetNewTabWriter(out)
	fmt.Fprintln(w, "Analysis:")
	fmt.Fprintln(w, "  METRIC\tNEW\tSERVING\tTHRESHOLD\tSAMPLES\tSERVING SAMPLES\tVERDICT")
	for _, m := range analysis {
		verdict := m.Verdict
		if m.Failed > 0 || m.Errored > 0 {
			verdict += fmt.Sprintf(" (%d failed, %d errored)", m.Failed, m.Errored)
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%d\t%d\t%s\n", m.Metric, orNone(m.New), orNone(m.Serving), orNone(m.Threshold), m.Samples, m.ServingSamples, verdict)
	}
	return w.Flush()
}

// renderShadow prints what the new generation judged in shadow.
func renderShadow(out io.Writer, s *v1alpha1.ShadowResult) error {
	w := printers.GetNewTabWriter(out)
	fmt.Fprintln(w, "Shadow:")
	fmt.Fprintf(w, "  Judged:\t%d\n", s.Judged)
	if s.Skipped > 0 {
		fmt.Fprintf(w, "  Skipped:\t%d (the shadow's queue was full: the counts are a sample)\n", s.Skipped)
	}
	fmt.Fprintf(w, "  Same node:\t%d\n", s.SameNode)
	fmt.Fprintf(w, "  Feasible where serving placed:\t%d of %d\n", s.FeasibleWhereServingPlaced, s.ServingPlaced)
	fmt.Fprintf(w, "  Would place (serving could not):\t%d\n", s.WouldPlace)
	fmt.Fprintf(w, "  Would not place (serving placed):\t%d\n", s.WouldNotPlace)
	if err := w.Flush(); err != nil {
		return err
	}
	// A writer of its own: GetNewTabWriter's remembers its columns' widths.
	w = printers.GetNewTabWriter(out)
	if len(s.Disagreements) > 0 {
		fmt.Fprintln(w, "  Disagreements:")
		fmt.Fprintln(w, "    POD\tSERVING NODE\tNEW NODE\tPLUGIN")
		for _, d := range s.Disagreements {
			fmt.Fprintf(w, "    %s\t%s\t%s\t%s\n", d.Pod, orNone(d.ServingNode), orNone(d.NewNode), orNone(d.Plugin))
		}
	}
	return w.Flush()
}

// when is an RFC 3339 time with its age, as "2026-08-10T10:00:00Z (3m ago)"
// or "(in 7m)".
func when(t *metav1.Time, now time.Time) string {
	if t == nil {
		return "<unknown>"
	}
	d := now.Sub(t.Time)
	rel := duration.HumanDuration(d) + " ago"
	if d < 0 {
		rel = "in " + duration.HumanDuration(-d)
	}
	return fmt.Sprintf("%s (%s)", t.UTC().Format(time.RFC3339), rel)
}
