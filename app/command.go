package app

import (
	"context"
	goflag "flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	_ "k8s.io/kubernetes/pkg/features" // registers the upstream feature gates
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/profile-scheduler/profile-scheduler/internal/operator"
)

// options are the command's flags.
type options struct {
	operator.Options
	kubeconfig    string
	local         bool
	localDir      string
	qps           float32
	burst         int
	enableWebhook bool
	webhook       operator.WebhookOptions
	showVersion   bool
}

func (o *options) addFlags(fs *pflag.FlagSet) {
	d := operator.Defaults()
	o.Options = d
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig. Unset: $KUBECONFIG, then in-cluster config.")
	fs.BoolVar(&o.local, "local", false, "Start a local control plane from bin/k8s (etcd, kube-apiserver), create nodes, apply config/samples and run against it.")
	fs.StringVar(&o.localDir, "local-dir", ".local", "Directory, under the repository, for local mode's kubeconfig.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", false, "Elect a leader; only the leader reconciles and schedules.")
	fs.StringVar(&o.LeaderElectionID, "leader-elect-id", d.LeaderElectionID, "Name of the leader election Lease.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-elect-namespace", "", "Namespace of the leader election Lease (default: the pod's namespace).")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", d.LeaseDuration, "How long a follower waits before taking an unrenewed lease.")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", d.RenewDeadline, "How long the leader retries renewing before giving up leadership.")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", d.RetryPeriod, "How often leader election clients retry.")
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", d.MetricsAddr, "Address of the metrics endpoint; \"0\" disables it.")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", d.MetricsSecure, "Serve metrics over HTTPS with authentication and authorization.")
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", d.ProbeAddr, "Address of /healthz and /readyz.")
	fs.StringVar(&o.PprofAddr, "pprof-bind-address", "", "Address of net/http/pprof (for profiling); empty disables it.")
	fs.IntVar(&o.Parallelism, "parallelism", d.Parallelism, "Goroutines used to filter and score nodes.")
	fs.Float32Var(&o.qps, "kube-api-qps", 50, "Client QPS towards the API server.")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "Client burst towards the API server.")
	fs.DurationVar(&o.PodInitialBackoff, "pod-initial-backoff", d.PodInitialBackoff, "Back-off of a pod after its first failed attempt.")
	fs.DurationVar(&o.PodMaxBackoff, "pod-max-backoff", d.PodMaxBackoff, "Largest back-off of a pod.")
	fs.BoolVar(&o.AllowDefaultScheduler, "allow-default-scheduler", false, "Let a profile serve schedulerName default-scheduler (only where no kube-scheduler runs).")
	fs.StringVar(&o.ExtenderSecretsNamespace, "extender-secrets-namespace", "", "The only namespace whose Secrets are read, as TLS material of ExtenderConfigs (default: the pod's namespace, $POD_NAMESPACE; \"default\" outside a cluster).")
	fs.BoolVar(&o.enableWebhook, "enable-webhook", false, "Serve the validating admission webhook for SchedulerProfiles.")
	fs.IntVar(&o.webhook.Port, "webhook-port", 9443, "Port of the admission webhook server.")
	fs.StringVar(&o.webhook.CertDir, "webhook-cert-dir", filepath.Join(os.TempDir(), "profile-scheduler-webhook"), "Directory of the webhook serving certificate (tls.crt, tls.key).")
	fs.BoolVar(&o.webhook.SelfSigned, "webhook-self-signed", true, "Generate and rotate the webhook serving certificate, and merge its CA into the webhook's caBundle beside the other replicas' (when no cert-manager provides one).")
	fs.StringVar(&o.webhook.ServiceName, "webhook-service-name", "profile-scheduler-webhook", "Service in front of the webhook server (for the certificate's DNS names).")
	fs.StringVar(&o.webhook.ServiceNamespace, "webhook-service-namespace", "", "Namespace of that Service (default: the pod's namespace).")
	fs.StringVar(&o.webhook.ConfigurationName, "webhook-configuration-name", "profile-scheduler-validating-webhook", "ValidatingWebhookConfiguration whose caBundle a self-signed CA is written to.")
	fs.BoolVar(&o.showVersion, "version", false, "Print the version and the upstream scheduler version it embeds, then exit.")
	utilfeature.DefaultMutableFeatureGate.AddFlag(fs)
}

// NewCommand returns the operator's command: its flags, and a run that
// assembles the whole operator (scheduler, controllers, webhook, metrics,
// probes, local mode) with the upstream in-tree plugins and the
// out-of-tree ones opts add. The command fails before it starts anything
// when opts do not fit together (two plugins under one name, a name of an
// in-tree plugin, args given for no plugin).
//
// The run stops when the command's context (cmd.ExecuteContext) is done, or
// at the first SIGINT or SIGTERM; a second signal exits at once.
func NewCommand(opts ...Option) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   filepath.Base(os.Args[0]),
		Short: "Run SchedulerProfiles and ExtenderConfigs as live profiles of an in-process scheduler",
		Long: `Run the profile-scheduler operator: the SchedulerProfile and ExtenderConfig
controllers and the in-process scheduler they drive, with the upstream
kube-scheduler plugins and any out-of-tree plugins this binary was built with.

With --local it first starts a throw-away control plane of its own (etcd and
kube-apiserver from bin/k8s), creates a few nodes, applies the sample profiles
and runs against it until interrupted.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.showVersion {
				fmt.Fprintln(cmd.OutOrStdout(), versionString())
				return nil
			}
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
	fs := cmd.Flags()
	o.addFlags(fs)
	gofs := goflag.NewFlagSet("klog", goflag.ContinueOnError)
	klog.InitFlags(gofs)
	fs.AddGoFlagSet(gofs)
	return cmd
}

// Main runs NewCommand(opts...) on the process's arguments and exits: with
// status 1, after logging the error, when it fails. A custom binary's main
// is one call:
//
//	func main() { app.Main(app.WithPlugin(myplugin.Name, myplugin.New)) }
func Main(opts ...Option) {
	err := NewCommand(opts...).Execute()
	if err != nil {
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

	var cfg *rest.Config
	var err error
	if o.local {
		cluster, err := startLocal(ctx, o)
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

func loadConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	return ctrl.GetConfig()
}
