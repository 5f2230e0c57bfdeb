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

package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// Field indexes the controllers look objects up by.
const (
	// indexSchedulerName indexes SchedulerProfiles by the schedulerName
	// they claim (spec.schedulerName, or metadata.name).
	indexSchedulerName = "profilescheduler.io/schedulerName"
	// indexExtenders indexes SchedulerProfiles by the ExtenderConfigs they
	// name.
	indexExtenders = "profilescheduler.io/extenders"
	// indexSecretRef indexes ExtenderConfigs by "namespace/name" of the
	// Secret they read.
	indexSecretRef = "profilescheduler.io/secretRef"
)

// readyzCheckName is the name of the readiness check Setup adds.
const readyzCheckName = "schedulerprofiles"

// Options configures the controllers.
type Options struct {
	// AllowDefaultScheduler lets a profile serve default-scheduler
	// (--allow-default-scheduler). Off, such a profile is refused with
	// DefaultSchedulerReserved.
	AllowDefaultScheduler bool
	// LeaderElection tells that the manager elects a leader: a replica that
	// does not lead reconciles nothing and reports ready. Without it,
	// readiness waits for the first reconcile of every profile that
	// existed at start.
	LeaderElection bool
	// Webhook, when non-nil, registers the validating admission webhooks
	// for SchedulerProfile and ExtenderConfig on the manager's webhook
	// server.
	Webhook *WebhookOptions
	// Plugins describes the scheduler's out-of-tree plugins, so that a
	// pluginConfig entry for one is accepted and its args validated.
	Plugins Plugins
	// ExtenderSecretsNamespace is the only namespace the TLS Secrets of
	// ExtenderConfigs are read from (--extender-secrets-namespace); a
	// secretRef without a namespace means this one, a secretRef naming
	// another is refused. Empty means defaultExtenderSecretsNamespace. The
	// manager's cache should keep the Secrets of this namespace only
	// (SecretsCacheByObject).
	ExtenderSecretsNamespace string
	// OperatorNamespace is the operator's own namespace: ProfileRoutes
	// never route it unless their namespaceSelector names it, and the
	// routes' dry-run probe pods are created there. Empty means
	// ExtenderSecretsNamespace.
	OperatorNamespace string
	// RoutesPolicyName names the routes MutatingAdmissionPolicy and its
	// binding, which the installer creates and the operator only updates
	// (--routes-policy-name). Empty means routing.PolicyName.
	RoutesPolicyName string
	// Namespaces is the scheduler's namespace informer: the routes
	// reconciler reads namespace labels from it, so namespaces are watched
	// once. Nil means the manager's cache.
	Namespaces coreinformers.NamespaceInformer
	// ReviewTimeout bounds the answer of one SchedulingReview
	// (--review-timeout): past it the review is Failed (ReviewTimeout),
	// with what it had computed, and what it held is released. Zero means
	// DefaultReviewTimeout.
	ReviewTimeout time.Duration
	// Metrics answers the PromQL queries of spec.rollout.analysis.metrics
	// (NewPrometheusQuerier on --prometheus-address); nil: a rollout with
	// such metrics is refused (PrometheusNotConfigured).
	Metrics MetricsQuerier
	// ReviewConcurrency is how many SchedulingReviews are answered at
	// once (--review-concurrency): a long one (a scenario's runs) keeps
	// the others waiting no longer than its plan. Zero means
	// DefaultReviewConcurrency.
	ReviewConcurrency int
}

// DefaultReviewConcurrency is ReviewConcurrency unset: each review at
// its budget takes about a tenth of the chart's memory limit.
const DefaultReviewConcurrency = 4

// DefaultReviewTimeout is ReviewTimeout unset.
const DefaultReviewTimeout = 30 * time.Second

// Setup registers the SchedulerProfile, ExtenderConfig and ProfileRoute
// reconcilers, the
// field indexes they need, the readiness check "schedulerprofiles" (ready once
// every profile existing at start has been reconciled) and, when
// opts.Webhook is set, the validating webhooks. It registers the metrics
// the reconciler updates (metrics.go) and the profiles' and routes' health
// (health_metrics.go). Call it before mgr.Start.
func Setup(mgr ctrl.Manager, profiles scheduler.ProfileSet, opts Options) error {
	if profiles == nil {
		return errors.New("controllers.Setup: nil ProfileSet")
	}
	registerMetricsOnControllerRuntime()
	opts.ExtenderSecretsNamespace = secretsNamespace(opts.ExtenderSecretsNamespace)
	if err := addIndexes(context.Background(), mgr, opts.ExtenderSecretsNamespace); err != nil {
		return err
	}
	pr := &schedulerProfileReconciler{
		Client:                mgr.GetClient(),
		Profiles:              profiles,
		Rollouts:              rolloutsOf(profiles),
		Loops:                 loopsOf(profiles),
		Recorder:              mgr.GetEventRecorder("profile-scheduler"),
		AllowDefaultScheduler: opts.AllowDefaultScheduler,
		Plugins:               opts.Plugins,

		ExtenderSecretsNamespace: opts.ExtenderSecretsNamespace,
		HistoryNamespace:         opts.OperatorNamespace,
		APIReader:                mgr.GetAPIReader(),
		Metrics:                  opts.Metrics,
	}
	if pr.HistoryNamespace == "" {
		pr.HistoryNamespace = opts.ExtenderSecretsNamespace
	}
	if opts.LeaderElection {
		pr.elected = mgr.Elected()
	}
	if err := pr.setupWithManager(mgr); err != nil {
		return err
	}
	health.use(mgr.GetClient(), mgr.Elected())
	er := &extenderConfigReconciler{Client: mgr.GetClient(), ExtenderSecretsNamespace: opts.ExtenderSecretsNamespace}
	if err := er.setupWithManager(mgr); err != nil {
		return err
	}
	routes := &profileRouteReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Namespace: opts.OperatorNamespace, Namespaces: opts.Namespaces,
		PolicyName: opts.RoutesPolicyName, Recorder: mgr.GetEventRecorder("profile-scheduler")}
	if routes.Namespace == "" {
		routes.Namespace = opts.ExtenderSecretsNamespace
	}
	if err := routes.setupWithManager(mgr); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck(readyzCheckName, pr.readyCheck); err != nil {
		return fmt.Errorf("adding readiness check: %w", err)
	}
	if opts.Webhook != nil {
		pv := &profileValidator{Client: mgr.GetClient(), Profiles: profiles, AllowDefaultScheduler: opts.AllowDefaultScheduler, Plugins: opts.Plugins,
			ExtenderSecretsNamespace: opts.ExtenderSecretsNamespace}
		ev := &extenderValidator{ExtenderSecretsNamespace: opts.ExtenderSecretsNamespace}
		if err := setupWebhook(mgr, pv, ev, *opts.Webhook); err != nil {
			return err
		}
	}
	return nil
}

func addIndexes(ctx context.Context, mgr ctrl.Manager, secretsNamespace string) error {
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &v1alpha1.SchedulerProfile{}, indexSchedulerName, func(o client.Object) []string {
		return []string{o.(*v1alpha1.SchedulerProfile).EffectiveSchedulerName()}
	}); err != nil {
		return fmt.Errorf("indexing profiles by schedulerName: %w", err)
	}
	if err := idx.IndexField(ctx, &v1alpha1.SchedulerProfile{}, indexExtenders, func(o client.Object) []string {
		return o.(*v1alpha1.SchedulerProfile).Spec.Extenders
	}); err != nil {
		return fmt.Errorf("indexing profiles by extenders: %w", err)
	}
	if err := idx.IndexField(ctx, &v1alpha1.ExtenderConfig{}, indexSecretRef, func(o client.Object) []string {
		key, ok, _ := extenderSecretKey(o.(*v1alpha1.ExtenderConfig), secretsNamespace)
		if !ok {
			return nil
		}
		return []string{secretKey(key.Namespace, key.Name)}
	}); err != nil {
		return fmt.Errorf("indexing extenders by Secret: %w", err)
	}
	return nil
}

// setupWithManager wires the reconciler: its own objects, the profiles
// that claim the same schedulerName (old and new name on update), the
// ExtenderConfigs a profile names, their Secrets, and profiles whose name
// was taken over. The indexes of Setup must exist.
func (r *schedulerProfileReconciler) setupWithManager(mgr ctrl.Manager) error {
	r.served = newServedNames()
	r.refusals = newRefusalMemory()
	r.startup = newStartupTracker(r.elected)
	r.displaced = make(chan event.GenericEvent, 1024)
	if r.now == nil {
		r.now = metav1.Now
	}
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return errors.New("cache did not sync")
		}
		return r.startup.list(ctx, mgr.GetClient())
	})); err != nil {
		return err
	}
	c := mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).
		Named("schedulerprofile").
		For(&v1alpha1.SchedulerProfile{}).
		Watches(&v1alpha1.SchedulerProfile{}, peersHandler(c)).
		Watches(&v1alpha1.ExtenderConfig{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return profilesReferencing(ctx, c, o.GetName())
		})).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			var out []reconcile.Request
			for _, ec := range extendersReading(ctx, c, o) {
				out = append(out, profilesReferencing(ctx, c, ec.Name)...)
			}
			return out
		})).
		WatchesRawSource(source.Channel(r.displaced, &handler.EnqueueRequestForObject{})).
		WithOptions(ctrlOptions(1)).
		Complete(r)
}

// setupWithManager wires the reconciler: its own objects, the Secrets they
// read, and the profiles that reference them (for status.profiles).
func (r *extenderConfigReconciler) setupWithManager(mgr ctrl.Manager) error {
	if r.now == nil {
		r.now = metav1.Now
	}
	c := mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).
		Named("extenderconfig").
		For(&v1alpha1.ExtenderConfig{}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			var out []reconcile.Request
			for _, ec := range extendersReading(ctx, c, o) {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&ec)})
			}
			return out
		})).
		Watches(&v1alpha1.SchedulerProfile{}, referencedExtendersHandler()).
		WithOptions(ctrlOptions(2)).
		Complete(r)
}

// peersHandler enqueues every profile claiming the schedulerName of the
// object that changed, before and after the change, itself included.
func peersHandler(c client.Reader) handler.EventHandler {
	enqueue := func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], objs ...client.Object) {
		seen := map[string]bool{}
		for _, o := range objs {
			sp, ok := o.(*v1alpha1.SchedulerProfile)
			if !ok || seen[sp.EffectiveSchedulerName()] {
				continue
			}
			name := sp.EffectiveSchedulerName()
			seen[name] = true
			var peers v1alpha1.SchedulerProfileList
			if err := c.List(ctx, &peers, client.MatchingFields{indexSchedulerName: name}); err != nil {
				continue
			}
			for _, p := range peers.Items {
				if p.Name != sp.Name {
					q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&p)})
				}
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			oldSP, okOld := e.ObjectOld.(*v1alpha1.SchedulerProfile)
			newSP, okNew := e.ObjectNew.(*v1alpha1.SchedulerProfile)
			if okOld && okNew && oldSP.EffectiveSchedulerName() == newSP.EffectiveSchedulerName() &&
				oldSP.DeletionTimestamp.IsZero() == newSP.DeletionTimestamp.IsZero() {
				return
			}
			enqueue(ctx, q, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
	}
}

// referencedExtendersHandler enqueues the ExtenderConfigs a profile names,
// before and after a change.
func referencedExtendersHandler() handler.EventHandler {
	enqueue := func(q workqueue.TypedRateLimitingInterface[reconcile.Request], objs ...client.Object) {
		for _, o := range objs {
			if sp, ok := o.(*v1alpha1.SchedulerProfile); ok {
				for _, name := range sp.Spec.Extenders {
					q.Add(reconcile.Request{NamespacedName: client.ObjectKey{Name: name}})
				}
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q, e.Object)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			oldSP, okOld := e.ObjectOld.(*v1alpha1.SchedulerProfile)
			newSP, okNew := e.ObjectNew.(*v1alpha1.SchedulerProfile)
			if okOld && okNew && slices.Equal(oldSP.Spec.Extenders, newSP.Spec.Extenders) {
				return
			}
			enqueue(q, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q, e.Object)
		},
	}
}

func profilesReferencing(ctx context.Context, c client.Reader, extender string) []reconcile.Request {
	var list v1alpha1.SchedulerProfileList
	if err := c.List(ctx, &list, client.MatchingFields{indexExtenders: extender}); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, p := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&p)})
	}
	return out
}

func extendersReading(ctx context.Context, c client.Reader, secret client.Object) []v1alpha1.ExtenderConfig {
	var list v1alpha1.ExtenderConfigList
	if err := c.List(ctx, &list, client.MatchingFields{indexSecretRef: secretKey(secret.GetNamespace(), secret.GetName())}); err != nil {
		return nil
	}
	return list.Items
}

func ctrlOptions(workers int) controller.Options {
	return controller.Options{MaxConcurrentReconciles: workers}
}

// loopsOf is the loops of profiles, nil when it tells none: status.loop
// is then not written.
func loopsOf(profiles scheduler.ProfileSet) scheduler.Loops {
	l, _ := profiles.(scheduler.Loops)
	return l
}

// rolloutsOf is the rollouts of profiles, nil when it has none: a
// profile with spec.rollout then goes live at once.
func rolloutsOf(profiles scheduler.ProfileSet) scheduler.Rollouts {
	r, _ := profiles.(scheduler.Rollouts)
	return r
}
