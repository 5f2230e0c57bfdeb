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
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// completionTimeout bounds the cluster reads of one completion: a shell
// waiting on TAB gets nothing rather than hanging.
const completionTimeout = 5 * time.Second

func newCompletionCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script of kubectl-sp",
		Long: `Completion prints a script that completes kubectl-sp's commands, flags and
the names they take, read from the cluster: SchedulerProfiles (rollout,
--profile, --scheduler-name), pods of the namespace (explain), namespaces
(-n, --operator-namespace), nodes (--add-nodes, --min-nodes), and kubeconfig
contexts, clusters and users.

kubectl completes "kubectl sp ..." (kubectl 1.26 and later) by running an
executable named kubectl_complete-sp found on PATH, which can hand over to
kubectl-sp itself:

  printf '#!/bin/sh\nexec kubectl-sp __complete "$@"\n' > ~/bin/kubectl_complete-sp
  chmod +x ~/bin/kubectl_complete-sp`,
		Example: `  source <(kubectl-sp completion bash)
  kubectl-sp completion zsh > "${fpath[1]}/_kubectl-sp"
  kubectl-sp completion fish > ~/.config/fish/completions/kubectl-sp.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(streams.Out, true)
			case "zsh":
				return root.GenZshCompletion(streams.Out)
			default:
				return root.GenFishCompletion(streams.Out, true)
			}
		},
	}
}

// registerCompletions gives every command's arguments and flags the names
// they take. The commands' files stay about what they do; what a name
// completes to is decided here, once.
func registerCompletions(root *cobra.Command, flags *genericclioptions.ConfigFlags) {
	c := completer{flags: flags}
	must := func(err error) {
		if err != nil {
			panic(err) // a flag name misspelt here: caught by the tests
		}
	}
	must(root.RegisterFlagCompletionFunc("namespace", c.names(c.namespaces)))
	must(root.RegisterFlagCompletionFunc("context", c.kubeconfig("contexts")))
	must(root.RegisterFlagCompletionFunc("cluster", c.kubeconfig("clusters")))
	must(root.RegisterFlagCompletionFunc("user", c.kubeconfig("users")))

	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		switch {
		case cmd.Name() == "explain":
			cmd.ValidArgsFunction = c.firstArg(c.names(c.pods))
		case cmd.HasParent() && cmd.Parent().Name() == "rollout":
			cmd.ValidArgsFunction = c.firstArg(c.names(c.profiles))
		}
		for flag, complete := range map[string]cobra.CompletionFunc{
			"profile":            c.names(c.profiles),
			"scheduler-name":     c.names(c.schedulerNames),
			"operator-namespace": c.names(c.namespaces),
			"add-nodes":          c.names(c.nodes),
			"min-nodes":          c.names(c.nodes),
			"output":             c.formats(cmd),
		} {
			if cmd.LocalNonPersistentFlags().Lookup(flag) != nil {
				must(cmd.RegisterFlagCompletionFunc(flag, complete))
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completer reads names from the cluster with kubectl's connection flags.
type completer struct {
	flags *genericclioptions.ConfigFlags
}

// lister lists the names a completion offers.
type lister func(ctx context.Context, c client.Client) ([]string, error)

// names completes with what list reads, prefixed by what was typed. A
// cluster that cannot be read completes nothing (and no file names).
func (c completer) names(list lister) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cfg, err := c.flags.ToRESTConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		cfg = rest.CopyConfig(cfg)
		cfg.Timeout = completionTimeout
		cl, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, completionTimeout)
		defer cancel()
		names, err := list(ctx, cl)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// firstArg completes the first positional argument only.
func (c completer) firstArg(complete cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return complete(cmd, args, toComplete)
	}
}

// kubeconfig completes the names of a section of the kubeconfig.
func (c completer) kubeconfig(section string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		raw, err := c.flags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		switch section {
		case "contexts":
			for n := range raw.Contexts {
				names = append(names, n)
			}
		case "clusters":
			for n := range raw.Clusters {
				names = append(names, n)
			}
		default:
			for n := range raw.AuthInfos {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// formats completes -o with the formats the command accepts.
func (c completer) formats(cmd *cobra.Command) cobra.CompletionFunc {
	formats := outputFormats(cmd)
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withPrefix(formats, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// outputFormats are the -o values of a command: kubectl's for a command
// that prints an object, with the command's own table and wide before
// them when it has a table.
func outputFormats(cmd *cobra.Command) []string {
	kubectl := genericclioptions.NewPrintFlags("").AllowedFormats()
	switch {
	case cmd.Name() == "explain" || cmd.Name() == "what-if":
		return append([]string{tableOutput, wideOutput}, kubectl...)
	case cmd.Name() == "route":
		return []string{wideOutput}
	case cmd.Name() == "version":
		return []string{"yaml", "json"}
	default:
		return kubectl
	}
}

func withPrefix(names []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

func (c completer) profiles(ctx context.Context, cl client.Client) ([]string, error) {
	var list v1alpha1.SchedulerProfileList
	if err := cl.List(ctx, &list); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, p.Name)
	}
	return out, nil
}

// schedulerNames are the schedulerNames the profiles serve or claim.
func (c completer) schedulerNames(ctx context.Context, cl client.Client) ([]string, error) {
	var list v1alpha1.SchedulerProfileList
	if err := cl.List(ctx, &list); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, p.EffectiveSchedulerName())
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// pods are the pods of the namespace the flags name (or the kubeconfig's).
func (c completer) pods(ctx context.Context, cl client.Client) ([]string, error) {
	ns, _, err := c.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, err
	}
	return metadataNames(ctx, cl, corev1.SchemeGroupVersion.WithKind("PodList"), client.InNamespace(ns))
}

func (c completer) namespaces(ctx context.Context, cl client.Client) ([]string, error) {
	return metadataNames(ctx, cl, corev1.SchemeGroupVersion.WithKind("NamespaceList"))
}

func (c completer) nodes(ctx context.Context, cl client.Client) ([]string, error) {
	return metadataNames(ctx, cl, corev1.SchemeGroupVersion.WithKind("NodeList"))
}

// metadataNames lists objects' metadata only, so no type needs to be in the
// plugin's scheme and no spec crosses the wire.
func metadataNames(ctx context.Context, cl client.Client, gvk schema.GroupVersionKind, opts ...client.ListOption) ([]string, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(gvk)
	if err := cl.List(ctx, list, opts...); err != nil {
		return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
	}
	var out []string
	for _, o := range list.Items {
		out = append(out, o.Name)
	}
	return out, nil
}
