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
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json
	_ "k8s.io/kubernetes/pkg/features"           // registers the upstream feature gates

	"github.com/profile-scheduler/profile-scheduler/app/operator"
	"github.com/profile-scheduler/profile-scheduler/controllers"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

func init() {
	// The logging features (ContextualLogging, LoggingBetaOptions, ...)
	// behind --feature-gates, as kube-scheduler registers them.
	utilruntime.Must(logsapi.AddFeatureGates(utilfeature.DefaultMutableFeatureGate))
}

// options are the command's flags.
type options struct {
	operator.Options
	kubeconfig    string
	local         bool
	localDir      string
	localAssets   string
	qps           float32
	burst         int
	enableWebhook bool
	// contentionProfiling records lock contention and blocking for
	// /debug/pprof/mutex and /debug/pprof/block.
	contentionProfiling bool
	webhook             operator.WebhookOptions
	logs                *logsapi.LoggingConfiguration
	showVersion         bool
}

// flags binds the options to the command's flags, grouped by concern as
// kube-scheduler groups its own; -h prints them section by section. Local mode's flags are those of a binary built with it.
func (o *options) flags(name string) cliflag.NamedFlagSets {
	d := operator.Defaults()
	o.Options = d
	o.logs = logs.NewOptions()
	var nfs cliflag.NamedFlagSets

	fs := nfs.FlagSet("api server")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig. Unset: $KUBECONFIG, then in-cluster config.")
	fs.Float32Var(&o.qps, "kube-api-qps", 50, "Client QPS towards the API server.")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "Client burst towards the API server.")

	fs = nfs.FlagSet("scheduling")
	fs.IntVar(&o.Parallelism, "parallelism", d.Parallelism, "Goroutines used to filter and score nodes.")
	fs.DurationVar(&o.PodInitialBackoff, "pod-initial-backoff", d.PodInitialBackoff, "Back-off of a pod after its first failed attempt.")
	fs.DurationVar(&o.PodMaxBackoff, "pod-max-backoff", d.PodMaxBackoff, "Largest back-off of a pod.")
	fs.BoolVar(&o.BindCheck, "bind-check", d.BindCheck, "Check each pod against its node just before binding it, with the pods any scheduler bound since the pod's cycle; a pod that no longer fits is scheduled again instead of overcommitting the node (see docs/sharing-nodes.md).")
	fs.BoolVar(&o.ProfileLoops, "profile-loops", d.ProfileLoops, "Give every profile a scheduling loop of its own, so a profile's slow extender or plugin holds up only its own pods; false serves every profile from one loop in upstream kube-scheduler's global order (see docs/profile-isolation.md).")
	fs.BoolVar(&o.BindArbiter, "bind-arbiter", false, "Serve the bind arbiter on the webhook server (needs --enable-webhook): every scheduler's binds, routed to it by a ValidatingWebhookConfiguration on pods/binding (the chart's bindArbiter.enabled), are admitted only while their node has room. Fails open. See docs on sharing nodes.")
	fs.StringSliceVar(&o.BindArbiterExcludedNamespaces, "bind-arbiter-excluded-namespaces", d.BindArbiterExcludedNamespaces, "Namespaces whose binds the bind arbiter admits unjudged, beside the operator's own, however their reviews reach it (the chart's bindArbiter.excludedNamespaces, which the webhook configuration leaves out too).")
	fs.IntVar(&o.BindArbiterConcurrency, "bind-arbiter-concurrency", d.BindArbiterConcurrency, "Most reviews the bind arbiter's webhook answers at once; beyond it a review is answered at once with an error, which the webhook's failurePolicy Ignore admits.")
	fs.BoolVar(&o.AllowDefaultScheduler, "allow-default-scheduler", false, "Let a profile serve schedulerName default-scheduler (only where no kube-scheduler runs).")
	fs.StringVar(&o.RoutesPolicyName, "routes-policy-name", routing.PolicyName, "Name of the RoutingTable the operator writes the ProfileRoutes into, the parameter of the routes program (a MutatingAdmissionPolicy and binding of the same name, which the installer creates; the chart names all three <fullname>-routes). The operator holds no right on the policy; its probes report a route as AdmissionPolicyNotInForce while kube-apiserver does not run the table.")
	fs.StringVar(&o.ExtenderSecretsNamespace, "extender-secrets-namespace", "", "The only namespace whose Secrets are read, as TLS material of ExtenderConfigs (default: the pod's namespace, $POD_NAMESPACE; \"default\" outside a cluster).")

	fs = nfs.FlagSet("reviews")
	fs.IntVar(&o.ScenarioMaxNodes, "scenario-max-nodes", d.ScenarioMaxNodes, "Most nodes a SchedulingReview's scenario may have once expanded (the cluster's, less those removed, plus those added and minimize's max); a larger one is refused, naming the field.")
	fs.DurationVar(&o.ReviewTimeout, "review-timeout", d.ReviewTimeout, "Longest a SchedulingReview's answer may take; past it the review is Failed (reason ReviewTimeout) with what it had computed, and what it held is released.")
	fs.IntVar(&o.ReviewConcurrency, "review-concurrency", d.ReviewConcurrency, "How many SchedulingReviews are answered at once, each on a snapshot of the cluster of its own (at most this many snapshots are kept; a scenario holds one only while it plans). A rollout's shadow judges on a snapshot of its own and never waits on a review.")
	fs.IntVar(&o.ScenarioMaxNodePods, "scenario-max-node-pods", d.ScenarioMaxNodePods, "Most pods times nodes a SchedulingReview's scenario may have once expanded, the estimate of the memory it takes; a larger one is refused, naming the field.")
	fs.IntVar(&o.ScenarioMaxPods, "scenario-max-pods", d.ScenarioMaxPods, "Most pods a SchedulingReview's scenario may place (pending, evicted and added); a larger one is refused, naming the field.")

	fs = nfs.FlagSet("rollouts")
	fs.StringVar(&o.PrometheusAddress, "prometheus-address", "", "Address of the Prometheus HTTP API (http://prometheus.monitoring:9090) that answers the PromQL queries of spec.rollout.analysis.metrics; without it a rollout naming such metrics is refused (reason PrometheusNotConfigured).")

	fs = nfs.FlagSet("leader election")
	fs.BoolVar(&o.LeaderElect, "leader-elect", false, "Elect a leader; only the leader reconciles and schedules.")
	fs.StringVar(&o.LeaderElectionID, "leader-elect-id", d.LeaderElectionID, "Name of the leader election Lease.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-elect-namespace", "", "Namespace of the leader election Lease (default: the pod's namespace).")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", d.LeaseDuration, "How long a follower waits before taking an unrenewed lease.")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", d.RenewDeadline, "How long the leader retries renewing before giving up leadership.")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", d.RetryPeriod, "How often leader election clients retry.")

	fs = nfs.FlagSet("metrics and probes")
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", d.MetricsAddr, "Address of the metrics endpoint; \"0\" disables it.")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", d.MetricsSecure, "Serve metrics over HTTPS with authentication and authorization.")
	fs.BoolVar(&o.EnableHTTP2, "enable-http2", false, "Let the webhook and metrics servers speak HTTP/2 (off: HTTP/1.1 only, out of reach of HTTP/2's stream reset floods, CVE-2023-44487).")
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", d.ProbeAddr, "Address of /healthz and /readyz.")
	fs.StringVar(&o.PprofAddr, "pprof-bind-address", "", "Address of net/http/pprof (for profiling); empty disables it.")
	fs.BoolVar(&o.contentionProfiling, "contention-profiling", false, "Record every contended lock and every blocking wait for /debug/pprof/mutex and /debug/pprof/block, as kube-scheduler's enableContentionProfiling does for blocking (needs --pprof-bind-address). Each recorded event costs a stack walk: for investigations, not for every day.")

	fs = nfs.FlagSet("webhook")
	fs.BoolVar(&o.enableWebhook, "enable-webhook", false, "Serve the validating admission webhook for SchedulerProfiles.")
	fs.IntVar(&o.webhook.Port, "webhook-port", 9443, "Port of the admission webhook server.")
	fs.StringVar(&o.webhook.CertDir, "webhook-cert-dir", filepath.Join(os.TempDir(), "profile-scheduler-webhook"), "Directory of the webhook serving certificate (tls.crt, tls.key).")
	fs.BoolVar(&o.webhook.SelfSigned, "webhook-self-signed", true, "Generate and rotate the webhook serving certificate, and merge its CA into the webhook's caBundle beside the other replicas' (when no cert-manager provides one).")
	fs.StringVar(&o.webhook.ServiceName, "webhook-service-name", "profile-scheduler-webhook", "Service in front of the webhook server (for the certificate's DNS names).")
	fs.StringVar(&o.webhook.ArbiterServiceName, "bind-arbiter-service-name", "", "Service in front of the leader's bind arbiter only (selecting the label "+controllers.ArbiterLeaderLabel+"), for the certificate's DNS names; the chart's <fullname>-bind-arbiter.")
	fs.StringVar(&o.webhook.ServiceNamespace, "webhook-service-namespace", "", "Namespace of that Service (default: the pod's namespace).")
	fs.StringVar(&o.webhook.ConfigurationName, "webhook-configuration-name", "profile-scheduler-validating-webhook", "ValidatingWebhookConfiguration whose caBundle a self-signed CA is written to.")

	if localModeRegistered() {
		o.localFlags(nfs.FlagSet("local mode"))
	}

	utilfeature.DefaultMutableFeatureGate.AddFlag(nfs.FlagSet("feature gate"))
	logsapi.AddFlags(o.logs, nfs.FlagSet("logs"))

	fs = nfs.FlagSet("global")
	fs.BoolVar(&o.showVersion, "version", false, "Print the version and the upstream scheduler version it embeds, then exit.")
	if !localModeRegistered() {
		// A binary without local mode (the image's) keeps --local, hidden,
		// so that it says what the binary lacks; local mode's other flags
		// are not this binary's and are not shown.
		fs.BoolVar(&o.local, "local", false, "Local mode, which this binary was built without.")
		_ = fs.MarkHidden("local")
	}
	globalflag.AddGlobalFlags(fs, name, logs.SkipLoggingConfigurationFlags())
	return nfs
}

// localFlags are local mode's flags, in a binary that has it (one that
// imports package app/local).
func (o *options) localFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.local, "local", false, "Start a local control plane (etcd and kube-apiserver from --local-assets), install the CRDs, create nodes, apply the sample profiles and run against it. Only in a binary that imports package app/local (make run builds one; the operator's image does not); the CRDs and samples travel inside the binary, so it works from any module.")
	fs.StringVar(&o.localDir, "local-dir", ".local", "Directory for local mode's admin kubeconfig, relative to the root of the module run from (the directory holding go.mod), or to the working directory.")
	fs.StringVar(&o.localAssets, "local-assets", "", "Directory holding etcd, kube-apiserver and kubectl for local mode (default: $KUBEBUILDER_ASSETS, else bin/k8s under the module's root). In this repository, make envtest-assets builds them; the error of a missing binary says how to build them elsewhere.")
}
