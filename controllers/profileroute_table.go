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
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

// mutatingAdmissionPolicy is the kind the routes program is, which the
// API server must serve (discovery tells; the operator has no right on
// it).
var mutatingAdmissionPolicy = schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}

// applyTable writes the table, whole, into the RoutingTable of the
// routes program: created when missing, updated when its content
// differs. A table that someone else changed or deleted since the
// operator wrote it is written back, with an Event. An API server that
// does not serve MutatingAdmissionPolicy v1 (s.unavail) and a write
// kube-apiserver refuses (s.refusal) are reported on every route.
func (r *profileRouteReconciler) applyTable(ctx context.Context, s *routesScope) error {
	want := s.table.Params(r.PolicyName)
	s.revision = want.Spec.Revision
	if _, err := r.Client.RESTMapper().RESTMapping(mutatingAdmissionPolicy, "v1"); err != nil {
		if !meta.IsNoMatchError(err) {
			return fmt.Errorf("discovering MutatingAdmissionPolicy v1: %w", err)
		}
		s.unavail = policyUnavailableMessage(err)
		r.inForce, r.wasInForce = "", false
		return nil
	}
	cur := &v1alpha1.RoutingTable{}
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(want), cur)
	switch {
	case apierrors.IsNotFound(err):
		if r.written != "" {
			r.restored(ctx, want, fmt.Sprintf("RoutingTable %s was deleted; the routes in force (revision %s) are written back", want.Name, s.revision))
		}
		err = r.Client.Create(ctx, want)
		cur = want
	case err != nil:
		return r.refuse(s, "reading", err)
	case equality.Semantic.DeepEqual(cur.Spec, want.Spec) && cur.Labels[routing.OwnerLabel] == routing.OwnerValue:
		if r.written == "" {
			r.written = cur.ResourceVersion
		}
		return nil
	default:
		if r.written != "" && cur.ResourceVersion != r.written {
			r.restored(ctx, cur, fmt.Sprintf("RoutingTable %s was changed by someone else (revision %q); the routes in force (revision %s) are written back",
				want.Name, cur.Spec.Revision, s.revision))
		}
		cur.Spec = want.Spec
		if cur.Labels == nil {
			cur.Labels = map[string]string{}
		}
		maps.Copy(cur.Labels, want.Labels)
		err = r.Client.Update(ctx, cur)
	}
	if err != nil {
		return r.refuse(s, "writing", err)
	}
	r.written = cur.ResourceVersion
	return nil
}

// refuse reports a read or write of the table kube-apiserver refused on
// every route (s.refusal); other errors are retried.
func (r *profileRouteReconciler) refuse(s *routesScope, doing string, err error) error {
	if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || meta.IsNoMatchError(err) ||
		apierrors.IsNotFound(err) && isResourceMissing(err) {
		s.refusal = &policyRefusal{reason: v1alpha1.ReasonRoutingTableRefused, message: fmt.Sprintf(
			"kube-apiserver refused %s RoutingTable %s: %v", doing, r.PolicyName, err)}
		r.inForce, r.wasInForce = "", false
		return nil
	}
	return fmt.Errorf("%s RoutingTable %s: %w", doing, r.PolicyName, err)
}

// restored records that the table was written back.
func (r *profileRouteReconciler) restored(ctx context.Context, table *v1alpha1.RoutingTable, msg string) {
	log.FromContext(ctx).Info("Routing table restored", "table", table.Name, "message", msg)
	if r.Recorder != nil {
		r.Recorder.Eventf(table, nil, corev1.EventTypeWarning, v1alpha1.EventRoutingTableRestored, "Restore", "%s", msg)
	}
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

// probe creates a probe pod with dryRun=All: the revision it comes back
// with is the one kube-apiserver runs. The table is in force when that
// is s.revision. A table in force is probed again every few seconds: a
// probe that shows another revision, or none, where the operator's was
// in force, is the routes policy or binding changed or deleted
// (s.notInForce at once, with an Event).
func (r *profileRouteReconciler) probe(ctx context.Context, s *routesScope) error {
	pod := routing.ProbePod(r.Namespace, r.PolicyName)
	if err := r.Client.Create(ctx, pod, client.DryRunAll); err != nil {
		return fmt.Errorf("probing the routes with a dry-run pod in namespace %q: %w", r.Namespace, err)
	}
	s.seen = pod.Annotations[routing.RevisionAnnotation]
	s.inForce = s.seen == s.revision
	if s.inForce {
		if r.stalled && r.Recorder != nil {
			r.Recorder.Eventf(tableRef(r.PolicyName), nil, corev1.EventTypeNormal, v1alpha1.EventRoutesInForce, "Probe", "kube-apiserver runs the routes in force again (revision %s)", s.revision)
		}
		if r.inForce != s.revision {
			log.FromContext(ctx).V(2).Info("Routes in force", "revision", s.revision)
		}
		r.inForce, r.stalled, r.wasInForce = s.revision, false, true
		return nil
	}
	drift := r.wasInForce && r.inForce == s.revision
	if r.waitingRevision != s.revision || drift {
		r.waitingRevision, r.waitingSince = s.revision, time.Now()
	}
	if drift {
		msg := fmt.Sprintf("kube-apiserver no longer runs the routes in force (RoutingTable %s revision %s): a probe pod came back with %s; "+
			"the routes MutatingAdmissionPolicy or its binding %s was changed or deleted: the installer restores them (helm upgrade, or kubectl apply -k config/routes)",
			r.PolicyName, s.revision, seenRevision(s.seen), r.PolicyName)
		log.FromContext(ctx).Info("Routes not in force", "message", msg)
		if r.Recorder != nil {
			r.Recorder.Eventf(tableRef(r.PolicyName), nil, corev1.EventTypeWarning, v1alpha1.EventRoutesNotInForce, "Probe", "%s", msg)
		}
		r.stalled = true
	}
	r.inForce = ""
	// Once one revision was not run in time, or was and no longer is,
	// the next is not waited for again: kube-apiserver runs no table of
	// ours until one is seen in force.
	s.notInForce = r.stalled || time.Since(r.waitingSince) > notInForceAfter
	r.stalled = s.notInForce
	return nil
}

// seenRevision describes what a probe came back with.
func seenRevision(seen string) string {
	if seen == "" {
		return "no revision (no routes program ran it)"
	}
	return fmt.Sprintf("revision %s", seen)
}

// tableRef is the RoutingTable named name, for events about it.
func tableRef(name string) *v1alpha1.RoutingTable {
	return &v1alpha1.RoutingTable{ObjectMeta: metav1.ObjectMeta{Name: name}}
}
