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
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// notReadyRetry is how soon a review is retried while the scheduler is
// not running yet.
const notReadyRetry = time.Second

// schedulingReviewReconciler answers each SchedulingReview once, with the
// scheduler's Review, and deletes it ttlSecondsAfterFinished after.
type schedulingReviewReconciler struct {
	// Client reads reviews, profiles and extenders and writes review
	// status.
	Client client.Client
	// Reviewer runs the reviews.
	Reviewer review.Reviewer
	// Plugins and ExtenderSecretsNamespace: as Options, so a draft is
	// checked as a SchedulerProfile of the same spec would be.
	Plugins                  Plugins
	ExtenderSecretsNamespace string

	// Timeout bounds one answer (Options.ReviewTimeout).
	Timeout time.Duration
	// Concurrency is how many reviews are answered at once
	// (Options.ReviewConcurrency).
	Concurrency int
	// instance names this operator process in the Answering condition.
	instance string
	now      func() metav1.Time
}

// restartedMessage is the message of a review an operator process was
// answering when it went away.
const restartedMessage = "the operator restarted while answering this review; it is not answered again (a review that takes the operator down would do it again): create it anew to ask again"

// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulingreviews,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulingreviews/status,verbs=get;update;patch

// Reconcile answers a review that has no answer yet, and deletes a
// finished one once its TTL passed. The status of a finished review is
// never written again.
func (r *schedulingReviewReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	sr := &v1alpha1.SchedulingReview{}
	if err := r.Client.Get(ctx, req.NamespacedName, sr); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !sr.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	if sr.Finished() {
		return r.expire(ctx, sr)
	}
	var outcome reviewOutcome
	var err error
	if c := meta.FindStatusCondition(sr.Status.Conditions, v1alpha1.ConditionAnswering); c != nil && c.Status == metav1.ConditionTrue && c.Message != r.answeringMessage() {
		// Another process was answering it when it went away.
		outcome = failed(v1alpha1.ReasonOperatorRestarted, restartedMessage)
	} else {
		if err := r.markAnswering(ctx, sr); err != nil {
			if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
				return reconcile.Result{}, nil
			}
			return reconcile.Result{}, fmt.Errorf("marking the review answered: %w", err)
		}
		outcome, err = r.answer(ctx, sr)
	}
	if errors.Is(err, review.ErrNotReady) {
		return reconcile.Result{RequeueAfter: notReadyRetry}, nil
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	// An update of the version read rather than a merge patch: the API
	// server spends less on it, and a review changed meanwhile (a label)
	// comes back through the watch and is answered then.
	sr.Status = reviewStatus(sr, outcome, r.now())
	if err := r.Client.Status().Update(ctx, sr); err != nil {
		if apierrors.IsConflict(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("writing the answer: %w", err)
	}
	countReview(sr, outcome)
	log.FromContext(ctx).V(1).Info("Review answered", "failed", outcome.failure != nil)
	return reconcile.Result{RequeueAfter: ttl(sr)}, nil
}

// answeringMessage is the Answering condition's message of this process.
func (r *schedulingReviewReconciler) answeringMessage() string {
	return "answered by operator process " + r.instance
}

// markAnswering records, before the answer starts, that this process
// answers sr: if it goes away meanwhile, the next one answers the review
// Failed instead of starting it again.
func (r *schedulingReviewReconciler) markAnswering(ctx context.Context, sr *v1alpha1.SchedulingReview) error {
	if c := meta.FindStatusCondition(sr.Status.Conditions, v1alpha1.ConditionAnswering); c != nil && c.Message == r.answeringMessage() {
		return nil
	}
	setCondition(&sr.Status.Conditions, sr.Generation, v1alpha1.ConditionAnswering, metav1.ConditionTrue, v1alpha1.ReasonAnswering, r.answeringMessage(), r.now())
	return r.Client.Status().Update(ctx, sr)
}

// expire deletes a finished review once its TTL passed.
func (r *schedulingReviewReconciler) expire(ctx context.Context, sr *v1alpha1.SchedulingReview) (reconcile.Result, error) {
	finished := finishedAt(sr)
	left := finished.Add(ttl(sr)).Sub(r.now().Time)
	if left > 0 {
		return reconcile.Result{RequeueAfter: left}, nil
	}
	if err := r.Client.Delete(ctx, sr, client.Preconditions{UID: &sr.UID}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return reconcile.Result{}, fmt.Errorf("deleting expired review: %w", err)
	}
	return reconcile.Result{}, nil
}

// reviewQuestion is one question a SchedulingReview asks (the schema lets
// it ask exactly one), adapted between the API and the scheduler: a pod
// (schedulingreview_pod.go), a pod group (schedulingreview_podgroup.go),
// the pending pods (schedulingreview_whatif.go) or a capacity scenario
// (schedulingreview_scenario.go).
type reviewQuestion interface {
	// request sets the question in req; a spec that cannot be asked is a
	// refusal naming the field at fault.
	request(sr *v1alpha1.SchedulingReview, now metav1.Time, req *review.Request) *Refusal
	// answer writes the scheduler's answer into its part of st and
	// returns its words for the Complete condition.
	answer(sr *v1alpha1.SchedulingReview, r *review.Answer, st *v1alpha1.SchedulingReviewStatus) string
	// notFound is the message of an error saying that what the question
	// names (a pod, a pod group, the profile serving them) is not there,
	// naming the field.
	notFound(sr *v1alpha1.SchedulingReview, err error) string
}

// questionOf is the question spec asks.
func questionOf(spec v1alpha1.SchedulingReviewSpec) reviewQuestion {
	switch {
	case spec.Scenario != nil:
		return scenarioQuestion{}
	case spec.PendingPods:
		return pendingQuestion{}
	case spec.PodGroupName != "":
		return groupQuestion{}
	}
	return podQuestion{}
}

// answer resolves the profile of the review, then asks its question. A
// review that cannot be answered gets a failure naming the field at fault;
// only transient errors are returned.
func (r *schedulingReviewReconciler) answer(ctx context.Context, sr *v1alpha1.SchedulingReview) (reviewOutcome, error) {
	spec := sr.Spec
	var out reviewOutcome
	// Status lists the scores of the first maxNodes feasible nodes only.
	req := review.Request{ScoredNodes: maxNodes(sr)}

	switch {
	case spec.Profile != "" && spec.ProfileSpec != nil:
		return failed(v1alpha1.ReasonInvalidReview, "spec.profile and spec.profileSpec: set at most one"), nil
	case spec.ProfileSpec != nil:
		draft, refusal, err := r.draft(ctx, sr)
		if err != nil {
			return out, err
		}
		if refusal != nil {
			return failed(refusal.Reason, draftMessage(refusal.Message)), nil
		}
		req.Draft = draft
		out.draft = true
	case spec.Profile != "":
		sp := &v1alpha1.SchedulerProfile{}
		if err := r.Client.Get(ctx, types.NamespacedName{Name: spec.Profile}, sp); err != nil {
			if apierrors.IsNotFound(err) {
				return failed(v1alpha1.ReasonProfileNotFound, fmt.Sprintf("spec.profile: SchedulerProfile %q not found", spec.Profile)), nil
			}
			return out, err
		}
		if sp.Status.ActiveGeneration == 0 || sp.Status.SchedulerName == "" {
			return failed(v1alpha1.ReasonProfileNotServing, fmt.Sprintf("spec.profile: SchedulerProfile %q serves no generation (see its Ready condition)", spec.Profile)), nil
		}
		req.SchedulerName = sp.Status.SchedulerName
		out.profile, out.generation = sp.Name, sp.Status.ActiveGeneration
	}

	q := questionOf(spec)
	if refusal := q.request(sr, r.now(), &req); refusal != nil {
		return failed(refusal.Reason, refusal.Message), nil
	}

	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultReviewTimeout
	}
	reviewCtx, cancel := context.WithTimeout(ctx, timeout)
	rev, err := r.Reviewer.Review(reviewCtx, req)
	cancel()
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return failed(v1alpha1.ReasonReviewTimeout, fmt.Sprintf("the answer took longer than the operator's --review-timeout of %s and was stopped%s", timeout, computed(rev))), nil
	}
	var buildErr *review.BuildError
	if se, ok := review.IsScenarioError(err); ok {
		return scenarioFailure(se), nil
	}
	switch {
	case errors.Is(err, review.ErrNotReady):
		return out, err
	case errors.Is(err, review.ErrPodNotFound):
		return failed(v1alpha1.ReasonPodNotFound, q.notFound(sr, err)), nil
	case errors.Is(err, review.ErrPodGroupNotFound):
		return failed(v1alpha1.ReasonPodGroupNotFound, q.notFound(sr, err)), nil
	case errors.Is(err, review.ErrNotServing):
		if spec.Profile != "" {
			return failed(v1alpha1.ReasonProfileNotServing, "spec.profile: "+err.Error()), nil
		}
		return failed(v1alpha1.ReasonProfileNotServing, q.notFound(sr, err)), nil
	case errors.As(err, &buildErr):
		refusal := buildRefusal(buildErr.Err)
		if !out.draft {
			return failed(refusal.Reason, "spec.profile: "+refusal.Message), nil
		}
		return failed(refusal.Reason, draftMessage(refusal.Message)), nil
	case err != nil:
		return failed(v1alpha1.ReasonEvaluationFailed, err.Error()), nil
	}
	out.review = rev
	if out.profile == "" && !out.draft {
		out.profile, out.generation, err = r.servingProfile(ctx, rev.SchedulerName)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// computed says what a review stopped at its deadline had computed.
func computed(a *review.Answer) string {
	if a == nil {
		return "; nothing was computed yet"
	}
	if sc := a.Scenario; sc != nil && sc.Minimize != nil && len(sc.Minimize.Tried) > 0 {
		tried := make([]string, 0, len(sc.Minimize.Tried))
		for _, t := range sc.Minimize.Tried {
			tried = append(tried, fmt.Sprintf("%d nodes left %d pods unplaced", t.Count, t.Unplaced))
		}
		return "; minimize had tried: " + strings.Join(tried, ", ")
	}
	return fmt.Sprintf("; it had taken a snapshot of %s", plural(a.SnapshotNodes, "node"))
}

// draft converts spec.profileSpec as a SchedulerProfile of the same spec
// would be: its extenders resolved, then the upstream conversion,
// defaulting and validation.
func (r *schedulingReviewReconciler) draft(ctx context.Context, sr *v1alpha1.SchedulingReview) (*scheduler.Profile, *Refusal, error) {
	name := sr.Spec.SchedulerName
	if name == "" {
		name = sr.Name
	}
	sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: *sr.Spec.ProfileSpec.DeepCopy()}
	var extenders []config.Extender
	for i, ref := range sp.Spec.Extenders {
		ec, ext, refusal, err := resolveExtender(ctx, r.Client, ref, r.ExtenderSecretsNamespace)
		if err != nil {
			return nil, nil, err
		}
		if ec == nil {
			return nil, extenderRefusal(i, ref, nil), nil
		}
		if refusal != nil {
			return nil, extenderRefusal(i, ref, refusal), nil
		}
		extenders = append(extenders, ext)
	}
	prof, refusal := r.Plugins.convert(sp, extenders)
	if refusal != nil {
		return nil, refusal, nil
	}
	return &scheduler.Profile{Config: *prof, Extenders: extenders}, nil, nil
}

// servingProfile names the SchedulerProfile, and its generation, that
// serves schedulerName.
func (r *schedulingReviewReconciler) servingProfile(ctx context.Context, schedulerName string) (string, int64, error) {
	var list v1alpha1.SchedulerProfileList
	if err := r.Client.List(ctx, &list, client.MatchingFields{indexSchedulerName: schedulerName}); err != nil {
		return "", 0, err
	}
	for _, sp := range list.Items {
		if sp.Status.SchedulerName == schedulerName && sp.Status.ActiveGeneration > 0 {
			return sp.Name, sp.Status.ActiveGeneration, nil
		}
	}
	return "", 0, nil
}

// draftMessage is the message of a SchedulerProfile refusal with its
// field paths under spec.profileSpec.
func draftMessage(msg string) string {
	return "spec.profileSpec: " + strings.ReplaceAll(msg, "spec.", "spec.profileSpec.")
}

func ttl(sr *v1alpha1.SchedulingReview) time.Duration {
	if sr.Spec.TTLSecondsAfterFinished == nil {
		return 600 * time.Second
	}
	return time.Duration(*sr.Spec.TTLSecondsAfterFinished) * time.Second
}

// setupWithManager registers the reconciler. Reviews are answered up to
// Concurrency at a time, each on a snapshot of its own (package review
// keeps as many as were answered at once), a scenario only while it
// plans.
func (r *schedulingReviewReconciler) setupWithManager(mgr manager.Manager) error {
	if r.now == nil {
		r.now = metav1.Now
	}
	if r.instance == "" {
		r.instance = string(uuid.NewUUID())
	}
	registerReviewMetricsOnControllerRuntime()
	return ctrl.ControllerManagedBy(mgr).
		Named("schedulingreview").
		For(&v1alpha1.SchedulingReview{}).
		WithOptions(ctrlOptions(max(r.Concurrency, 1))).
		Complete(r)
}

// SetupReviews registers the SchedulingReview reconciler on mgr, answering
// with reviewer. The field indexes of Setup must exist.
func SetupReviews(mgr manager.Manager, reviewer review.Reviewer, opts Options) error {
	if reviewer == nil {
		return errors.New("controllers.SetupReviews: nil Reviewer")
	}
	return (&schedulingReviewReconciler{
		Client:                   mgr.GetClient(),
		Reviewer:                 reviewer,
		Plugins:                  opts.Plugins,
		ExtenderSecretsNamespace: secretsNamespace(opts.ExtenderSecretsNamespace),
		Timeout:                  opts.ReviewTimeout,
		Concurrency:              cmp.Or(opts.ReviewConcurrency, DefaultReviewConcurrency),
	}).setupWithManager(mgr)
}
