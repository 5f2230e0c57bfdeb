package controllers

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime/pprof"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// BindingWebhookPath is where the bind arbiter (a validating webhook on
// pods/binding CREATE) is served.
const BindingWebhookPath = "/validate-pods-binding"

// EventReasonBindRefused is the reason of the Event on a pod whose bind
// the arbiter refused.
const EventReasonBindRefused = "BindRefused"

// ArbiterLabelKey and ArbiterLabelValue are the pprof label the arbiter's
// decisions run under, so that a CPU profile of the operator tells what
// judging binds costs (go tool pprof -tagfocus=work=arbiter).
const ArbiterLabelKey, ArbiterLabelValue = "work", "arbiter"

// BindArbiter decides binds: *scheduler.Arbiter.
type BindArbiter interface {
	Decide(ctx context.Context, namespace, name string, uid types.UID, nodeName string) scheduler.ArbiterDecision
}

var _ BindArbiter = &scheduler.Arbiter{}

// SetupBindArbiter serves arbiter at BindingWebhookPath of the manager's
// webhook server, its refusals recorded as Events on the pods.
func SetupBindArbiter(mgr manager.Manager, arbiter BindArbiter) {
	mgr.GetWebhookServer().Register(BindingWebhookPath, &admission.Webhook{
		Handler: &bindingValidator{arbiter: arbiter, recorder: mgr.GetEventRecorder("profile-scheduler-bind-arbiter")},
	})
}

// bindingValidator is the bind arbiter's admission handler: it admits a
// bind the arbiter admits, and refuses one it refuses with the arbiter's
// message (kube-scheduler and ours then treat it as any failed bind:
// the pod is scheduled again), writing a Warning Event on the pod. What
// it cannot read it admits: the webhook fails open.
type bindingValidator struct {
	arbiter  BindArbiter
	recorder events.EventRecorder
}

var _ admission.Handler = &bindingValidator{}

// Handle judges one pods/binding CREATE.
func (v *bindingValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create || req.SubResource != "binding" ||
		req.Resource.Group != "" || req.Resource.Resource != "pods" {
		return admission.Allowed("")
	}
	var b corev1.Binding
	if err := json.Unmarshal(req.Object.Raw, &b); err != nil {
		log.FromContext(ctx).V(2).Info("A binding the bind arbiter cannot decode is admitted", "pod", req.Namespace+"/"+req.Name, "err", err)
		return admission.Allowed("")
	}
	name := b.Name
	if name == "" {
		name = req.Name
	}
	if b.Target.Name == "" {
		return admission.Allowed("")
	}
	var d scheduler.ArbiterDecision
	pprof.Do(ctx, pprof.Labels(ArbiterLabelKey, ArbiterLabelValue), func(ctx context.Context) {
		d = v.arbiter.Decide(ctx, req.Namespace, name, b.UID, b.Target.Name)
	})
	if d.Allowed {
		return admission.Allowed("")
	}
	if v.recorder != nil {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: name, UID: b.UID}}
		v.recorder.Eventf(pod, nil, corev1.EventTypeWarning, EventReasonBindRefused, "Binding", "%s", d.Message)
	}
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{
		Allowed: false,
		Result: &metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusConflict,
			Reason:  metav1.StatusReasonConflict,
			Message: d.Message,
		},
	}}
}
