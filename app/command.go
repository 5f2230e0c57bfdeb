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
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"syscall"

	"github.com/spf13/cobra"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/term"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/profile-scheduler/profile-scheduler/app/operator"
)

// NewCommand returns the operator's command: its flags, and a run that
// assembles the whole operator (scheduler, controllers, webhook, metrics,
// probes, local mode) with the upstream in-tree plugins and the
// out-of-tree ones opts add. The command fails before it starts anything
// when opts do not fit together (two plugins under one name, a name of an
// in-tree plugin, args given for no plugin).
//
// The flags are kube-scheduler's kind: grouped by concern (-h prints them
// section by section), logging through component-base (--logging-format,
// -v, --vmodule), feature gates through --feature-gates.
//
// The run stops when the command's context (cmd.ExecuteContext) is done, or
// at the first SIGINT or SIGTERM; a second signal exits at once.
func NewCommand(opts ...Option) *cobra.Command {
	// The command may run more than once in a process (tests, a program
	// embedding it): the logging configuration is applied by the first run,
	// and a later run may apply the same one again, not another.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
	o := &options{}
	cmd := &cobra.Command{
		Use:           filepath.Base(os.Args[0]),
		Short:         "Run SchedulerProfiles and ExtenderConfigs as live profiles of an in-process scheduler",
		Long:          longHelp(),
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.showVersion {
				fmt.Fprintln(cmd.OutOrStdout(), versionString())
				return nil
			}
			// Logging first, so that everything after logs as asked.
			if err := logsapi.ValidateAndApply(o.logs, utilfeature.DefaultFeatureGate); err != nil {
				return err
			}
			cliflag.PrintFlags(cmd.Flags())
			p, err := apply(opts)
			if err != nil {
				return err
			}
			if err := p.register(); err != nil {
				return fmt.Errorf("out-of-tree plugins: %w", err)
			}
			o.OutOfTreeRegistry = p.registry
			o.PluginArgsValidators = p.argsValidators()
			ctrl.SetLogger(klog.NewKlogr())
			return run(cmd.Context(), o)
		},
	}
	cmd.AddCommand(newLintCommand(opts))
	nfs := o.flags(cmd.Name())
	for _, fs := range nfs.FlagSets {
		cmd.Flags().AddFlagSet(fs)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, nfs, cols)
	return cmd
}

// longHelp is the command's description; local mode is described only in
// a binary that has it.
func longHelp() string {
	help := `Run the profile-scheduler operator: the SchedulerProfile and ExtenderConfig
controllers and the in-process scheduler they drive, with the upstream
kube-scheduler plugins and any out-of-tree plugins this binary was built with.`
	if localModeRegistered() {
		help += `

With --local it first starts a throw-away control plane of its own (etcd and
kube-apiserver from --local-assets), installs the CRDs, creates a few nodes,
applies the sample profiles and runs against it until interrupted.`
	}
	return help
}

// Main runs NewCommand(opts...) on the process's arguments and exits: with
// status 1, after logging the error, when it fails. A custom binary's main
// is one call:
//
//	func main() { app.Main(app.WithPlugin(myplugin.Name, myplugin.New)) }
func Main(opts ...Option) {
	err := NewCommand(opts...).Execute()
	if err != nil && !errors.Is(err, errRefused) {
		klog.ErrorS(err, "Operator stopped")
	}
	klog.Flush()
	if err != nil {
		os.Exit(1)
	}
}

func run(ctx context.Context, o *options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := signalContext(ctx)
	defer cancel()
	logger := klog.FromContext(ctx)
	logger.Info("Starting", "version", versionString(), "outOfTreePlugins", sortedKeys(o.OutOfTreeRegistry))
	if o.contentionProfiling {
		if err := startContentionProfiling(o.PprofAddr); err != nil {
			return err
		}
	}

	var cfg *rest.Config
	var err error
	if o.local {
		lo := LocalOptions{Dir: o.localDir, Assets: o.localAssets}
		if o.enableWebhook {
			// kube-apiserver calls the webhook server on localhost: the
			// self-signed certificate is made for that name.
			o.webhook.ServiceName = "localhost"
			lo.Webhook = &LocalWebhook{ConfigurationName: o.webhook.ConfigurationName, Port: o.webhook.Port, BindArbiter: o.BindArbiter}
		}
		cluster, err := startLocal(ctx, lo)
		if err != nil {
			return err
		}
		defer func() {
			logger.Info("Stopping local control plane")
			if err := cluster.Stop(); err != nil {
				logger.Error(err, "Stopping local control plane")
			}
		}()
		cfg = rest.CopyConfig(cluster.Config)
	} else if cfg, err = loadConfig(o.kubeconfig); err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = o.qps, o.burst

	if o.enableWebhook {
		o.Webhook = &o.webhook
	}
	op, err := operator.New(cfg, o.Options)
	if err != nil {
		return err
	}
	logger.Info("Starting manager")
	return op.Start(ctx)
}

// signalContext is cancelled with parent or on the first SIGINT or
// SIGTERM; a second signal exits at once. It is ctrl.SetupSignalHandler
// with a parent and a stop: that one may be called once per process and
// ignores the command's context, and NewCommand's command may run more
// than once in a process (tests, a program embedding it).
func signalContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
		case <-ctx.Done():
			signal.Stop(ch)
			return
		}
		cancel()
		<-ch
		os.Exit(1)
	}()
	return ctx, cancel
}

// startContentionProfiling records every contended lock (the mutex
// profile, at the stack that unlocks) and every blocking wait (the block
// profile, at the stack that waits), as kube-scheduler's
// enableContentionProfiling records blocking: rate 1, every event. The
// profiles are read from /debug/pprof, so pprofAddr must serve it.
func startContentionProfiling(pprofAddr string) error {
	if pprofAddr == "" || pprofAddr == "0" {
		return errors.New("--contention-profiling needs --pprof-bind-address: the profiles are read from its /debug/pprof/mutex and /debug/pprof/block")
	}
	goruntime.SetMutexProfileFraction(1)
	goruntime.SetBlockProfileRate(1)
	return nil
}

func loadConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	return ctrl.GetConfig()
}
