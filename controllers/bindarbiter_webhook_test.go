package controllers

import (
	"context"
	"encoding/json"
	"runtime/pprof"
	"testing"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

type fakeArbiter struct {
	decision scheduler.ArbiterDecision
	asked    []string
	// labels are the pprof label ArbiterLabelKey of each decision's
	// context.
	labels []string
}

func (f *fakeArbiter) Decide(ctx context.Context, namespace, name string, uid types.UID, nodeName string) scheduler.ArbiterDecision {
	f.asked = append(f.asked, namespace+"/"+name+"@"+nodeName+"#"+string(uid))
	label, _ := pprof.Label(ctx, ArbiterLabelKey)
	f.labels = append(f.labels, label)
	return f.decision
}

func bindingRequest(op admissionv1.Operation, subresource string, obj []byte) admission.Request {
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation:   op,
		Namespace:   "team",
		Name:        "web-3",
		Resource:    metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		SubResource: subresource,
		Object:      runtime.RawExtension{Raw: obj},
	}}
}

func TestBindingValidator(t *testing.T) {
	binding, err := json.Marshal(&corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web-3", UID: "u-1"},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "node-7"},
	})
	if err != nil {
		t.Fatal(err)
	}
	refused := scheduler.ArbiterDecision{Outcome: scheduler.ArbiterRefused, Resource: "cpu",
		Message: "node node-7 has no room for team/web-3: cpu 500m requested, 200m free (after 2 binds in flight)"}
	for _, tc := range []struct {
		name     string
		req      admission.Request
		decision scheduler.ArbiterDecision
		allowed  bool
		asked    []string
		event    string
	}{
		{"admitted", bindingRequest(admissionv1.Create, "binding", binding), scheduler.ArbiterDecision{Allowed: true, Outcome: scheduler.ArbiterAdmitted}, true,
			[]string{"team/web-3@node-7#u-1"}, ""},
		{"refused, with the arbiter's message and an Event on the pod", bindingRequest(admissionv1.Create, "binding", binding), refused, false,
			[]string{"team/web-3@node-7#u-1"}, "Warning BindRefused " + refused.Message},
		{"not a binding", bindingRequest(admissionv1.Create, "", binding), refused, true, nil, ""},
		{"not a create", bindingRequest(admissionv1.Update, "binding", binding), refused, true, nil, ""},
		{"a binding that does not decode is admitted (fail open)", bindingRequest(admissionv1.Create, "binding", []byte("{")), refused, true, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			arb := &fakeArbiter{decision: tc.decision}
			rec := events.NewFakeRecorder(4)
			resp := (&bindingValidator{arbiter: arb, recorder: rec}).Handle(context.Background(), tc.req)
			g.Expect(resp.Allowed).To(Equal(tc.allowed))
			g.Expect(arb.asked).To(Equal(tc.asked))
			// Every decision runs under the label a CPU profile tells
			// the arbiter's work by.
			for _, l := range arb.labels {
				g.Expect(l).To(Equal(ArbiterLabelValue))
			}
			g.Expect(arb.labels).To(HaveLen(len(tc.asked)))
			if !tc.allowed {
				g.Expect(resp.Result.Message).To(Equal(refused.Message))
				g.Expect(resp.Result.Code).To(BeEquivalentTo(409))
			}
			if tc.event == "" {
				g.Expect(rec.Events).To(BeEmpty())
			} else {
				g.Expect(rec.Events).To(Receive(Equal(tc.event)))
			}
		})
	}
}
