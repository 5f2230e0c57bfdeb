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
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// The history of a profile: the specs that served, kept as upstream keeps
// a Deployment's, in ControllerRevisions (one per distinct spec, the
// newest revision number the latest to serve), owned by the profile so
// that they go with it, in the operator's namespace (a ControllerRevision
// is namespaced; the profile is not), at most spec.revisionHistoryLimit of
// them. What is kept is the scheduling policy: the spec without
// spec.rollout and spec.revisionHistoryLimit, which say how a change goes
// live and are kept as they are by an undo.

// The Role for controllerrevisions is written by hand
// (config/rbac/history_role.yaml, the chart's <fullname>-history): it is
// in the operator's own namespace, which the markers cannot tell from the
// extender-secrets namespace.

// recordRevision keeps the spec of sp, which serves now, as the newest
// revision of its history, and trims the history to its limit. A failure
// is logged: the history is a convenience, never a reason not to serve.
func (r *schedulerProfileReconciler) recordRevision(ctx context.Context, sp *v1alpha1.SchedulerProfile) {
	if r.HistoryNamespace == "" || r.APIReader == nil {
		return
	}
	if err := r.recordRevisionErr(ctx, sp); err != nil {
		log.FromContext(ctx).Error(err, "Keeping the spec in the profile's history failed", "generation", sp.Generation)
	}
}

func (r *schedulerProfileReconciler) recordRevisionErr(ctx context.Context, sp *v1alpha1.SchedulerProfile) error {
	data, hash, err := policyOf(&sp.Spec)
	if err != nil {
		return err
	}
	revs, err := r.revisions(ctx, sp.Name)
	if err != nil {
		return err
	}
	next := int64(1)
	if len(revs) > 0 {
		next = revs[len(revs)-1].Revision + 1
	}
	annotations := map[string]string{
		v1alpha1.AnnotationRevisionGeneration: strconv.FormatInt(sp.Generation, 10),
		v1alpha1.AnnotationRevisionChangedBy:  specManager(sp),
	}
	name := revisionName(sp.Name, hash)
	if i := slices.IndexFunc(revs, func(cr appsv1.ControllerRevision) bool { return cr.Name == name }); i >= 0 {
		cr := revs[i].DeepCopy()
		if i == len(revs)-1 && cr.Annotations[v1alpha1.AnnotationRevisionGeneration] == annotations[v1alpha1.AnnotationRevisionGeneration] {
			return r.trimHistory(ctx, sp, revs)
		}
		// The same spec serves again (an undo): it becomes the newest.
		cr.Revision = next
		cr.Annotations = annotations
		if err := r.Client.Update(ctx, cr); err != nil {
			return fmt.Errorf("renumbering revision %s: %w", cr.Name, err)
		}
		revs[i] = *cr
		slices.SortFunc(revs, func(a, b appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
		return r.trimHistory(ctx, sp, revs)
	}
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: r.HistoryNamespace,
			Labels:      map[string]string{v1alpha1.LabelProfile: sp.Name},
			Annotations: annotations,
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: next,
	}
	if err := controllerutil.SetOwnerReference(sp, cr, r.Client.Scheme()); err != nil {
		return err
	}
	if err := r.Client.Create(ctx, cr); err != nil {
		return fmt.Errorf("creating revision %s: %w", cr.Name, err)
	}
	return r.trimHistory(ctx, sp, append(revs, *cr))
}

// trimHistory deletes the oldest revisions of revs (sorted by revision)
// beyond spec.revisionHistoryLimit.
func (r *schedulerProfileReconciler) trimHistory(ctx context.Context, sp *v1alpha1.SchedulerProfile, revs []appsv1.ControllerRevision) error {
	limit := v1alpha1.DefaultRevisionHistoryLimit
	if sp.Spec.RevisionHistoryLimit != nil {
		limit = int(*sp.Spec.RevisionHistoryLimit)
	}
	for i := 0; i < len(revs)-limit; i++ {
		if err := r.Client.Delete(ctx, &revs[i]); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("trimming revision %s: %w", revs[i].Name, err)
		}
	}
	return nil
}

// revisions are the ControllerRevisions of the profile named name, oldest
// first, read from the API server (the history is read rarely: when a
// generation goes live and at an undo).
func (r *schedulerProfileReconciler) revisions(ctx context.Context, name string) ([]appsv1.ControllerRevision, error) {
	var list appsv1.ControllerRevisionList
	if err := r.APIReader.List(ctx, &list, client.InNamespace(r.HistoryNamespace), client.MatchingLabels{v1alpha1.LabelProfile: name}); err != nil {
		return nil, fmt.Errorf("listing the profile's revisions: %w", err)
	}
	slices.SortFunc(list.Items, func(a, b appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
	return list.Items, nil
}

// followUndo does what a rollout-undo annotation naming the profile's
// current generation asks: the spec of the revision it names goes back
// (spec.rollout and spec.revisionHistoryLimit kept), with a promotion of
// the generation that makes, since it served before. It reports whether
// it wrote the profile (the next reconcile, of the new generation, goes
// on). A revision that is not in the history is refused with an Event.
func (r *schedulerProfileReconciler) followUndo(ctx context.Context, sp *v1alpha1.SchedulerProfile) (bool, error) {
	v, ok := sp.Annotations[v1alpha1.AnnotationRolloutUndo]
	if !ok || r.HistoryNamespace == "" || r.APIReader == nil {
		return false, nil
	}
	rev, gen, ok := strings.Cut(v, "@")
	if !ok || gen != strconv.FormatInt(sp.Generation, 10) {
		return false, nil
	}
	n, err := strconv.ParseInt(rev, 10, 64)
	if err != nil {
		r.Recorder.Eventf(sp, nil, corev1.EventTypeWarning, v1alpha1.EventRolloutStep, "Undo", "annotation %s=%q: %q is not a revision number", v1alpha1.AnnotationRolloutUndo, v, rev)
		return false, nil
	}
	revs, err := r.revisions(ctx, sp.Name)
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(revs, func(cr appsv1.ControllerRevision) bool { return cr.Revision == n })
	if i < 0 {
		r.Recorder.Eventf(sp, nil, corev1.EventTypeWarning, v1alpha1.EventRolloutStep, "Undo", "annotation %s=%q: revision %d is not in the history (kubectl sp rollout history %s)", v1alpha1.AnnotationRolloutUndo, v, n, sp.Name)
		return false, nil
	}
	var policy v1alpha1.SchedulerProfileSpec
	if err := json.Unmarshal(revs[i].Data.Raw, &policy); err != nil {
		return false, fmt.Errorf("reading revision %s: %w", revs[i].Name, err)
	}
	policy.Rollout, policy.RevisionHistoryLimit = sp.Spec.Rollout, sp.Spec.RevisionHistoryLimit
	if data, _, _ := policyOf(&policy); data != nil {
		if cur, _, _ := policyOf(&sp.Spec); string(cur) == string(data) {
			// Already that spec: nothing to undo.
			return false, nil
		}
	}
	undone := sp.DeepCopy()
	undone.Spec = policy
	// The write makes generation+1; it served before, so it is promoted
	// at once (a rollout of it ends at its first reconcile).
	undone.Annotations[v1alpha1.AnnotationRolloutPromote] = fmt.Sprintf("%d/full", sp.Generation+1)
	if err := r.Client.Update(ctx, undone); err != nil {
		if !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) && !apierrors.IsBadRequest(err) {
			return false, fmt.Errorf("undoing to revision %d: %w", n, err)
		}
		// Refused as any bad spec is (the admission webhook builds it):
		// said, and the profile goes on as it is, its serving
		// generation kept.
		r.Recorder.Eventf(sp, nil, corev1.EventTypeWarning, v1alpha1.EventRolloutStep, "Undo", "annotation %s=%q: the spec of revision %d was refused, generation %d stays: %v",
			v1alpha1.AnnotationRolloutUndo, v, n, sp.Generation, err)
		log.FromContext(ctx).Info("Undo refused", "revision", n, "generation", sp.Generation, "error", err.Error())
		return false, nil
	}
	r.Recorder.Eventf(sp, nil, corev1.EventTypeNormal, v1alpha1.EventRolloutStep, "Undo", "generation %d: the spec of revision %d (generation %s) put back, promoted at once",
		sp.Generation, n, revs[i].Annotations[v1alpha1.AnnotationRevisionGeneration])
	log.FromContext(ctx).Info("Undo", "revision", n, "generation", sp.Generation)
	return true, nil
}

// retryRequested reports whether a rollout-retry annotation asks to roll
// the generation in st, which was rolled back or aborted, out again, and
// was not honoured yet; it returns the annotation's value.
func retryRequested(sp *v1alpha1.SchedulerProfile, st *v1alpha1.RolloutStatus) (string, bool) {
	v, ok := sp.Annotations[v1alpha1.AnnotationRolloutRetry]
	if !ok || st == nil || v == st.Retried {
		return "", false
	}
	gen, _, _ := strings.Cut(v, "/")
	return v, gen == strconv.FormatInt(sp.Generation, 10)
}

// policyOf is what a revision keeps of spec (spec.rollout and
// spec.revisionHistoryLimit left out), as JSON, and its hash.
func policyOf(spec *v1alpha1.SchedulerProfileSpec) ([]byte, string, error) {
	p := spec.DeepCopy()
	p.Rollout, p.RevisionHistoryLimit = nil, nil
	data, err := json.Marshal(p)
	if err != nil {
		return nil, "", fmt.Errorf("keeping the spec: %w", err)
	}
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:])[:10], nil
}

// revisionName is the name of the revision of profile with hash, within
// the 253 characters of an object name.
func revisionName(profile, hash string) string {
	return profile[:min(len(profile), 253-len(hash)-1)] + "-" + hash
}

// specManager is the field manager that last wrote sp's spec, from its
// managed fields ("" when none says).
func specManager(sp *v1alpha1.SchedulerProfile) string {
	var manager string
	var latest metav1.Time
	for _, mf := range sp.ManagedFields {
		if mf.Subresource != "" || mf.FieldsV1 == nil || !strings.Contains(mf.FieldsV1.GetRawString(), `"f:spec"`) || mf.Time == nil {
			continue
		}
		if manager == "" || latest.Before(mf.Time) {
			manager, latest = mf.Manager, *mf.Time
		}
	}
	return manager
}
