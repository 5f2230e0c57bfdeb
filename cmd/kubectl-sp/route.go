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
	"maps"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

// routeOptions are the flags of `kubectl sp route`.
type routeOptions struct {
	flags   *genericclioptions.ConfigFlags
	streams genericiooptions.IOStreams

	selector          string
	schedulerName     string
	operatorNamespace string
	allNamespaces     bool
	output            string
	routingTable      string

	// podLabels are the label sets of the new pods --selector selects:
	// one per value its = and in requirements allow.
	podLabels []labels.Set
}

// maxLabelSets bounds the label sets a selector may stand for.
const maxLabelSets = 64

func newRouteCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &routeOptions{flags: flags, streams: streams}
	cmd := &cobra.Command{
		Use:   "route [-n NAMESPACE | -A] [-l SELECTOR]",
		Short: "Tell which ProfileRoute and profile a new pod of the namespace would get",
		Long: `Route answers "which profile would a new pod get here?": it reads the
ProfileRoutes, the SchedulerProfiles and the namespace's labels, and decides as
the operator's MutatingAdmissionPolicy does (the same code builds both: routes
tried by priority, then age; equal-priority overlaps and invalid selectors
refused; a Fallback route of a profile that does not serve left out). It prints
the route and profile, or "none: default-scheduler" when the pod keeps the
scheduler it asks for.

-l is a label selector, as kubectl's: the answer is for the new pods it
selects, one per value its = and in requirements allow (-l 'app in
(spark,flink)' answers for app=spark and for app=flink); != and notin are
met by a pod without the label. -A answers for every namespace, as a table;
-o wide adds each route's priority and what it selects.

The answer is what the stored routes say; a route becomes effective once it is
Ready (kubectl get profileroutes).

--routing-table NAME prints, as YAML, the RoutingTable NAME the operator
writes from the stored routes (the parameter of the routes program), for
an upgrade from a chart whose operator wrote the routes into the policy
(the chart README says when).`,
		Example: `  kubectl sp route -n batch
  kubectl sp route -n batch -l app=etl,tier=gold
  kubectl sp route -n batch -l 'app in (spark,flink)'
  kubectl sp route -A -o wide
  kubectl sp route -n batch --scheduler-name legacy
  kubectl sp route --routing-table profile-scheduler-routes --operator-namespace profile-scheduler-system`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVarP(&o.selector, "selector", "l", "", "Selector (label query) of the new pods, as kubectl's: key=value, key in (v1,v2), key!=value, ...")
	cmd.Flags().BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "Answer for every namespace, as a table.")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "Output format: empty for the answer (a table with -A), or wide: the table with each route's priority and what it selects.")
	cmd.Flags().StringVar(&o.schedulerName, "scheduler-name", "", "spec.schedulerName of the new pod (default-scheduler when empty).")
	cmd.Flags().StringVar(&o.routingTable, "routing-table", "", "Print the RoutingTable of this name that the operator writes from the stored routes, as YAML, instead of an answer.")
	cmd.Flags().StringVar(&o.operatorNamespace, "operator-namespace", "",
		"The operator's namespace, never routed unless a route names it (default: as the routes' status.excludedNamespaces say).")
	return cmd
}

// Complete parses --selector into the label sets of the pods it selects.
func (o *routeOptions) Complete() error {
	sets, err := podLabelSets(o.selector)
	if err != nil {
		return fmt.Errorf("--selector %q: %w", o.selector, err)
	}
	o.podLabels = sets
	return nil
}

// Validate checks -o.
func (o *routeOptions) Validate() error {
	if o.output != "" && o.output != wideOutput {
		return fmt.Errorf("--output must be empty or %s, not %q", wideOutput, o.output)
	}
	return nil
}

// podLabelSets are the label sets of the new pods selector selects: the
// product of the values of its =, == and in requirements. A pod without a
// label meets !=, notin and !key; a requirement that names no value
// (key, gt, lt) leaves the labels, and so the route, open, and is refused.
func podLabelSets(selector string) ([]labels.Set, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, err
	}
	reqs, _ := sel.Requirements()
	out := []labels.Set{{}}
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			var next []labels.Set
			for _, set := range out {
				for _, v := range r.Values().List() {
					c := maps.Clone(set)
					c[r.Key()] = v
					next = append(next, c)
				}
			}
			out = next
		case selection.NotEquals, selection.NotIn, selection.DoesNotExist:
		default:
			return nil, fmt.Errorf("%q names no value, and a route may depend on it: give %s=VALUE or %s in (V1,V2)", r.String(), r.Key(), r.Key())
		}
		if len(out) > maxLabelSets {
			return nil, fmt.Errorf("stands for more than %d label sets", maxLabelSets)
		}
	}
	// Drop what contradicts the selector (app=a,app in (a,b) gives app=b).
	met := out[:0]
	for _, set := range out {
		if sel.Matches(set) {
			met = append(met, set)
		}
	}
	if len(met) == 0 {
		return nil, errors.New("no pod's labels can meet it")
	}
	return met, nil
}

// Run reads the namespaces, the routes and the profiles, decides as the
// operator's policy does, and prints the answer.
func (o *routeOptions) Run(ctx context.Context) error {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if o.routingTable != "" {
		return o.printRoutingTable(ctx, c)
	}
	var namespaces []corev1.Namespace
	if o.allNamespaces {
		var list corev1.NamespaceList
		if err := c.List(ctx, &list); err != nil {
			return fmt.Errorf("listing namespaces: %w", err)
		}
		namespaces = list.Items
	} else {
		ns, _, err := o.flags.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return err
		}
		var namespace corev1.Namespace
		if err := c.Get(ctx, client.ObjectKey{Name: ns}, &namespace); err != nil {
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("reading namespace %s: %w", ns, err)
			}
			return fmt.Errorf("namespace %q not found", ns)
		}
		namespaces = []corev1.Namespace{namespace}
	}
	var routes v1alpha1.ProfileRouteList
	if err := c.List(ctx, &routes); err != nil {
		return fmt.Errorf("listing ProfileRoutes: %w", err)
	}
	var profiles v1alpha1.SchedulerProfileList
	if err := c.List(ctx, &profiles); err != nil {
		return fmt.Errorf("listing SchedulerProfiles: %w", err)
	}
	table, _ := routing.Build(routing.Input{
		Routes:    routes.Items,
		Profiles:  profiles.Items,
		Protected: protectedNamespaces(routes.Items, o.operatorNamespace),
	})
	var answers []routeAnswer
	for _, ns := range namespaces {
		for _, set := range o.podLabels {
			answers = append(answers, routeAnswer{
				Namespace: ns.Name, Labels: set,
				Entry: table.Route(ns.Name, ns.Labels, set, o.schedulerName),
			})
		}
	}
	if !o.allNamespaces && o.output == "" {
		return printRoutes(o.streams, answers, o.schedulerName)
	}
	return printRouteTable(o.streams, answers, o.schedulerName, o.selector != "", o.output == wideOutput)
}

// printRoutingTable prints the RoutingTable the operator writes from the
// stored routes and profiles.
func (o *routeOptions) printRoutingTable(ctx context.Context, c client.Client) error {
	var routes v1alpha1.ProfileRouteList
	if err := c.List(ctx, &routes); err != nil {
		return fmt.Errorf("listing ProfileRoutes: %w", err)
	}
	var profiles v1alpha1.SchedulerProfileList
	if err := c.List(ctx, &profiles); err != nil {
		return fmt.Errorf("listing SchedulerProfiles: %w", err)
	}
	table, _ := routing.Build(routing.Input{
		Routes:    routes.Items,
		Profiles:  profiles.Items,
		Protected: protectedNamespaces(routes.Items, o.operatorNamespace),
	})
	return (&printers.YAMLPrinter{}).PrintObj(table.Params(o.routingTable), o.streams.Out)
}

// routeAnswer is the route a new pod with Labels gets in Namespace; a nil
// Entry when it keeps the scheduler it asks for.
type routeAnswer struct {
	Namespace string
	Labels    labels.Set
	Entry     *routing.Entry
}

// protectedNamespaces is kube-system and the operator's namespace: the one
// given, or those the operator reported in the routes' status.
func protectedNamespaces(routes []v1alpha1.ProfileRoute, operatorNamespace string) []string {
	out := sets.New(routing.DefaultProtected(operatorNamespace)...)
	if operatorNamespace == "" {
		for _, pr := range routes {
			out.Insert(pr.Status.ExcludedNamespaces...)
		}
	}
	return sets.List(out)
}

// printRoutes prints the answer for one namespace: the route, or the
// scheduler the pod keeps; one line per label set, led by the labels, when
// the selector stands for several.
func printRoutes(streams genericiooptions.IOStreams, answers []routeAnswer, schedulerName string) error {
	for _, a := range answers {
		if len(answers) > 1 {
			if _, err := fmt.Fprintf(streams.Out, "%s: ", a.Labels); err != nil {
				return err
			}
		}
		if err := printRoute(streams, a.Entry, schedulerName); err != nil {
			return err
		}
	}
	return nil
}

// printRoute prints the route that rewrites the pod, or the scheduler it
// keeps.
func printRoute(streams genericiooptions.IOStreams, e *routing.Entry, schedulerName string) error {
	if e == nil {
		_, err := fmt.Fprintf(streams.Out, "none: %s\n", keptScheduler(schedulerName))
		return err
	}
	_, err := fmt.Fprintf(streams.Out, "route %s: profile %s, schedulerName %s (priority %d; %s)\n",
		e.Route, e.Profile, e.SchedulerName, e.Priority, e.String())
	return err
}

// printRouteTable prints the answers as a table, a row per namespace (and
// label set, with labels); wide adds the route's priority and selection.
func printRouteTable(streams genericiooptions.IOStreams, answers []routeAnswer, schedulerName string, labelled, wide bool) error {
	tw := printers.GetNewTabWriter(streams.Out)
	header := []string{"NAMESPACE"}
	if labelled {
		header = append(header, "LABELS")
	}
	header = append(header, "ROUTE", "PROFILE", "SCHEDULERNAME")
	if wide {
		header = append(header, "PRIORITY", "SELECTS")
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, a := range answers {
		row := []string{a.Namespace}
		if labelled {
			row = append(row, a.Labels.String())
		}
		if e := a.Entry; e != nil {
			row = append(row, e.Route, e.Profile, e.SchedulerName)
			if wide {
				row = append(row, strconv.Itoa(int(e.Priority)), e.String())
			}
		} else {
			row = append(row, "<none>", "<none>", keptScheduler(schedulerName))
			if wide {
				row = append(row, "<none>", "<none>")
			}
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// keptScheduler is the schedulerName a pod no route takes keeps.
func keptScheduler(schedulerName string) string {
	if schedulerName == "" {
		return corev1.DefaultSchedulerName
	}
	return schedulerName
}
