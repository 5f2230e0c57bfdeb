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

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
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
	// route is compiled into one policy, so every change reconciles all.
	routesKey = "routes"
	// probeInterval is how soon a policy not yet in force is probed
	// again; kube-apiserver applies a stored policy within about a second.
	probeInterval = 200 * time.Millisecond
	// unavailableRetry is how soon an API server without
	// MutatingAdmissionPolicy v1 is asked again (it may be upgraded).
	unavailableRetry = time.Minute
	// refusedRetry is how soon a routes policy that is missing, or whose
	// update was refused, is tried again (an upgrade of the chart
	// restores it).
	refusedRetry = 30 * time.Second
	// notInForceAfter is how long a stored policy may wait for
	// kube-apiserver to run it before the routes are Stalled
	// (AdmissionPolicyNotInForce); probes go on, less often.
	notInForceAfter = 30 * time.Second
	// stalledProbeInterval is how often such a policy is probed.
	stalledProbeInterval = 5 * time.Second
	// resyncInterval repairs a policy someone else changed: the policy is
	// not watched, so that an API server that does not serve its kind
	// stops nothing else.
	resyncInterval = 5 * time.Minute
)

// profileRouteReconciler compiles every ProfileRoute, with the profiles
// that serve, into one MutatingAdmissionPolicy and its binding
// (internal/routing), writes them over the objects the installer created,
// waits until kube-apiserver runs them, and writes the status of every
// route. It never creates nor deletes a policy: its Role names the two
// objects it may update, and nothing else of their kinds.
type profileRouteReconciler struct {
	// Client reads routes, profiles and namespaces from the manager's
	// cache and writes to the API server.
	Client client.Client
	// APIReader reads the policies from the API server: they are not
	// cached.
	APIReader client.Reader
	// Namespace is the operator's own: never routed unless a route names
	// it, and where probe pods are created with dryRun=All.
	Namespace string
	// Namespaces, when set, is the informer namespaces are listed from and
	// watched through (the scheduler's); else the manager's cache.
	Namespaces coreinformers.NamespaceInformer
	// PolicyName names the MutatingAdmissionPolicy and its binding
	// (--routes-policy-name).
	PolicyName string

	// inForce is the revision last seen in force ("" none yet).
	inForce string
	// waitingSince is when the revision now probed was first seen not in
	// force.
	waitingSince    time.Time
	waitingRevision string
	// stalled is set once a revision was not run within notInForceAfter,
	// until one is.
	stalled bool
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
	// revision of the policy written.
	revision string
	// inForce is set once kube-apiserver runs revision.
	inForce bool
	// notInForce is set when revision has waited past notInForceAfter.
	notInForce bool
	// unavail says why the API server cannot hold the policy.
	unavail string
	// refusal says why the policy could not be written: it is missing, or
	// kube-apiserver refused the update.
	refusal *policyRefusal
}

// policyRefusal is why the routes policy or its binding could not be
// written; it is reported on every route.
type policyRefusal struct {
	// reason is ReasonAdmissionPolicyMissing or
	// ReasonAdmissionPolicyRefused.
	reason  string
	message string
}

func (e *policyRefusal) Error() string { return e.message }

// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=profileroutes,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=profileroutes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=profileroutes/finalizers,verbs=update
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingadmissionpolicies;mutatingadmissionpolicybindings,resourceNames=profile-scheduler-routes,verbs=get;update;patch

// Reconcile reads every route, compiles them (build), writes the policy
// (applyPolicy), probes kube-apiserver until it runs it (probe), then
// writes every route's status and lets deleted routes go once their
// removal is in force.
func (r *profileRouteReconciler) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	s := &routesScope{}
	if err := r.build(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.applyPolicy(ctx, s); err != nil {
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
	return ctrl.Result{RequeueAfter: resyncInterval}, nil
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

// applyPolicy writes the table over the policy and its binding, which
// the installer created (a table of no route routes nothing). An API
// server that does not serve MutatingAdmissionPolicy v1 (s.unavail), a
// policy or binding that does not exist, and an update kube-apiserver
// refuses (s.refusal) are reported on every route.
func (r *profileRouteReconciler) applyPolicy(ctx context.Context, s *routesScope) error {
	policy, binding, revision := s.table.Policy(r.PolicyName)
	s.revision = revision
	err := r.put(ctx, policy, &admissionregistrationv1.MutatingAdmissionPolicy{})
	if err == nil {
		err = r.put(ctx, binding, &admissionregistrationv1.MutatingAdmissionPolicyBinding{})
	}
	var refusal *policyRefusal
	switch {
	case meta.IsNoMatchError(err) || apierrors.IsNotFound(err) && isResourceMissing(err):
		s.unavail = policyUnavailableMessage(err)
		r.inForce = ""
		return nil
	case errors.As(err, &refusal):
		s.refusal = refusal
		r.inForce = ""
		log.FromContext(ctx).Info("Route policy not written", "reason", refusal.reason, "message", refusal.message)
		return nil
	}
	return err
}

// isResourceMissing tells a 404 for the resource type (the API server
// does not serve it) from one for an object.
func isResourceMissing(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d == nil || d.Name == ""
}

// put writes the spec of want, its revision annotation and owner label
// over the stored object of its name (cur, read from the API server),
// keeping the rest of its metadata (the installer's labels and
// annotations), when the revision or the label differ. A write makes the
// next probe ask kube-apiserver again. A missing object, and a write
// kube-apiserver refuses (the guard, RBAC), are a *policyRefusal.
func (r *profileRouteReconciler) put(ctx context.Context, want, cur client.Object) error {
	kind := "MutatingAdmissionPolicy"
	if _, ok := cur.(*admissionregistrationv1.MutatingAdmissionPolicyBinding); ok {
		kind = "MutatingAdmissionPolicyBinding"
	}
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(want), cur)
	switch {
	case apierrors.IsNotFound(err) && !isResourceMissing(err):
		return &policyRefusal{reason: v1alpha1.ReasonAdmissionPolicyMissing, message: fmt.Sprintf(
			"%s %s does not exist: it is installed with the operator (the chart, or kubectl apply -k config/default), "+
				"which may only update it; upgrading the release, or applying the config again, restores it", kind, want.GetName())}
	case apierrors.IsForbidden(err):
		return &policyRefusal{reason: v1alpha1.ReasonAdmissionPolicyRefused, message: fmt.Sprintf(
			"reading %s %s was refused: %v", kind, want.GetName(), err)}
	case err != nil:
		return err
	}
	if cur.GetAnnotations()[routing.RevisionAnnotation] == want.GetAnnotations()[routing.RevisionAnnotation] &&
		cur.GetLabels()[routing.OwnerLabel] == routing.OwnerValue {
		return nil
	}
	switch c := cur.(type) {
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		c.Spec = want.(*admissionregistrationv1.MutatingAdmissionPolicy).Spec
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		c.Spec = want.(*admissionregistrationv1.MutatingAdmissionPolicyBinding).Spec
	}
	labels, annotations := cur.GetLabels(), cur.GetAnnotations()
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	labels[routing.OwnerLabel] = routing.OwnerValue
	annotations[routing.RevisionAnnotation] = want.GetAnnotations()[routing.RevisionAnnotation]
	cur.SetLabels(labels)
	cur.SetAnnotations(annotations)
	if err := r.Client.Update(ctx, cur); err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
			return &policyRefusal{reason: v1alpha1.ReasonAdmissionPolicyRefused, message: fmt.Sprintf(
				"kube-apiserver refused the update of %s %s: %v", kind, want.GetName(), err)}
		}
		return fmt.Errorf("updating %s %s: %w", kind, want.GetName(), err)
	}
	r.inForce = ""
	return nil
}

// probe creates a probe pod with dryRun=All: the revision it comes back
// with is the one kube-apiserver runs. The policy is in force when that
// is s.revision. A revision seen in force is not probed again.
func (r *profileRouteReconciler) probe(ctx context.Context, s *routesScope) error {
	if r.inForce == s.revision {
		s.inForce = true
		return nil
	}
	pod := routing.ProbePod(r.Namespace, r.PolicyName)
	if err := r.Client.Create(ctx, pod, client.DryRunAll); err != nil {
		return fmt.Errorf("probing the route policy with a dry-run pod in namespace %q: %w", r.Namespace, err)
	}
	got := pod.Annotations[routing.RevisionAnnotation]
	s.inForce = got == s.revision
	if s.inForce {
		r.inForce, r.stalled = s.revision, false
		log.FromContext(ctx).V(2).Info("Route policy in force", "revision", s.revision)
		return nil
	}
	if r.waitingRevision != s.revision {
		r.waitingRevision, r.waitingSince = s.revision, time.Now()
	}
	// Once one revision was not run in time, the next is not waited for
	// again: kube-apiserver runs no policy of ours until one is seen in
	// force.
	s.notInForce = r.stalled || time.Since(r.waitingSince) > notInForceAfter
	r.stalled = s.notInForce
	return nil
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
// a policy without them, or when it runs no policy at all (the API is not
// served, the policy or its binding is missing, or a stored policy is not
// run after notInForceAfter). A refused update keeps them: the policy
// stored before may still route them.
func (r *profileRouteReconciler) release(ctx context.Context, s *routesScope) error {
	missing := s.refusal != nil && s.refusal.reason == v1alpha1.ReasonAdmissionPolicyMissing
	if !s.inForce && s.unavail == "" && !s.notInForce && !missing {
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
// serve) and namespaces (their labels) all reconcile the one request.
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
		WithOptions(ctrlOptions(1))
	if r.Namespaces != nil {
		b = b.WatchesRawSource(&source.Informer{Informer: r.Namespaces.Informer(), Handler: all})
	} else {
		b = b.Watches(&corev1.Namespace{}, all)
	}
	return b.Complete(r)
}
