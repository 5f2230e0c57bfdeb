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
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

// routeFinalizer keeps a ProfileRoute until kube-apiserver runs a policy
// without it: a route is gone only once it routes no more pods.
const routeFinalizer = "scheduling.profilescheduler.io/route"

const (
	// routesKey is the one request the routes reconciler serves: every
	// route is written into one RoutingTable, so every change reconciles
	// all.
	routesKey = "routes"
	// probeInterval is how soon a table not yet in force is probed
	// again; kube-apiserver reads a stored parameter within about a
	// second.
	probeInterval = 200 * time.Millisecond
	// unavailableRetry is how soon an API server without
	// MutatingAdmissionPolicy v1 is asked again (it may be upgraded).
	unavailableRetry = time.Minute
	// refusedRetry is how soon a RoutingTable whose write was refused is
	// tried again.
	refusedRetry = 30 * time.Second
	// notInForceAfter is how long a stored table may wait for
	// kube-apiserver to run it before the routes are Stalled
	// (AdmissionPolicyNotInForce); probes go on, less often.
	notInForceAfter = 30 * time.Second
	// stalledProbeInterval is how often such a table is probed.
	stalledProbeInterval = 5 * time.Second
	// driftProbeInterval is how often a table in force is probed again:
	// the operator holds no right on the routes policy and its binding,
	// so a probe is how it sees them changed or deleted (and restored).
	driftProbeInterval = 3 * time.Second
)

// profileRouteReconciler writes every ProfileRoute, with the profiles
// that serve, into one RoutingTable (internal/routing), the parameter of
// the routes program the installer created; waits until a probe shows
// kube-apiserver runs it; and writes the status of every route. It
// writes the table back when anyone else changes or deletes it, and
// probes every few seconds, so that a changed or deleted policy or
// binding shows on every route. It holds no right on admission
// policies.
type profileRouteReconciler struct {
	// Client reads routes, profiles, namespaces and the table from the
	// manager's cache and writes to the API server.
	Client client.Client
	// APIReader reads the table from the API server before writing it.
	APIReader client.Reader
	// Recorder emits RoutingTableRestored, RoutesNotInForce and
	// RoutesInForce events on the table.
	Recorder events.EventRecorder
	// Namespace is the operator's own: never routed unless a route names
	// it, and where probe pods are created with dryRun=All.
	Namespace string
	// Namespaces, when set, is the informer namespaces are listed from and
	// watched through (the scheduler's); else the manager's cache.
	Namespaces coreinformers.NamespaceInformer
	// PolicyName names the routes MutatingAdmissionPolicy, its binding
	// and the RoutingTable (--routes-policy-name).
	PolicyName string

	// inForce is the revision a probe last showed in force ("" none).
	inForce string
	// wasInForce is set while the revision last seen in force is the
	// one the operator wrote: a probe that shows otherwise is drift.
	wasInForce bool
	// waitingSince is when the revision now probed was first seen not in
	// force.
	waitingSince    time.Time
	waitingRevision string
	// stalled is set once a revision was not run within notInForceAfter,
	// until one is.
	stalled bool
	// written is the resourceVersion of the table as the operator last
	// wrote it: a table of another resourceVersion and other content was
	// written by someone else.
	written string
	now     func() metav1.Time
}

// routesScope carries one reconcile through its phases.
type routesScope struct {
	// routes and profiles as listed.
	routes   []v1alpha1.ProfileRoute
	profiles []v1alpha1.SchedulerProfile
	// table and verdicts are what routing.Build decided.
	table    routing.Table
	verdicts map[string]routing.Verdict
	// revision of the table written.
	revision string
	// inForce is set once kube-apiserver runs revision.
	inForce bool
	// notInForce is set when revision has waited past notInForceAfter,
	// or was in force and a probe shows it no longer is.
	notInForce bool
	// seen is the revision the last probe came back with ("" none).
	seen string
	// unavail says why the API server cannot run the routes.
	unavail string
	// refusal says why the table could not be written.
	refusal *policyRefusal
}

// policyRefusal is why the RoutingTable could not be written; it is
// reported on every route.
type policyRefusal struct {
	// reason is ReasonRoutingTableRefused.
	reason  string
	message string
}

func (e *policyRefusal) Error() string { return e.message }

// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=profileroutes,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=profileroutes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=profileroutes/finalizers,verbs=update
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=routingtables,verbs=get;list;watch;create;update;patch

// Reconcile reads every route, compiles them (build), writes the table
// (applyTable), probes kube-apiserver until it runs it and every few
// seconds after (probe), then writes every route's status and lets
// deleted routes go once their removal is in force.
func (r *profileRouteReconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	s := &routesScope{}
	if err := r.build(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.applyTable(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if s.unavail == "" && s.refusal == nil {
		if err := r.probe(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
	}
	statusErr := r.writeStatus(ctx, s)
	if err := r.release(ctx, s); err != nil || statusErr != nil {
		return ctrl.Result{}, errors.Join(statusErr, err)
	}
	switch {
	case s.unavail != "":
		return ctrl.Result{RequeueAfter: unavailableRetry}, nil
	case s.refusal != nil:
		return ctrl.Result{RequeueAfter: refusedRetry}, nil
	case s.notInForce:
		return ctrl.Result{RequeueAfter: stalledProbeInterval}, nil
	case !s.inForce:
		return ctrl.Result{RequeueAfter: probeInterval}, nil
	}
	return ctrl.Result{RequeueAfter: driftProbeInterval}, nil
}

// build lists what routes depend on, puts the finalizer on every route,
// and compiles the table.
func (r *profileRouteReconciler) build(ctx context.Context, s *routesScope) error {
	var routes v1alpha1.ProfileRouteList
	if err := r.Client.List(ctx, &routes); err != nil {
		return fmt.Errorf("listing routes: %w", err)
	}
	var profiles v1alpha1.SchedulerProfileList
	if err := r.Client.List(ctx, &profiles); err != nil {
		return fmt.Errorf("listing profiles: %w", err)
	}
	namespaces, err := r.listNamespaces(ctx)
	if err != nil {
		return fmt.Errorf("listing namespaces: %w", err)
	}
	for i := range routes.Items {
		pr := &routes.Items[i]
		if !pr.DeletionTimestamp.IsZero() || controllerutil.ContainsFinalizer(pr, routeFinalizer) {
			continue
		}
		base := pr.DeepCopy()
		controllerutil.AddFinalizer(pr, routeFinalizer)
		if err := r.Client.Patch(ctx, pr, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("adding finalizer to ProfileRoute %q: %w", pr.Name, err)
		}
	}
	s.routes = routes.Items
	s.profiles = profiles.Items
	s.table, s.verdicts = routing.Build(routing.Input{
		Routes:     routes.Items,
		Profiles:   profiles.Items,
		Namespaces: namespaces,
		Protected:  routing.DefaultProtected(r.Namespace),
	})
	return nil
}

func (r *profileRouteReconciler) listNamespaces(ctx context.Context) ([]corev1.Namespace, error) {
	if r.Namespaces == nil {
		var list corev1.NamespaceList
		err := r.Client.List(ctx, &list)
		return list.Items, err
	}
	cached, err := r.Namespaces.Lister().List(labels.Everything())
	out := make([]corev1.Namespace, 0, len(cached))
	for _, ns := range cached {
		out = append(out, corev1.Namespace{ObjectMeta: *ns.ObjectMeta.DeepCopy()})
	}
	return out, err
}

// writeStatus writes the status of every route that changed, and, once
// the policy is in force, status.routes of the profiles they feed.
func (r *profileRouteReconciler) writeStatus(ctx context.Context, s *routesScope) error {
	var errs []error
	for i := range s.routes {
		pr := &s.routes[i]
		if !pr.DeletionTimestamp.IsZero() {
			continue
		}
		base := pr.DeepCopy()
		pr.Status = routeStatus(pr.Status, routeOutcome{
			Generation:  pr.Generation,
			Verdict:     s.verdicts[pr.Name],
			Unavailable: s.unavail,
			Refusal:     s.refusal,
			PolicyName:  r.PolicyName,
			InForce:     s.inForce,
			NotInForce:  s.notInForce,
			Revision:    s.revision,
			Seen:        s.seen,
		}, r.now())
		if equality.Semantic.DeepEqual(base.Status, pr.Status) {
			continue
		}
		if err := r.Client.Status().Patch(ctx, pr, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("writing status of ProfileRoute %q: %w", pr.Name, err))
		}
	}
	if !s.inForce && s.unavail == "" && s.refusal == nil {
		return errors.Join(errs...)
	}
	feeding := profileRoutes(s.routes, s.verdicts, s.unavail == "" && s.refusal == nil)
	for i := range s.profiles {
		sp := &s.profiles[i]
		want := feeding[sp.Name]
		if slices.Equal(sp.Status.Routes, want) || !sp.DeletionTimestamp.IsZero() {
			continue
		}
		base := sp.DeepCopy()
		sp.Status.Routes = want
		if err := r.Client.Status().Patch(ctx, sp, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("writing status.routes of SchedulerProfile %q: %w", sp.Name, err))
		}
	}
	return errors.Join(errs...)
}

// release removes the finalizer of deleted routes once kube-apiserver runs
// a table without them, or when it runs none of the operator's at all
// (the API is not served, or a stored table is not run after
// notInForceAfter, or no longer: the policy or its binding is changed or
// missing). A refused write keeps them: the table stored before may
// still route them.
func (r *profileRouteReconciler) release(ctx context.Context, s *routesScope) error {
	if !s.inForce && s.unavail == "" && !s.notInForce {
		return nil
	}
	var errs []error
	for i := range s.routes {
		pr := &s.routes[i]
		if pr.DeletionTimestamp.IsZero() || !controllerutil.ContainsFinalizer(pr, routeFinalizer) {
			continue
		}
		base := pr.DeepCopy()
		controllerutil.RemoveFinalizer(pr, routeFinalizer)
		if err := r.Client.Patch(ctx, pr, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing finalizer of ProfileRoute %q: %w", pr.Name, err))
		}
	}
	return errors.Join(errs...)
}

// setupWithManager wires the reconciler: routes, profiles (whether they
// serve), namespaces (their labels) and the RoutingTable (written by
// someone else) all reconcile the one request.
func (r *profileRouteReconciler) setupWithManager(mgr ctrl.Manager) error {
	if r.now == nil {
		r.now = metav1.Now
	}
	if r.PolicyName == "" {
		r.PolicyName = routing.PolicyName
	}
	all := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: routesKey}}}
	})
	// A profile matters to routes by the name it serves and whether it
	// serves.
	serving := predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, okOld := e.ObjectOld.(*v1alpha1.SchedulerProfile)
		n, okNew := e.ObjectNew.(*v1alpha1.SchedulerProfile)
		if !okOld || !okNew {
			return true
		}
		return o.Status.ActiveGeneration != n.Status.ActiveGeneration || o.Status.SchedulerName != n.Status.SchedulerName ||
			o.EffectiveSchedulerName() != n.EffectiveSchedulerName() || !o.DeletionTimestamp.Equal(n.DeletionTimestamp) ||
			!equality.Semantic.DeepEqual(o.Status.ActiveSpec, n.Status.ActiveSpec)
	}}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("profileroute").
		Watches(&v1alpha1.ProfileRoute{}, all).
		Watches(&v1alpha1.SchedulerProfile{}, all, builder.WithPredicates(serving)).
		Watches(&v1alpha1.RoutingTable{}, all, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetName() == r.PolicyName
		}))).
		WithOptions(ctrlOptions(1))
	if r.Namespaces != nil {
		b = b.WatchesRawSource(&source.Informer{Informer: r.Namespaces.Informer(), Handler: all})
	} else {
		b = b.Watches(&corev1.Namespace{}, all)
	}
	return b.Complete(r)
}
