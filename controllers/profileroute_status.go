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
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/routing"
)

// routeOutcome is what one reconcile of the routes decided about one
// ProfileRoute.
type routeOutcome struct {
	// Generation decided on.
	Generation int64
	// Verdict of routing.Build: in force, or refused and why.
	Verdict routing.Verdict
	// Unavailable is set when the API server does not serve
	// MutatingAdmissionPolicy v1; it overrides a Verdict in force.
	Unavailable string
	// Refusal is set when the policy or its binding is missing, or its
	// update was refused; it overrides a Verdict in force.
	Refusal *policyRefusal
	// PolicyName names the policy.
	PolicyName string
	// InForce is set once kube-apiserver runs the revision of the policy
	// that holds this verdict (the route, or its absence).
	InForce bool
	// NotInForce is set when kube-apiserver stores the table but has
	// not run it for longer than it takes to apply one, or ran it and a
	// probe shows it no longer does.
	NotInForce bool
	// Revision of the table.
	Revision string
	// Seen is the revision the last probe came back with ("" none).
	Seen string
}

// routeStatus computes the status of a ProfileRoute from the outcome,
// starting from the previous status st. It is pure.
//
// A route is Ready only once the policy that holds it is in force inside
// kube-apiserver (a probe pod is rewritten by that revision); until then
// it is Reconciling and observedGeneration stays where it was. A refused
// route is Stalled with the reason and a message naming the field.
func routeStatus(st v1alpha1.ProfileRouteStatus, o routeOutcome, now metav1.Time) v1alpha1.ProfileRouteStatus {
	st = *st.DeepCopy()
	names := o.Verdict.MatchedNamespaces
	st.MatchedNamespaces = &v1alpha1.MatchedNamespaces{Count: int32(len(names))}
	st.ExcludedNamespaces = append([]string(nil), o.Verdict.ExcludedNamespaces...)
	if len(names) > 0 {
		st.MatchedNamespaces.Names = append([]string(nil), names[:min(len(names), v1alpha1.MaxMatchedNamespaces)]...)
	}
	policy := o.PolicyName
	if policy == "" {
		policy = routing.PolicyName
	}
	st.Policy = policy
	st.SchedulerName = o.Verdict.SchedulerName

	reason, msg := o.Verdict.Reason, o.Verdict.Message
	blocked := o.Unavailable != "" || o.Refusal != nil
	switch {
	case o.Unavailable != "":
		reason, msg = v1alpha1.ReasonAdmissionPolicyUnavailable, o.Unavailable
		st.SchedulerName, st.Policy = "", ""
	case o.Refusal != nil:
		reason, msg = o.Refusal.reason, o.Refusal.message
		st.SchedulerName = ""
	case !o.InForce && o.NotInForce:
		reason, msg = v1alpha1.ReasonAdmissionPolicyNotInForce, notInForceMessage(policy, o.Revision, o.Seen)
		st.SchedulerName = ""
	}
	if !blocked && !o.InForce && !o.NotInForce {
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReconciling, metav1.ConditionTrue, v1alpha1.ReasonApplying,
			fmt.Sprintf("RoutingTable %s revision %s stored; waiting until kube-apiserver runs it", policy, o.Revision), now)
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAdmissionPolicyNotInForce,
			fmt.Sprintf("generation %d is not in force yet", o.Generation), now)
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionStalled, metav1.ConditionFalse, v1alpha1.ReasonApplying, "", now)
		return st
	}
	st.ObservedGeneration = o.Generation
	setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReconciling, metav1.ConditionFalse, reason, "", now)
	if reason == v1alpha1.ReasonActive {
		msg := fmt.Sprintf("new pods selected by this route get schedulerName %q (RoutingTable %s, revision %s, in force)",
			o.Verdict.SchedulerName, policy, o.Revision)
		if !o.Verdict.ProfileServing {
			msg += "; no generation of the profile serves yet: routed pods wait for it (whenProfileNotServing: Hold)"
		}
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonActive, msg, now)
		setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionStalled, metav1.ConditionFalse, v1alpha1.ReasonActive, "", now)
		return st
	}
	msg = fmt.Sprintf("generation %d routes no pod: %s", o.Generation, msg)
	setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg, now)
	setCondition(&st.Conditions, o.Generation, v1alpha1.ConditionStalled, metav1.ConditionTrue, reason, msg, now)
	return st
}

// profileRoutes returns, per profile, the sorted names of the routes in
// force that send pods to it; none without a policy (inForce false).
func profileRoutes(routes []v1alpha1.ProfileRoute, verdicts map[string]routing.Verdict, inForce bool) map[string][]string {
	out := map[string][]string{}
	if !inForce {
		return out
	}
	for _, pr := range routes {
		if v, ok := verdicts[pr.Name]; ok && v.InTable() {
			out[pr.Spec.Profile] = append(out[pr.Spec.Profile], pr.Name)
		}
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}

// notInForceMessage says what to check when kube-apiserver stores the
// table but does not run it: a probe came back with seen.
func notInForceMessage(policy, revision, seen string) string {
	return fmt.Sprintf("kube-apiserver stores RoutingTable %s (revision %s) but a dry-run pod is not mutated by it (it came back with %s): "+
		"check that the routes MutatingAdmissionPolicy and its binding %s exist as the installer wrote them (helm upgrade, or kubectl apply -k config/routes, restores them), "+
		"and that the MutatingAdmissionPolicy admission plugin runs (feature gate MutatingAdmissionPolicy, not in --disable-admission-plugins)",
		policy, revision, seenRevision(seen), policy)
}

// policyUnavailableMessage says what to do on an API server that does not
// serve MutatingAdmissionPolicy v1.
func policyUnavailableMessage(err error) string {
	return fmt.Sprintf("the API server does not serve admissionregistration.k8s.io/v1 MutatingAdmissionPolicy (%v): "+
		"it is GA and on by default from Kubernetes 1.36; on 1.34 and 1.35 it is beta (v1beta1) and off by default, and routes need v1: "+
		"upgrade the control plane to 1.36 or later", err)
}
