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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime/pprof"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	sigsjson "sigs.k8s.io/json"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// BindingWebhookPath is where the bind arbiter (a validating webhook on
// pods/binding CREATE) is served.
const BindingWebhookPath = "/validate-pods-binding"

// ArbiterLeaderLabel, with value ArbiterLeaderValue, is set on its own
// pod by the replica whose arbiter judges binds (the leader, once its
// scheduler has synced) and removed by every other: the chart's bind
// arbiter Service selects it, so that binds reach only that replica.
const ArbiterLeaderLabel, ArbiterLeaderValue = "scheduling.profilescheduler.io/bind-arbiter", "leader"

// EventReasonBindRefused is the reason of the Event on a pod whose bind
// the arbiter refused.
const EventReasonBindRefused = "BindRefused"

// ArbiterLabelKey and ArbiterLabelValue are the pprof label the arbiter's
// decisions run under, so that a CPU profile of the operator tells what
// judging binds costs (go tool pprof -tagfocus=work=arbiter).
const ArbiterLabelKey, ArbiterLabelValue = "work", "arbiter"

// BindArbiter decides binds: *scheduler.Arbiter.
type BindArbiter interface {
	Decide(ctx context.Context, namespace, name string, uid types.UID, nodeName string, dryRun bool) scheduler.ArbiterDecision
}

var _ BindArbiter = &scheduler.Arbiter{}

// DefaultBindWebhookConcurrency is how many reviews the bind arbiter's
// webhook answers at once, by default; beyond it a review is answered
// with an error at once, which the webhook's failurePolicy Ignore admits.
const DefaultBindWebhookConcurrency = 64

// SetupBindArbiter serves arbiter at BindingWebhookPath of the manager's
// webhook server, its refusals recorded as Events on the pods. Binds of
// pods in excluded namespaces are admitted unjudged, as the webhook
// configuration's namespaceSelector leaves them out; at most concurrency
// reviews are answered at once (0: DefaultBindWebhookConcurrency).
func SetupBindArbiter(mgr manager.Manager, arbiter BindArbiter, excluded []string, concurrency int) {
	registerBindWebhookMetricsOnControllerRuntime()
	mgr.GetWebhookServer().Register(BindingWebhookPath, bindingWebhookHandler(arbiter, mgr.GetEventRecorder("profile-scheduler-bind-arbiter"), excluded, concurrency))
}

// bindingWebhookHandler is the bind arbiter's webhook: arbiter's
// decisions, refusals recorded by recorder (nil: none), the binds of the
// excluded namespaces admitted unjudged, at most concurrency reviews at
// once (0: DefaultBindWebhookConcurrency).
func bindingWebhookHandler(arbiter BindArbiter, recorder events.EventRecorder, excluded []string, concurrency int) http.Handler {
	if concurrency <= 0 {
		concurrency = DefaultBindWebhookConcurrency
	}
	return &bindingValidator{arbiter: arbiter, recorder: recorder, excluded: sets.New(excluded...), slots: make(chan struct{}, concurrency)}
}

// bindingValidator is the bind arbiter's admission handler: it admits a
// bind the arbiter admits, and refuses one it refuses with the arbiter's
// message (kube-scheduler and ours then treat it as any failed bind:
// the pod is scheduled again), writing a Warning Event on the pod. What
// it cannot read it admits: the webhook fails open.
//
// It trusts nothing but what kube-apiserver would send: whoever reaches
// its port may post anything. So it re-applies the namespace exclusion
// of the webhook configuration (a pod of kube-system is never judged,
// however its review arrived), judges a dry-run bind without a hold or
// an Event (the webhook declares sideEffects: None), reads at most
// maxReviewSize of a body (a Binding's review is a few KiB) and answers
// at most cap(slots) reviews at once, the others at once with an error
// (admitted: the webhook fails open).
//
// Every bind in the cluster passes it, so it reads of the AdmissionReview
// only the fields it judges by (bindingReview) rather than the whole
// review and then the Binding in it: that halves what serving a bind
// costs the operator besides the decision (BenchmarkBindingWebhook).
type bindingValidator struct {
	arbiter  BindArbiter
	recorder events.EventRecorder
	// excluded namespaces' binds are admitted unjudged.
	excluded sets.Set[string]
	// slots bounds the reviews answered at once.
	slots chan struct{}
}

var _ http.Handler = &bindingValidator{}

// bindingReview is what the arbiter reads of a v1 AdmissionReview:
// which request it is and, of a pods/binding CREATE, the Binding's pod
// and node.
type bindingReview struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID         types.UID                   `json:"uid"`
		Resource    metav1.GroupVersionResource `json:"resource"`
		SubResource string                      `json:"subResource"`
		Name        string                      `json:"name"`
		Namespace   string                      `json:"namespace"`
		Operation   admissionv1.Operation       `json:"operation"`
		DryRun      *bool                       `json:"dryRun"`
		Object      *struct {
			Metadata struct {
				Name string    `json:"name"`
				UID  types.UID `json:"uid"`
			} `json:"metadata"`
			Target struct {
				Name string `json:"name"`
			} `json:"target"`
		} `json:"object"`
	} `json:"request"`
}

// maxReviewSize bounds the body read: a Binding's review is a few KiB
// (its object, oldObject unset, the user's groups and extra); a larger
// body is not read, and refused with an error (admitted: the webhook
// fails open).
const maxReviewSize = 64 << 10

// ServeHTTP answers one AdmissionReview.
func (v *bindingValidator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case v.slots <- struct{}{}:
		defer func() { <-v.slots }()
	default:
		bindWebhookOverload.WithLabelValues(overloadBusy).Inc()
		http.Error(w, "the bind arbiter is answering as many reviews as it may", http.StatusTooManyRequests)
		return
	}
	ctx := r.Context()
	var review bindingReview
	if r.ContentLength > maxReviewSize {
		bindWebhookOverload.WithLabelValues(overloadTooLarge).Inc()
		http.Error(w, fmt.Sprintf("a review of %d bytes is over the bind arbiter's %d", r.ContentLength, maxReviewSize), http.StatusRequestEntityTooLarge)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReviewSize+1))
	if err == nil && len(body) > maxReviewSize {
		bindWebhookOverload.WithLabelValues(overloadTooLarge).Inc()
		http.Error(w, fmt.Sprintf("a review over the bind arbiter's %d bytes", maxReviewSize), http.StatusRequestEntityTooLarge)
		return
	}
	if err == nil {
		err = sigsjson.UnmarshalCaseSensitivePreserveInts(body, &review)
	}
	if err != nil || review.Request == nil {
		// Not a review this handler can answer: an error fails open
		// (failurePolicy Ignore).
		msg := "the bind arbiter reads AdmissionReviews of admission.k8s.io/v1"
		if err != nil {
			msg += ": " + err.Error()
		}
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	resp := v.judge(ctx, &review)
	resp.UID = review.Request.UID
	apiVersion := review.APIVersion
	if apiVersion == "" {
		apiVersion = admissionv1.SchemeGroupVersion.String()
	}
	out, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: "AdmissionReview"},
		Response: &resp,
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// isBind reports whether a request for resource and subresource binds a
// pod: pods/binding, as client-go's Bind sends it, or the legacy
// bindings resource, which takes the same Binding (kubectl create -f of a
// Binding).
func isBind(resource metav1.GroupVersionResource, subresource string) bool {
	if resource.Group != "" {
		return false
	}
	return (resource.Resource == "pods" && subresource == "binding") || (resource.Resource == "bindings" && subresource == "")
}

// judge decides the review of one request.
func (v *bindingValidator) judge(ctx context.Context, review *bindingReview) admissionv1.AdmissionResponse {
	req := review.Request
	allowed := admissionv1.AdmissionResponse{Allowed: true}
	if req.Operation != admissionv1.Create || !isBind(req.Resource, req.SubResource) || v.excluded.Has(req.Namespace) {
		return allowed
	}
	dryRun := req.DryRun != nil && *req.DryRun
	if req.Object == nil || req.Object.Target.Name == "" {
		log.FromContext(ctx).V(2).Info("A binding without a target node is admitted unjudged", "pod", req.Namespace+"/"+req.Name)
		return allowed
	}
	name, uid, node := req.Object.Metadata.Name, req.Object.Metadata.UID, req.Object.Target.Name
	if name == "" {
		name = req.Name
	}
	var d scheduler.ArbiterDecision
	pprof.Do(ctx, pprof.Labels(ArbiterLabelKey, ArbiterLabelValue), func(ctx context.Context) {
		d = v.arbiter.Decide(ctx, req.Namespace, name, uid, node, dryRun)
	})
	if d.Allowed {
		return allowed
	}
	if v.recorder != nil && !dryRun {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: name, UID: uid}}
		v.recorder.Eventf(pod, nil, corev1.EventTypeWarning, EventReasonBindRefused, "Binding", "%s", d.Message)
	}
	return admissionv1.AdmissionResponse{
		Allowed: false,
		Result: &metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusConflict,
			Reason:  metav1.StatusReasonConflict,
			Message: d.Message,
		},
	}
}
