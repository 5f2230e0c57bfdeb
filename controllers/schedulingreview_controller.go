package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/decode"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
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
	Reviewer scheduler.Reviewer
	// Plugins and ExtenderSecretsNamespace: as Options, so a draft is
	// checked as a SchedulerProfile of the same spec would be.
	Plugins                  Plugins
	ExtenderSecretsNamespace string

	now func() metav1.Time
}

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
	outcome, err := r.answer(ctx, sr)
	if errors.Is(err, scheduler.ErrNotReady) {
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
	log.FromContext(ctx).V(1).Info("Review answered", "failed", outcome.failure != nil)
	return reconcile.Result{RequeueAfter: ttl(sr)}, nil
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

// answer resolves the profile and the pod of the review and runs it. A
// review that cannot be answered gets a failure naming the field at fault;
// only transient errors are returned.
func (r *schedulingReviewReconciler) answer(ctx context.Context, sr *v1alpha1.SchedulingReview) (reviewOutcome, error) {
	spec := sr.Spec
	var out reviewOutcome
	// Status lists the scores of the first maxNodes feasible nodes only.
	req := scheduler.ReviewRequest{PendingPods: spec.PendingPods, PendingSchedulerName: spec.SchedulerName, ScoredNodes: maxNodes(sr)}

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

	// --- capacity scenarios (schedulingreview_scenario.go) ---
	if spec.Scenario != nil {
		if spec.Profile == "" && spec.ProfileSpec == nil {
			return failed(v1alpha1.ReasonInvalidReview, "spec.scenario needs spec.profile or spec.profileSpec"), nil
		}
		sc, errs := scenarioRequest(sr, r.now())
		if len(errs) > 0 {
			return failed(v1alpha1.ReasonInvalidScenario, errs.ToAggregate().Error()), nil
		}
		req.Scenario = sc
	}
	// --- end of capacity scenarios ---

	switch {
	case spec.PendingPods || spec.Scenario != nil:
	// --- pod groups
	case spec.PodGroupName != "":
		req.PodNamespace, req.PodGroupName = sr.Namespace, spec.PodGroupName
	// --- end pod groups
	case spec.PodTemplate != nil:
		pod, errs := templatePod(sr, r.now())
		if len(errs) > 0 {
			return failed(v1alpha1.ReasonInvalidPodTemplate, errs.ToAggregate().Error()), nil
		}
		req.Pod = pod
	default:
		req.PodNamespace, req.PodName = sr.Namespace, spec.PodName
	}

	rev, err := r.Reviewer.Review(ctx, req)
	var buildErr *scheduler.BuildError
	if se, ok := scheduler.IsScenarioError(err); ok {
		return scenarioFailure(se), nil
	}
	switch {
	case errors.Is(err, scheduler.ErrNotReady):
		return out, err
	case errors.Is(err, scheduler.ErrPodNotFound):
		return failed(v1alpha1.ReasonPodNotFound, fmt.Sprintf("spec.podName: no pod %q in namespace %q that is pending or running", spec.PodName, sr.Namespace)), nil
	// --- pod groups
	case errors.Is(err, scheduler.ErrPodGroupNotFound):
		field := "spec.podGroupName"
		if spec.PodGroupName == "" {
			field = "spec.podName"
		}
		return failed(v1alpha1.ReasonPodGroupNotFound, fmt.Sprintf("%s: %v", field, err)), nil
	// --- end pod groups
	case errors.Is(err, scheduler.ErrNotServing):
		field := "spec.profile"
		if spec.Profile == "" {
			field = "spec.podName"
			if spec.PodGroupName != "" {
				field = "spec.podGroupName"
			}
		}
		return failed(v1alpha1.ReasonProfileNotServing, fmt.Sprintf("%s: %v", field, err)), nil
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

// templatePod is spec.podTemplate as a pod created now in the review's
// namespace, with the defaults the API server would give it. A spec that
// does not decode as a PodSpec gives the errors, each naming its field.
func templatePod(sr *v1alpha1.SchedulingReview, now metav1.Time) (*corev1.Pod, field.ErrorList) {
	t := sr.Spec.PodTemplate
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         sr.Namespace,
			Name:              sr.Name,
			UID:               sr.UID,
			Labels:            t.Labels,
			Annotations:       t.Annotations,
			CreationTimestamp: now,
		},
	}
	if errs := decode.Strict(t.Spec.Raw, &pod.Spec, field.NewPath("spec", "podTemplate", "spec")); len(errs) > 0 {
		return nil, errs
	}
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = corev1.DefaultSchedulerName
	}
	return pod, nil
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

// setupWithManager registers the reconciler. Reviews are answered one at
// a time: each filters every node (a draft also builds its framework).
func (r *schedulingReviewReconciler) setupWithManager(mgr manager.Manager) error {
	if r.now == nil {
		r.now = metav1.Now
	}
	return ctrl.ControllerManagedBy(mgr).
		Named("schedulingreview").
		For(&v1alpha1.SchedulingReview{}).
		WithOptions(ctrlOptions(1)).
		Complete(r)
}

// SetupReviews registers the SchedulingReview reconciler on mgr, answering
// with reviewer. The field indexes of Setup must exist.
func SetupReviews(mgr manager.Manager, reviewer scheduler.Reviewer, opts Options) error {
	if reviewer == nil {
		return errors.New("controllers.SetupReviews: nil Reviewer")
	}
	return (&schedulingReviewReconciler{
		Client:                   mgr.GetClient(),
		Reviewer:                 reviewer,
		Plugins:                  opts.Plugins,
		ExtenderSecretsNamespace: secretsNamespace(opts.ExtenderSecretsNamespace),
	}).setupWithManager(mgr)
}
