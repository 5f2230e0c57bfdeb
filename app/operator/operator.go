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

package operator

import (
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	schedulingv1alpha1 "github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/webhookcert"
	"github.com/profile-scheduler/profile-scheduler/pluginargs"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// Scheme knows the built-in kinds and the project's own.
var Scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(Scheme))
	utilruntime.Must(schedulingv1alpha1.AddToScheme(Scheme))
}

// Options configures the operator. The zero value is not useful; start from
// Defaults().
type Options struct {
	// LeaderElect makes replicas elect a leader; only the leader
	// reconciles and schedules.
	LeaderElect             bool
	LeaderElectionID        string
	LeaderElectionNamespace string
	LeaseDuration           time.Duration
	RenewDeadline           time.Duration
	RetryPeriod             time.Duration
	// ReleaseLeaseOnStop hands leadership over at once on a clean stop.
	ReleaseLeaseOnStop bool

	// MetricsAddr of the metrics endpoint; "0" disables it.
	MetricsAddr string
	// MetricsSecure serves metrics over HTTPS with authn/authz.
	MetricsSecure bool
	// EnableHTTP2 lets the webhook and metrics servers speak HTTP/2. Off,
	// they speak HTTP/1.1 only: HTTP/2's stream reset floods
	// (CVE-2023-44487, CVE-2023-39325) cannot reach them, and each bind
	// the arbiter judges costs kube-apiserver and the operator less.
	// kube-apiserver calls a webhook behind a Service over HTTP/1.1
	// anyway.
	EnableHTTP2 bool
	// ProbeAddr of /healthz and /readyz; "0" disables them.
	ProbeAddr string
	// PprofAddr serves net/http/pprof; "" or "0" disables it.
	PprofAddr string

	Parallelism       int
	PodInitialBackoff time.Duration
	PodMaxBackoff     time.Duration
	// AllowDefaultScheduler lets a profile serve default-scheduler.
	AllowDefaultScheduler bool
	// BindCheck checks each pod against its node just before binding it
	// (scheduler.WithBindCheck).
	BindCheck bool
	// ProfileLoops gives every profile a scheduling loop of its own
	// (scheduler.WithProfileLoops).
	ProfileLoops bool
	// BindArbiter serves the bind arbiter at controllers.BindingWebhookPath
	// of the webhook server (which it needs): every scheduler's binds,
	// routed there by a webhook on pods/binding, are admitted only while
	// their node has room (scheduler.Arbiter).
	BindArbiter bool
	// BindArbiterExcludedNamespaces are namespaces whose binds the arbiter
	// admits unjudged, beside the operator's own, however their reviews
	// reach it (the webhook configuration leaves them out too).
	BindArbiterExcludedNamespaces []string
	// BindArbiterConcurrency bounds the reviews the arbiter's webhook
	// answers at once; 0 means controllers.DefaultBindWebhookConcurrency.
	BindArbiterConcurrency int
	// OutOfTreeRegistry adds plugins beside the upstream in-tree ones.
	OutOfTreeRegistry frameworkruntime.Registry
	// PluginArgsValidators check the args of out-of-tree plugins, by name.
	PluginArgsValidators map[string]pluginargs.Validator
	// ExtenderSecretsNamespace is the only namespace whose Secrets the
	// operator reads (TLS material of ExtenderConfigs) and caches; empty
	// means the pod's namespace.
	ExtenderSecretsNamespace string
	// RoutesPolicyName names the MutatingAdmissionPolicy and binding that
	// carry the ProfileRoutes, which the installer creates and the
	// operator only updates; empty means routing.PolicyName.
	RoutesPolicyName string

	// ScenarioMaxNodes and ScenarioMaxPods bound a SchedulingReview's
	// scenario once expanded; a larger one is refused, naming the field.
	ScenarioMaxNodes, ScenarioMaxPods int
	// ReviewTimeout bounds the answer of one SchedulingReview; past it the
	// review is Failed (ReviewTimeout) with what it had computed.
	ReviewTimeout time.Duration
	// ReviewConcurrency is how many reviews are answered at once.
	ReviewConcurrency int
	// PrometheusAddress is the Prometheus HTTP API that answers the
	// queries of spec.rollout.analysis.metrics; empty: a rollout with such
	// metrics is refused (PrometheusNotConfigured).
	PrometheusAddress string
	// ScenarioMaxNodePods bounds pods times nodes of a scenario, its
	// memory estimate; a larger one is refused, naming the field.
	ScenarioMaxNodePods int

	// Webhook, when set, serves the validating admission webhooks of
	// SchedulerProfile and ExtenderConfig.
	Webhook *WebhookOptions

	// SkipControllerNameValidation lets one process assemble the operator
	// more than once (controller names are otherwise unique per process),
	// as a test that restarts the operator does.
	SkipControllerNameValidation bool
}

// WebhookOptions configures the admission webhook server.
type WebhookOptions struct {
	// Host is the address the webhook server binds; "" binds all.
	Host string
	Port int
	// CertDir holds tls.crt and tls.key.
	CertDir string
	// SelfSigned generates and rotates the serving certificate and patches
	// the caBundle of ConfigurationName.
	SelfSigned        bool
	ConfigurationName string
	// ServiceName and ServiceNamespace name the Service in front of the
	// webhook, for the certificate's DNS names.
	ServiceName      string
	ServiceNamespace string
	// ArbiterServiceName names the Service, in the same namespace, that
	// sends binds to the bind arbiter of the leader only (it selects
	// controllers.ArbiterLeaderLabel), for the certificate's DNS names too.
	ArbiterServiceName string
	// IPs the self-signed certificate is valid for too, beside the
	// Service's DNS names.
	IPs []net.IP
}

// Defaults returns the options the command's flags (package app) default to.
func Defaults() Options {
	return Options{
		LeaderElectionID:              "profile-scheduler.profilescheduler.io",
		LeaseDuration:                 15 * time.Second,
		RenewDeadline:                 10 * time.Second,
		RetryPeriod:                   2 * time.Second,
		ReleaseLeaseOnStop:            true,
		MetricsAddr:                   ":8443",
		MetricsSecure:                 true,
		ProbeAddr:                     ":8081",
		Parallelism:                   16,
		PodInitialBackoff:             time.Second,
		PodMaxBackoff:                 10 * time.Second,
		BindCheck:                     true,
		ProfileLoops:                  true,
		OutOfTreeRegistry:             frameworkruntime.Registry{},
		BindArbiterExcludedNamespaces: []string{"kube-system"},
		BindArbiterConcurrency:        controllers.DefaultBindWebhookConcurrency,
		ScenarioMaxNodes:              review.DefaultScenarioLimits.Nodes,
		ScenarioMaxPods:               review.DefaultScenarioLimits.Pods,
		ScenarioMaxNodePods:           review.DefaultScenarioLimits.NodePods,
		ReviewTimeout:                 controllers.DefaultReviewTimeout,
		ReviewConcurrency:             controllers.DefaultReviewConcurrency,
	}
}

// Operator is an assembled operator, ready to Start.
type Operator struct {
	ctrl.Manager
	// Scheduler is the in-process scheduler the controllers drive.
	Scheduler *scheduler.Scheduler
}

// New assembles the operator on cfg.
func New(cfg *rest.Config, o Options) (*Operator, error) {
	if o.ExtenderSecretsNamespace == "" {
		o.ExtenderSecretsNamespace = podNamespace()
	}
	mgr, err := newManager(cfg, o)
	if err != nil {
		return nil, err
	}
	schedCfg, eventCfg := schedulerClientConfigs(cfg)
	cs, err := kubernetes.NewForConfig(schedCfg)
	if err != nil {
		return nil, err
	}
	ecs, err := kubernetes.NewForConfig(eventCfg)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	sched, err := scheduler.New(cs, factory,
		scheduler.WithKubeConfig(cfg),
		scheduler.WithEventClient(ecs),
		scheduler.WithParallelism(o.Parallelism),
		scheduler.WithPodBackoff(o.PodInitialBackoff, o.PodMaxBackoff),
		scheduler.WithBindCheck(o.BindCheck),
		scheduler.WithBindArbiter(o.BindArbiter),
		scheduler.WithProfileLoops(o.ProfileLoops),
		scheduler.WithOutOfTreeRegistry(o.OutOfTreeRegistry),
	)
	if err != nil {
		return nil, fmt.Errorf("creating scheduler: %w", err)
	}
	if err := mgr.Add(sched); err != nil {
		return nil, err
	}

	copts := controllers.Options{
		AllowDefaultScheduler: o.AllowDefaultScheduler,
		LeaderElection:        o.LeaderElect,
		Plugins:               controllers.Plugins{OutOfTree: slices.Sorted(maps.Keys(o.OutOfTreeRegistry)), Validators: o.PluginArgsValidators},

		ExtenderSecretsNamespace: o.ExtenderSecretsNamespace,
		OperatorNamespace:        podNamespace(),
		RoutesPolicyName:         o.RoutesPolicyName,
		ReviewTimeout:            o.ReviewTimeout,
		ReviewConcurrency:        o.ReviewConcurrency,
		// The scheduler's informer: namespaces are watched once.
		Namespaces: factory.Core().V1().Namespaces(),
	}
	if o.PrometheusAddress != "" {
		q, err := controllers.NewPrometheusQuerier(o.PrometheusAddress)
		if err != nil {
			return nil, fmt.Errorf("--prometheus-address: %w", err)
		}
		copts.Metrics = q
	}
	if w := o.Webhook; w != nil {
		ns := w.ServiceNamespace
		if ns == "" {
			ns = podNamespace()
		}
		copts.Webhook = &controllers.WebhookOptions{
			SelfSigned: w.SelfSigned,
			Options: webhookcert.Options{
				CertDir:           w.CertDir,
				ConfigurationName: w.ConfigurationName,
				IPs:               w.IPs,
			},
		}
		for _, svc := range []string{w.ServiceName, w.ArbiterServiceName} {
			if svc != "" {
				copts.Webhook.DNSNames = append(copts.Webhook.DNSNames,
					svc, svc+"."+ns, svc+"."+ns+".svc", svc+"."+ns+".svc.cluster.local")
			}
		}
	}
	if err := controllers.Setup(mgr, sched, copts); err != nil {
		return nil, fmt.Errorf("setting up controllers: %w", err)
	}
	// The reviews are questions asked of the scheduler (package review).
	reviews := review.New(sched.ReviewHost(), review.WithScenarioLimits(review.ScenarioLimits{Nodes: o.ScenarioMaxNodes, Pods: o.ScenarioMaxPods, NodePods: o.ScenarioMaxNodePods}))
	// A rollout's shadow step judges live pods as a review does.
	sched.SetShadowJudge(reviews)
	if err := controllers.SetupReviews(mgr, reviews, copts); err != nil {
		return nil, fmt.Errorf("setting up reviews: %w", err)
	}
	elected := mgr.Elected()
	if o.BindArbiter {
		if o.Webhook == nil {
			return nil, errors.New("--bind-arbiter needs the webhook server (--enable-webhook)")
		}
		if err := setupBindArbiter(mgr, sched, cfg, o); err != nil {
			return nil, fmt.Errorf("setting up the bind arbiter: %w", err)
		}
	}

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, err
	}
	// A standby replica is ready; the leader once its informers have synced.
	if err := mgr.AddReadyzCheck("scheduler", func(*http.Request) error {
		select {
		case <-elected:
		default:
			return nil
		}
		if !sched.HasSynced() {
			return errors.New("scheduler informers not synced")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return &Operator{Manager: mgr, Scheduler: sched}, nil
}

// schedulerClientConfigs returns the configs of the scheduler's API client
// and of its event client, made as kube-scheduler makes them. Events get a
// client (and so a rate limiter) of their own: a burst of FailedScheduling
// events never delays a bind. Neither asks for gzip: the API server would
// compress every watch event of every pod, and the scheduler decompress it,
// CPU spent on both sides for nothing on a cluster network. Both speak
// protobuf, kube-scheduler's default content type: client-go's generated
// requests prefer it anyway, but its hand-written ones (a pod's Bind) send
// JSON unless the config says otherwise, which costs the API server more to
// decode.
func schedulerClientConfigs(cfg *rest.Config) (sched, events *rest.Config) {
	events = rest.CopyConfig(cfg)
	events.DisableCompression = true
	events.ContentType = runtime.ContentTypeProtobuf
	return rest.AddUserAgent(rest.CopyConfig(events), "scheduler"), events
}

func newManager(cfg *rest.Config, o Options) (ctrl.Manager, error) {
	tlsOpts := []func(*tls.Config){func(c *tls.Config) {
		c.MinVersion = tls.VersionTLS12
		if !o.EnableHTTP2 {
			c.NextProtos = []string{"http/1.1"}
		}
	}}
	metricsOpts := metricsserver.Options{BindAddress: o.MetricsAddr, SecureServing: o.MetricsSecure}
	if o.MetricsSecure && o.MetricsAddr != "0" {
		metricsOpts.FilterProvider = filters.WithAuthenticationAndAuthorization
		metricsOpts.TLSOpts = tlsOpts
	}
	mopts := ctrl.Options{
		Scheme:                        Scheme,
		Metrics:                       metricsOpts,
		HealthProbeBindAddress:        o.ProbeAddr,
		PprofBindAddress:              o.PprofAddr,
		LeaderElection:                o.LeaderElect,
		LeaderElectionID:              o.LeaderElectionID,
		LeaderElectionNamespace:       o.LeaderElectionNamespace,
		LeaseDuration:                 &o.LeaseDuration,
		RenewDeadline:                 &o.RenewDeadline,
		RetryPeriod:                   &o.RetryPeriod,
		LeaderElectionReleaseOnCancel: o.ReleaseLeaseOnStop,
		Controller:                    config.Controller{SkipNameValidation: &o.SkipControllerNameValidation},
		// Secrets of the extender-secrets namespace only: the operator
		// has no permission to list or watch them elsewhere.
		Cache: cache.Options{ByObject: controllers.SecretsCacheByObject(o.ExtenderSecretsNamespace)},
	}
	if o.Webhook != nil {
		mopts.WebhookServer = webhook.NewServer(webhook.Options{Host: o.Webhook.Host, Port: o.Webhook.Port, CertDir: o.Webhook.CertDir, TLSOpts: tlsOpts})
	}
	return ctrl.NewManager(cfg, mopts)
}

// podNamespace is the namespace this pod runs in ($POD_NAMESPACE, which
// the chart sets, then the ServiceAccount's namespace file), or "default"
// outside a cluster.
func podNamespace() string {
	if ns := strings.TrimSpace(os.Getenv("POD_NAMESPACE")); ns != "" {
		return ns
	}
	if ns, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		return strings.TrimSpace(string(ns))
	}
	return "default"
}
