package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
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

	// podLabels are the new pod's labels, parsed from --selector.
	podLabels labels.Set
}

func newRouteCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &routeOptions{flags: flags, streams: streams}
	cmd := &cobra.Command{
		Use:   "route [-n NAMESPACE] [-l key=value,...]",
		Short: "Tell which ProfileRoute and profile a new pod of the namespace would get",
		Long: `Route answers "which profile would a new pod get here?": it reads the
ProfileRoutes, the SchedulerProfiles and the namespace's labels, and decides as
the operator's MutatingAdmissionPolicy does (the same code builds both: routes
tried by priority, then age; equal-priority overlaps and invalid selectors
refused; a Fallback route of a profile that does not serve left out). It prints
the route and profile, or "none: default-scheduler" when the pod keeps the
scheduler it asks for.

The answer is what the stored routes say; a route becomes effective once it is
Ready (kubectl get profileroutes).`,
		Example: `  kubectl sp route -n batch
  kubectl sp route -n batch -l app=etl,tier=gold
  kubectl sp route -n batch --scheduler-name legacy`,
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
	cmd.Flags().StringVarP(&o.selector, "selector", "l", "", "Labels of the new pod, key=value,...")
	cmd.Flags().StringVar(&o.schedulerName, "scheduler-name", "", "spec.schedulerName of the new pod (default-scheduler when empty).")
	cmd.Flags().StringVar(&o.operatorNamespace, "operator-namespace", "",
		"The operator's namespace, never routed unless a route names it (default: as the routes' status.excludedNamespaces say).")
	return cmd
}

// Complete parses --selector into the new pod's labels.
func (o *routeOptions) Complete() error {
	podLabels, err := labels.ConvertSelectorToLabelsMap(o.selector)
	if err != nil {
		return fmt.Errorf("--selector: %w", err)
	}
	o.podLabels = podLabels
	return nil
}

// Validate has nothing to check: every flag is optional and any
// combination asks a question (Complete parsed the selector).
func (o *routeOptions) Validate() error { return nil }

// Run reads the namespace, the routes and the profiles, decides as the
// operator's policy does, and prints the answer.
func (o *routeOptions) Run(ctx context.Context) error {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return err
	}
	ns, _, err := o.flags.ToRawKubeConfigLoader().Namespace()
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
	var namespace corev1.Namespace
	if err := c.Get(ctx, client.ObjectKey{Name: ns}, &namespace); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading namespace %s: %w", ns, err)
		}
		return fmt.Errorf("namespace %q not found", ns)
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
	return printRoute(o.streams, table.Route(ns, namespace.Labels, o.podLabels, o.schedulerName), o.schedulerName)
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

// printRoute prints the route that rewrites the pod, or the scheduler it
// keeps.
func printRoute(streams genericiooptions.IOStreams, e *routing.Entry, schedulerName string) error {
	if e == nil {
		if schedulerName == "" {
			schedulerName = corev1.DefaultSchedulerName
		}
		_, err := fmt.Fprintf(streams.Out, "none: %s\n", schedulerName)
		return err
	}
	_, err := fmt.Fprintf(streams.Out, "route %s: profile %s, schedulerName %s (priority %d; %s)\n",
		e.Route, e.Profile, e.SchedulerName, e.Priority, e.String())
	return err
}
