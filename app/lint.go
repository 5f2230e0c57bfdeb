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

package app

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/profile-scheduler/profile-scheduler/lint"
)

// errRefused ends the lint command with status 1 once its findings said
// why; Main logs nothing more.
var errRefused = errors.New("lint: objects refused")

// newLintCommand is `<binary> lint -f ...`: kubectl sp lint with this
// binary's out-of-tree plugins (opts), so that a team's own build checks
// profiles that enable its plugins, and their args, as it would run them.
func newLintCommand(opts []Option) *cobra.Command {
	var (
		files                    []string
		allowDefaultScheduler    bool
		extenderSecretsNamespace string
	)
	cmd := &cobra.Command{
		Use:   "lint -f FILE|DIR|- [-f ...]",
		Short: "Check SchedulerProfile, ExtenderConfig and ProfileRoute manifests as this operator would, without a cluster",
		Long: `Lint runs the operator's admission path on manifests, offline, with the
plugins this binary was built with: the CRD's schema and CEL rules, then the
operator's checks (schedulerName claims, ExtenderConfigs, conversion and
upstream validation, plugin names and args, a dry-run build of the
framework). It prints one line per finding (file, document, object, field)
and exits 1 when an object would be refused. kubectl sp lint is the same
with upstream's in-tree plugins only.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(files) == 0 {
				return errors.New("lint needs -f FILE, DIR or - (stdin)")
			}
			p, err := apply(opts)
			if err != nil {
				return err
			}
			if err := p.register(); err != nil {
				return fmt.Errorf("out-of-tree plugins: %w", err)
			}
			res, err := lint.Paths(cmd.Context(), lint.Options{
				OutOfTreeRegistry:        p.registry,
				PluginArgsValidators:     p.argsValidators(),
				AllowDefaultScheduler:    allowDefaultScheduler,
				ExtenderSecretsNamespace: extenderSecretsNamespace,
			}, cmd.InOrStdin(), files...)
			if err != nil {
				return err
			}
			if err := res.Print(cmd.OutOrStdout()); err != nil {
				return err
			}
			if res.Refused() > 0 {
				return errRefused
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "A manifest file, a directory of them (.yaml, .yml, .json, recursively) or - for stdin. Repeatable.")
	cmd.Flags().BoolVar(&allowDefaultScheduler, "allow-default-scheduler", false, "As the operator's flag: a profile may serve default-scheduler.")
	cmd.Flags().StringVar(&extenderSecretsNamespace, "extender-secrets-namespace", "profile-scheduler-system", "As the operator's flag: the namespace of extender TLS Secrets.")
	return cmd
}
