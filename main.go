// Command profile-scheduler runs the operator: the SchedulerProfile and
// ExtenderConfig controllers and the in-process scheduler they drive.
//
// With --local it first starts a throw-away control plane of its own (etcd
// and kube-apiserver from bin/k8s), creates a few nodes, applies the sample
// profiles and runs against it until interrupted.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	goflag "flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	_ "k8s.io/kubernetes/pkg/features" // registers the upstream feature gates
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	schedulingv1alpha1 "github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/local"
	"github.com/profile-scheduler/profile-scheduler/internal/testenv"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(schedulingv1alpha1.AddToScheme(scheme))
}

type options struct {
	kubeconfig            string
	local                 bool
	localDir              string
	leaderElect           bool
	leaderElectionID      string
	leaderElectionNS      string
	leaseDuration         time.Duration
	renewDeadline         time.Duration
	retryPeriod           time.Duration
	metricsAddr           string
	metricsSecure         bool
	probeAddr             string
	parallelism           int
	qps                   float32
	burst                 int
	podInitialBackoff     time.Duration
	podMaxBackoff         time.Duration
	allowDefaultScheduler bool
	webhookPort           int
	webhookCertDir        string
	webhookSelfSigned     bool
	webhookServiceName    string
	webhookServiceNS      string
	webhookConfigName     string
	enableWebhook         bool
	showVersion           bool
}

func (o *options) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig. Unset: in-cluster config, then $KUBECONFIG.")
	fs.BoolVar(&o.local, "local", false, "Start a local control plane from bin/k8s (etcd, kube-apiserver), create nodes, apply config/samples and run against it.")
	fs.StringVar(&o.localDir, "local-dir", ".local", "Directory for local mode's kubeconfig.")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "Elect a leader; only the leader reconciles and schedules.")
	fs.StringVar(&o.leaderElectionID, "leader-elect-id", "profile-scheduler.profilescheduler.io", "Name of the leader election Lease.")
	fs.StringVar(&o.leaderElectionNS, "leader-elect-namespace", "", "Namespace of the leader election Lease (default: the pod's namespace).")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a follower waits before taking an unrenewed lease.")
	fs.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader retries renewing before giving up leadership.")
	fs.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 2*time.Second, "How often leader election clients retry.")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8443", "Address of the metrics endpoint; \"0\" disables it.")
	fs.BoolVar(&o.metricsSecure, "metrics-secure", true, "Serve metrics over HTTPS with authentication and authorization.")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "Address of /healthz and /readyz.")
	fs.IntVar(&o.parallelism, "parallelism", 16, "Goroutines used to filter and score nodes.")
	fs.Float32Var(&o.qps, "kube-api-qps", 50, "Client QPS towards the API server.")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "Client burst towards the API server.")
	fs.DurationVar(&o.podInitialBackoff, "pod-initial-backoff", time.Second, "Back-off of a pod after its first failed attempt.")
	fs.DurationVar(&o.podMaxBackoff, "pod-max-backoff", 10*time.Second, "Largest back-off of a pod.")
	fs.BoolVar(&o.allowDefaultScheduler, "allow-default-scheduler", false, "Let a profile serve schedulerName default-scheduler (only where no kube-scheduler runs).")
	fs.BoolVar(&o.enableWebhook, "enable-webhook", false, "Serve the validating admission webhook for SchedulerProfiles.")
	fs.IntVar(&o.webhookPort, "webhook-port", 9443, "Port of the admission webhook server.")
	fs.StringVar(&o.webhookCertDir, "webhook-cert-dir", filepath.Join(os.TempDir(), "profile-scheduler-webhook"), "Directory of the webhook serving certificate (tls.crt, tls.key).")
	fs.BoolVar(&o.webhookSelfSigned, "webhook-self-signed", true, "Generate and rotate the webhook serving certificate and patch the webhook's caBundle (when no cert-manager provides one).")
	fs.StringVar(&o.webhookServiceName, "webhook-service-name", "profile-scheduler-webhook", "Service in front of the webhook server (for the certificate's DNS names).")
	fs.StringVar(&o.webhookServiceNS, "webhook-service-namespace", "", "Namespace of that Service (default: the pod's namespace).")
	fs.StringVar(&o.webhookConfigName, "webhook-configuration-name", "profile-scheduler-validating-webhook", "ValidatingWebhookConfiguration whose caBundle a self-signed CA is written to.")
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

	mgr, err := newManager(cfg, o)
	if err != nil {
		return err
	}
	if err := setup(ctx, mgr, cfg, o); err != nil {
		return err
	}
	logger.Info("Starting manager")
	return mgr.Start(ctx)
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

func newManager(cfg *rest.Config, o *options) (ctrl.Manager, error) {
	metricsOpts := metricsserver.Options{BindAddress: o.metricsAddr, SecureServing: o.metricsSecure}
	if o.metricsSecure {
		httpClient, err := rest.HTTPClientFor(cfg)
		if err != nil {
			return nil, err
		}
		filter, err := filters.WithAuthenticationAndAuthorization(cfg, httpClient)
		if err != nil {
			return nil, err
		}
		metricsOpts.FilterProvider = func(*rest.Config, *http.Client) (metricsserver.Filter, error) { return filter, nil }
		metricsOpts.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.MinVersion = tls.VersionTLS12 }}
	}
	return ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		Metrics:                       metricsOpts,
		HealthProbeBindAddress:        o.probeAddr,
		LeaderElection:                o.leaderElect,
		LeaderElectionID:              o.leaderElectionID,
		LeaderElectionNamespace:       o.leaderElectionNS,
		LeaseDuration:                 &o.leaseDuration,
		RenewDeadline:                 &o.renewDeadline,
		RetryPeriod:                   &o.retryPeriod,
		LeaderElectionReleaseOnCancel: true,
		WebhookServer: webhook.NewServer(webhook.Options{
			Port:    o.webhookPort,
			CertDir: o.webhookCertDir,
			TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.MinVersion = tls.VersionTLS12 }},
		}),
	})
}

// setup adds the scheduler and the controllers to the manager, and the probes.
func setup(ctx context.Context, mgr ctrl.Manager, cfg *rest.Config, o *options) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	sched, err := scheduler.New(cs, informers.NewSharedInformerFactory(cs, 0),
		scheduler.WithKubeConfig(cfg),
		scheduler.WithParallelism(o.parallelism),
		scheduler.WithPodBackoff(o.podInitialBackoff, o.podMaxBackoff),
		scheduler.WithOutOfTreeRegistry(outOfTreeRegistry),
	)
	if err != nil {
		return fmt.Errorf("creating scheduler: %w", err)
	}
	if err := mgr.Add(sched); err != nil {
		return err
	}

	copts := controllers.Options{AllowDefaultScheduler: o.allowDefaultScheduler}
	if o.enableWebhook {
		ns := o.webhookServiceNS
		if ns == "" {
			ns = podNamespace()
		}
		copts.Webhook = &controllers.WebhookOptions{
			SelfSigned:        o.webhookSelfSigned,
			CertDir:           o.webhookCertDir,
			ConfigurationName: o.webhookConfigName,
			DNSNames: []string{
				o.webhookServiceName,
				o.webhookServiceName + "." + ns,
				o.webhookServiceName + "." + ns + ".svc",
				o.webhookServiceName + "." + ns + ".svc.cluster.local",
			},
		}
	}
	if err := controllers.Setup(mgr, sched, copts); err != nil {
		return fmt.Errorf("setting up controllers: %w", err)
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	// A standby replica is ready; the leader once its informers have synced.
	elected := mgr.Elected()
	return mgr.AddReadyzCheck("scheduler", func(*http.Request) error {
		select {
		case <-elected:
		default:
			return nil
		}
		if !sched.HasSynced() {
			return errors.New("scheduler informers not synced")
		}
		return nil
	})
}

// outOfTreeRegistry holds plugins compiled into this binary beside the
// upstream in-tree ones. Add yours here (name -> factory).
var outOfTreeRegistry = frameworkruntime.Registry{}

// podNamespace is the namespace this pod runs in, or "default" outside a cluster.
func podNamespace() string {
	if ns, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		return strings.TrimSpace(string(ns))
	}
	return "default"
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
	c, err := client.New(cluster.Config, client.Options{Scheme: scheme})
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
