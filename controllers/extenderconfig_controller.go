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
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// extenderConfigReconciler validates ExtenderConfig objects and writes
// their status. Profiles that reference an extender watch it themselves
// and re-apply when it, or its Secret, changes.
type extenderConfigReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// ExtenderSecretsNamespace is the only namespace extender Secrets are
	// read from (Options.ExtenderSecretsNamespace).
	ExtenderSecretsNamespace string

	now func() metav1.Time
}

// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=extenderconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=extenderconfigs/status,verbs=get;update;patch

// Reconcile builds the upstream HTTP extender from the ExtenderConfig and
// its Secret, and records the outcome and the referencing profiles.
func (r *extenderConfigReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ec, _, refusal, err := resolveExtender(ctx, r.Client, req.Name, r.ExtenderSecretsNamespace)
	if err != nil || ec == nil {
		return ctrl.Result{}, err
	}

	var profiles v1alpha1.SchedulerProfileList
	if err := r.Client.List(ctx, &profiles, client.MatchingFields{indexExtenders: ec.Name}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing profiles referencing %q: %w", ec.Name, err)
	}
	names := make([]string, 0, len(profiles.Items))
	for _, p := range profiles.Items {
		names = append(names, p.Name)
	}

	base := ec.DeepCopy()
	ec.Status = extenderStatus(ec.Status, ec.Generation, ec.Spec.URLPrefix, refusal, names, r.now())
	if equality.Semantic.DeepEqual(base.Status, ec.Status) {
		return ctrl.Result{}, nil
	}
	if err := r.Client.Status().Patch(ctx, ec, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("writing status: %w", err)
	}
	return ctrl.Result{}, nil
}
