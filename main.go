// Command profile-scheduler runs the operator: the SchedulerProfile and
// ExtenderConfig controllers and the in-process scheduler they drive.
//
// With --local it first starts a throw-away control plane of its own (etcd
// and kube-apiserver from bin/k8s), creates a few nodes, applies the sample
// profiles and runs against it until interrupted.
package main

import (
	"context"
	goflag "flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/spf13/pflag"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	_ "k8s.io/kubernetes/pkg/features" // registers the upstream feature gates
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/internal/local"
	"github.com/profile-scheduler/profile-scheduler/internal/operator"
	"github.com/profile-scheduler/profile-scheduler/internal/testenv"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

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

// versionString names the operator version and the upstream scheduler it embeds.
func versionString() string {
	v, upstream := version, "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/kubernetes" {
				upstream = dep.Version
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	return fmt.Sprintf("profile-scheduler %s (kube-scheduler %s)", v, upstream)
}

func main() {
	o := &options{}
	fs := pflag.CommandLine
	o.addFlags(fs)
	gofs := goflag.NewFlagSet("klog", goflag.ExitOnError)
	klog.InitFlags(gofs)
	fs.AddGoFlagSet(gofs)
	pflag.Parse()

	if o.showVersion {
		fmt.Println(versionString())
		return
	}
	ctrl.SetLogger(klog.NewKlogr())
	if err := run(o); err != nil {
		klog.ErrorS(err, "profile-scheduler stopped")
		klog.Flush()
		os.Exit(1)
	}
	klog.Flush()
}

func run(o *options) error {
	ctx, cancel := signalContext()
	defer cancel()
	logger := klog.FromContext(ctx)
	logger.Info("Starting", "version", versionString())

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

// signalContext is cancelled on the first SIGINT or SIGTERM; a second one
// exits at once.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
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

// startLocal starts the local control plane and seeds it with nodes and the
// sample profiles.
func startLocal(ctx context.Context, o *options) (*local.Cluster, error) {
	logger := klog.FromContext(ctx)
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, fmt.Errorf("local mode runs from the repository: %w", err)
	}
	kubeconfig := filepath.Join(root, o.localDir, "kubeconfig")
	logger.Info("Starting local control plane (etcd, kube-apiserver from bin/k8s)")
	cluster, err := local.Start(kubeconfig)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cluster.Config, client.Options{Scheme: operator.Scheme})
	if err == nil {
		err = local.CreateNodes(ctx, c, local.DefaultNodes())
	}
	var applied []string
	if err == nil {
		applied, err = local.ApplyDir(ctx, c, filepath.Join(root, "config", "samples"))
	}
	if err != nil {
		return nil, fmt.Errorf("seeding local control plane: %w (stop error: %v)", err, cluster.Stop())
	}
	kubectl, _ := filepath.Rel(root, cluster.Kubectl)
	kc, _ := filepath.Rel(root, cluster.Kubeconfig)
	fmt.Fprintf(os.Stderr, `
Local control plane is up: %d nodes, samples applied: %v
In another shell, from the repository root:

  export KUBECONFIG=$PWD/%s
  %s get schedulerprofiles
  %s run nginx --image=nginx --overrides='{"spec":{"schedulerName":"bin-packing"}}'
  %s get pods -o wide

Ctrl-C stops the operator and the control plane.

`, len(local.DefaultNodes()), applied, kc, kubectl, kubectl, kubectl)
	return cluster, nil
}
