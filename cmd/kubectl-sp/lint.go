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
	"fmt"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/lint"
)

// lintScheme reads what --cluster resolves: the project's objects and
// extender Secrets.
var lintScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(v1alpha1.AddToScheme(s))
	utilruntime.Must(corev1.AddToScheme(s))
	return s
}()

// defaultSecretsNamespace is the namespace the chart's operator reads
// extender Secrets from when installed as the README installs it.
const defaultSecretsNamespace = "profile-scheduler-system"

type lintOptions struct {
	flags                    *genericclioptions.ConfigFlags
	streams                  genericiooptions.IOStreams
	files                    []string
	cluster                  bool
	allowDefaultScheduler    bool
	extenderSecretsNamespace string
}

func newLintCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &lintOptions{flags: flags, streams: streams}
	cmd := &cobra.Command{
		Use:   "lint -f FILE|DIR|- [-f ...] [--cluster]",
		Short: "Check SchedulerProfile, ExtenderConfig and ProfileRoute manifests as the operator would, without a cluster",
		Long: `Lint runs the operator's admission path on manifests, offline: each
object as kube-apiserver would admit it (the CRD's schema, unknown fields,
defaults, CEL rules), then as the operator would decide it (the
schedulerName claim, the ExtenderConfigs a profile names, the conversion to
upstream's configuration and its validation, plugin names and args, a
dry-run build of the framework with the scheduler's plugins; a route's
selectors and overlaps).

Each finding names the file, the document (from 1), the object and the field:

  FILE:DOCUMENT: KIND NAME: refused|warning|note: REASON: FIELD: MESSAGE

Documents of other kinds are skipped with a note. A reference that the
files do not resolve (an ExtenderConfig, its TLS Secret, a route's profile)
is said, not refused; --cluster resolves it from the cluster of the
kubeconfig, and reads the profiles and routes already there. Lint exits 1
when any object would be refused.

Plugins are upstream's in-tree ones; a binary built with its own plugins
(app.Main with app.WithPlugin) has a lint command of its own that knows them.`,
		Example: `  kubectl sp lint -f profiles/
  kubectl sp lint -f profile.yaml -f extenders.yaml
  kustomize build overlays/prod | kubectl sp lint -f - --cluster`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(o.files) == 0 {
				return fmt.Errorf("lint needs -f FILE, DIR or - (stdin)")
			}
			opts := lint.Options{AllowDefaultScheduler: o.allowDefaultScheduler, ExtenderSecretsNamespace: o.extenderSecretsNamespace}
			if o.cluster {
				cfg, err := o.flags.ToRESTConfig()
				if err != nil {
					return err
				}
				c, err := client.New(cfg, client.Options{Scheme: lintScheme})
				if err != nil {
					return err
				}
				opts.Cluster = c
			}
			res, err := lint.Paths(cmd.Context(), opts, o.streams.In, o.files...)
			if err != nil {
				return err
			}
			if err := res.Print(o.streams.Out); err != nil {
				return err
			}
			if res.Refused() > 0 {
				return exitError(1) // the findings said why
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVarP(&o.files, "filename", "f", nil, "A manifest file, a directory of them (.yaml, .yml, .json, recursively) or - for stdin. Repeatable.")
	cmd.Flags().BoolVar(&o.cluster, "cluster", false, "Resolve what the files lack (ExtenderConfigs, Secrets, profiles and routes) from the cluster.")
	cmd.Flags().BoolVar(&o.allowDefaultScheduler, "allow-default-scheduler", false, "As the operator's flag: a profile may serve default-scheduler.")
	cmd.Flags().StringVar(&o.extenderSecretsNamespace, "extender-secrets-namespace", defaultSecretsNamespace, "As the operator's flag: the namespace of extender TLS Secrets (the chart's: the release namespace).")
	return cmd
}
