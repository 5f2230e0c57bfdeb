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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// profileFinalizer keeps a SchedulerProfile until its framework stopped
// serving.
const profileFinalizer = "scheduling.profilescheduler.io/profile"

// schedulerProfileReconciler applies SchedulerProfile objects to a
// scheduler.ProfileSet.
//
// It runs one reconcile at a time: a schedulerName moves between profiles
// only through Apply and Remove calls made in order, and servedNames
// records who serves what in between.
type schedulerProfileReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// Profiles is the scheduler's live profile set.
	Profiles scheduler.ProfileSet
	// Rollouts serves the generations a rollout takes through its steps;
	// nil: every generation goes live at once.
	Rollouts scheduler.Rollouts
	// Loops tells the state of the profiles' scheduling loops, reported
	// in status.loop; nil: not reported.
	Loops scheduler.Loops
	// Recorder emits Activated, Refused and Removed events.
	Recorder events.EventRecorder
	// AllowDefaultScheduler lets a profile serve default-scheduler.
	AllowDefaultScheduler bool
	// Plugins describes the scheduler's out-of-tree plugins.
	Plugins Plugins
	// ExtenderSecretsNamespace is the only namespace extender Secrets are
	// read from (Options.ExtenderSecretsNamespace).
	ExtenderSecretsNamespace string
	// HistoryNamespace is where the profiles' histories are kept (the
	// operator's namespace), read through APIReader; either unset: no
	// history (schedulerprofile_history.go).
	HistoryNamespace string
	APIReader        client.Reader
	// Metrics answers the queries of spec.rollout.analysis.metrics; nil:
	// a rollout with such metrics is refused (PrometheusNotConfigured).
	Metrics MetricsQuerier

	// elected, when set, is closed once this replica leads; until then
	// the replica is a standby and reports ready.
	elected   <-chan struct{}
	served    *servedNames
	refusals  *refusalMemory
	startup   *startupTracker
	displaced chan event.GenericEvent
	now       func() metav1.Time
	runs      rolloutRuns
}

// profileScope carries one reconcile through its phases.
type profileScope struct {
	// profile as read; base is the copy status patches are computed from.
	profile *v1alpha1.SchedulerProfile
	base    *v1alpha1.SchedulerProfile
	// name is the schedulerName the generation claims.
	name string
	// extenders resolved from spec.extenders, in order.
	extenders []config.Extender
	resolved  []v1alpha1.ResolvedExtender
	// upstream is the converted, defaulted and validated profile.
	upstream *config.KubeSchedulerProfile
	// fingerprint identifies what the generation's framework is built
	// from (skipUnchanged).
	fingerprint string
	// refusal is set when the generation cannot serve.
	refusal *Refusal
	// decided is set once the outcome of the generation is known: status
	// is written only then.
	decided bool
	// rollout is set when the generation goes through spec.rollout
	// (progressRollout).
	rollout *rolloutOutcome
	// requeueAfter asks for the next reconcile (a rollout in progress).
	requeueAfter time.Duration
}

func newProfileScope(sp *v1alpha1.SchedulerProfile) *profileScope {
	return &profileScope{profile: sp, base: sp.DeepCopy(), name: sp.EffectiveSchedulerName()}
}

// refuse decides the outcome of the generation: it cannot serve, for
// the reason r gives.
func (s *profileScope) refuse(r *Refusal) {
	s.refusal, s.decided = r, true
}

// profilePhase is one step of a reconcile. It decides the outcome (s.refuse,
// or s.decided once live or rolling out), or leaves it to the next phase;
// an error is a read or write that may pass on retry.
type profilePhase func(ctx context.Context, s *profileScope) error

// runPhases runs phases in order until one fails or decides the outcome of
// the generation.
func runPhases(ctx context.Context, s *profileScope, phases ...profilePhase) error {
	for _, phase := range phases {
		if err := phase(ctx, s); err != nil {
			return err
		}
		if s.refusal != nil || s.decided {
			return nil
		}
	}
	return nil
}

// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulerprofiles,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulerprofiles/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulerprofiles/finalizers,verbs=update
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=extenderconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile fetches the profile, handles its deletion, then reconciles the
// latest generation (reconcileNormal). Once a profile has been reconciled
// without error, the readiness check counts it as done.
func (r *schedulerProfileReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	after, err := r.reconcile(ctx, req)
	if err == nil {
		r.startup.done(req.Name)
	}
	return ctrl.Result{RequeueAfter: after}, err
}

func (r *schedulerProfileReconciler) reconcile(ctx context.Context, req ctrl.Request) (time.Duration, error) {
	sp := &v1alpha1.SchedulerProfile{}
	if err := r.Client.Get(ctx, req.NamespacedName, sp); err != nil {
		if apierrors.IsNotFound(err) {
			r.stopServing(ctx, req.Name, nil)
			r.refusals.forget(req.Name)
			forgetProfileSeries(req.Name)
			return 0, nil
		}
		return 0, err
	}
	if !sp.DeletionTimestamp.IsZero() {
		return 0, r.reconcileDelete(ctx, sp)
	}
	if !controllerutil.ContainsFinalizer(sp, profileFinalizer) {
		base := sp.DeepCopy()
		controllerutil.AddFinalizer(sp, profileFinalizer)
		if err := r.Client.Patch(ctx, sp, client.MergeFrom(base)); err != nil {
			return 0, fmt.Errorf("adding finalizer: %w", err)
		}
	}
	if undone, err := r.followUndo(ctx, sp); undone || err != nil {
		return 0, err
	}
	s := newProfileScope(sp)
	err := r.reconcileNormal(ctx, s)
	return s.requeueAfter, err
}

// reconcileNormal runs the named phases in order; the first that decides
// the outcome ends the run, and after a refusal the last known good
// generation is restored when nothing of the object serves. The outcome is then
// reported (report: metrics, events, refusal memory). Status is written
// once, from the deferred call: the status of the decided outcome, or
// Reconciling=True when the outcome is not decided in this run (an error,
// a retry).
func (r *schedulerProfileReconciler) reconcileNormal(ctx context.Context, s *profileScope) (retErr error) {
	defer func() {
		if err := r.patchStatus(ctx, s); err != nil {
			retErr = errors.Join(retErr, err)
		}
	}()
	if err := runPhases(ctx, s, r.claimName, r.resolveExtenders, r.convert, r.skipUnchanged, r.progressRollout, r.apply); err != nil {
		return err
	}
	if s.refusal != nil {
		if err := r.restoreLastGood(ctx, s); err != nil {
			return err
		}
	}
	r.report(ctx, s)
	return nil
}

// restoreLastGood applies status.activeSpec, the spec of the generation
// that served before this process started, when the latest generation is
// refused and nothing of this object serves yet: after an operator
// restart, the last known good generation serves again instead of
// nothing. It runs the same phases as a new generation. When the last
// good spec cannot serve either, the refusal of the latest generation
// stands and status says that no generation serves.
func (r *schedulerProfileReconciler) restoreLastGood(ctx context.Context, s *profileScope) error {
	sp, st := s.profile, s.base.Status
	if st.ActiveSpec == nil || st.ActiveGeneration == 0 || st.ActiveGeneration == sp.Generation {
		return nil
	}
	if _, ok := r.served.get(sp.Name); ok {
		return nil
	}
	return r.restoreActive(ctx, s)
}

// restoreActive applies status.activeSpec, the spec of the generation
// that served before this process started: after a refusal
// (restoreLastGood), or before a rollout resumes (the rollout's serving
// generation).
func (r *schedulerProfileReconciler) restoreActive(ctx context.Context, s *profileScope) error {
	sp, st := s.profile, s.base.Status
	last := sp.DeepCopy()
	last.Generation = st.ActiveGeneration
	last.Spec = *st.ActiveSpec.DeepCopy()
	ls := newProfileScope(last)
	logger := log.FromContext(ctx).WithValues("generation", last.Generation, "refusedGeneration", sp.Generation)
	if err := runPhases(ctx, ls, r.claimName, r.resolveExtenders, r.convert); err != nil {
		// Not decided: status keeps the last good spec for the retry.
		s.decided = false
		return fmt.Errorf("restoring generation %d: %w", last.Generation, err)
	}
	if ls.refusal != nil {
		logger.Info("Last known good generation cannot serve", "reason", ls.refusal.Reason, "message", ls.refusal.Message)
		return nil
	}
	fp, err := fingerprint(last.Generation, ls.name, ls.extenders)
	if err != nil {
		s.decided = false
		return reconcile.TerminalError(err)
	}
	if refusal := r.swapIn(ctx, ls, fp); refusal != nil {
		logger.Info("Last known good generation cannot serve", "reason", refusal.Reason, "message", refusal.Message)
		return nil
	}
	logger.Info("Last known good generation restored", "schedulerName", ls.name)
	return nil
}

// markReconciling writes Reconciling=True for a generation whose outcome
// is not decided yet, once.
func (r *schedulerProfileReconciler) markReconciling(ctx context.Context, s *profileScope) error {
	sp := s.profile
	if sp.Status.ObservedGeneration == sp.Generation {
		return nil
	}
	if c := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReconciling); c != nil &&
		c.Status == metav1.ConditionTrue && c.ObservedGeneration == sp.Generation {
		return nil
	}
	sp.Status = markReconciling(s.base.Status, sp.Generation, r.now())
	if err := r.Client.Status().Patch(ctx, sp, client.MergeFrom(s.base)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("marking generation %d reconciling: %w", sp.Generation, err)
	}
	return nil
}

// claimName refuses default-scheduler unless allowed, and a schedulerName
// that an older profile claims.
func (r *schedulerProfileReconciler) claimName(ctx context.Context, s *profileScope) error {
	if s.name == corev1.DefaultSchedulerName && !r.AllowDefaultScheduler {
		s.refuse(defaultSchedulerRefusal())
		return nil
	}
	var claimers v1alpha1.SchedulerProfileList
	if err := r.Client.List(ctx, &claimers, client.MatchingFields{indexSchedulerName: s.name}); err != nil {
		return fmt.Errorf("listing profiles claiming %q: %w", s.name, err)
	}
	if owner := nameOwner(claimers.Items); owner != nil && owner.Name != s.profile.Name {
		s.refuse(nameConflictRefusal(s.name, owner.Name))
	}
	return nil
}

// resolveExtenders reads the ExtenderConfig objects the profile names and
// the Secrets they read, into upstream extenders with inline TLS material.
func (r *schedulerProfileReconciler) resolveExtenders(ctx context.Context, s *profileScope) error {
	for i, name := range s.profile.Spec.Extenders {
		ec, ext, refusal, err := resolveExtender(ctx, r.Client, name, r.ExtenderSecretsNamespace)
		if err != nil {
			return err
		}
		if ec == nil {
			s.refuse(extenderRefusal(i, name, nil))
			return nil
		}
		if refusal != nil {
			s.refuse(extenderRefusal(i, name, refusal))
			return nil
		}
		s.extenders = append(s.extenders, ext)
		s.resolved = append(s.resolved, v1alpha1.ResolvedExtender{Name: name, URLPrefix: ext.URLPrefix, Generation: ec.Generation})
	}
	return nil
}

// convert runs the upstream conversion, defaulting and validation, then
// checks that every pluginConfig entry names a registered plugin and that
// out-of-tree args pass their validator.
func (r *schedulerProfileReconciler) convert(_ context.Context, s *profileScope) error {
	prof, refusal := r.Plugins.convert(s.profile, s.extenders)
	if refusal != nil {
		s.refuse(refusal)
		return nil
	}
	s.upstream = prof
	return nil
}

// skipUnchanged fingerprints what the generation's framework is built
// from, and decides the generation as it is when the framework that
// serves was built from the same inputs.
func (r *schedulerProfileReconciler) skipUnchanged(_ context.Context, s *profileScope) error {
	fp, err := fingerprint(s.profile.Generation, s.name, s.extenders)
	if err != nil {
		return reconcile.TerminalError(err)
	}
	s.fingerprint = fp
	if cur, ok := r.served.get(s.profile.Name); ok && cur.Fingerprint == fp && r.Profiles.Serving(s.name) {
		s.decided = true
	}
	return nil
}

// apply swaps the generation in at once (it goes through no rollout). A
// build failure refuses the generation and leaves the serving framework
// in place.
func (r *schedulerProfileReconciler) apply(ctx context.Context, s *profileScope) error {
	sp, fp := s.profile, s.fingerprint
	r.dropRollout(sp.Name)
	if refusal := r.refusals.buildRefused(sp.Name, fp); refusal != nil {
		s.refuse(refusal)
		return nil
	}
	if refusal := r.swapIn(ctx, s, fp); refusal != nil {
		s.refuse(refusal)
		r.refusals.noteBuildRefused(sp.Name, fp, refusal)
		return nil
	}
	s.decided = true
	return nil
}

// swapIn builds the framework of the converted generation in s and swaps
// it in, recording what the object now serves. A build failure leaves the
// serving framework in place and is returned as a refusal.
func (r *schedulerProfileReconciler) swapIn(ctx context.Context, s *profileScope, fp string) *Refusal {
	sp := s.profile
	applied, err := r.Profiles.Apply(ctx, scheduler.Profile{Config: *s.upstream, Extenders: s.extenders, Generation: sp.Generation})
	if err != nil {
		return buildRefusal(err)
	}
	oldName, displaced := r.served.set(sp.Name, servedProfile{
		SchedulerName: s.name,
		Generation:    sp.Generation,
		Fingerprint:   fp,
		Status:        profileOutcome{Plugins: applied.Plugins, Extenders: s.resolved, ActiveSpec: sp.Spec.DeepCopy()},
	})
	if oldName != "" {
		r.Profiles.Remove(ctx, oldName)
	}
	if displaced != "" {
		r.notify(ctx, displaced)
	}
	r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventActivated, "Apply",
		"generation %d serves pods with schedulerName %q", sp.Generation, s.name)
	for _, w := range profileWarnings(sp.Spec.PluginConfig, applied.Plugins) {
		r.Recorder.Eventf(sp, nil, corev1.EventTypeWarning, w.reason, "Apply", "generation %d: %s", sp.Generation, w.message)
	}
	log.FromContext(ctx).Info("Profile live", "schedulerName", s.name, "generation", sp.Generation)
	r.recordRevision(ctx, sp)
	return nil
}

// reconcileDelete stops serving and lets the object go.
func (r *schedulerProfileReconciler) reconcileDelete(ctx context.Context, sp *v1alpha1.SchedulerProfile) error {
	r.stopServing(ctx, sp.Name, sp)
	if controllerutil.ContainsFinalizer(sp, profileFinalizer) {
		base := sp.DeepCopy()
		controllerutil.RemoveFinalizer(sp, profileFinalizer)
		if err := r.Client.Patch(ctx, sp, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing finalizer: %w", err)
		}
	}
	r.refusals.forget(sp.Name)
	forgetProfileSeries(sp.Name)
	return nil
}

// stopServing removes the name object serves, if it still serves one.
func (r *schedulerProfileReconciler) stopServing(ctx context.Context, object string, sp *v1alpha1.SchedulerProfile) {
	r.dropRollout(object)
	name, ok := r.served.release(object)
	if !ok {
		return
	}
	r.Profiles.Remove(ctx, name)
	log.FromContext(ctx).Info("Profile removed", "schedulerName", name)
	if sp != nil {
		r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRemoved, "Remove",
			"schedulerName %q is no longer served by this profile", name)
	}
}

// fingerprint identifies what a framework is built from.
func fingerprint(generation int64, name string, extenders []config.Extender) (string, error) {
	data, err := json.Marshal(struct {
		Generation int64
		Name       string
		Extenders  []config.Extender
	}{generation, name, extenders})
	if err != nil {
		return "", fmt.Errorf("fingerprinting extenders: %w", err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
