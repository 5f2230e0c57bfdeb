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
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// fakeArbiter stands for scheduler.Arbiter (tested against a real
// scheduler in package scheduler): these tests are the webhook's own.
type fakeArbiter struct {
	decision scheduler.ArbiterDecision
	asked    []string
	// dryRun is each decision's dryRun.
	dryRun []bool
	// block, when set, holds every decision until it is closed; blocked
	// counts the decisions it holds.
	block   chan struct{}
	blocked atomic.Int32
	// labels are the pprof label ArbiterLabelKey of each decision's
	// context.
	labels []string
}

func (f *fakeArbiter) Decide(ctx context.Context, namespace, name string, uid types.UID, nodeName string, dryRun bool) scheduler.ArbiterDecision {
	if f.block != nil {
		f.blocked.Add(1)
		<-f.block
		return f.decision
	}
	f.asked = append(f.asked, namespace+"/"+name+"@"+nodeName+"#"+string(uid))
	f.dryRun = append(f.dryRun, dryRun)
	label, _ := pprof.Label(ctx, ArbiterLabelKey)
	f.labels = append(f.labels, label)
	return f.decision
}

func TestBindingValidator(t *testing.T) {
	binding := marshal(t, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web-3", UID: "u-1"},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "node-7"},
	})
	review := func(op admissionv1.Operation, subresource string, obj []byte) []byte {
		return marshal(t, reviewOf(t, op, subresource, obj))
	}
	// POST .../namespaces/team/bindings: the resource is bindings, with
	// no subresource.
	bindingsReview := func() []byte {
		r := reviewOf(t, admissionv1.Create, "", binding)
		r.Request.Resource.Resource = "bindings"
		return marshal(t, r)
	}
	// A review as anyone reaching the port may post it: of kube-system,
	// of the operator's namespace, or a dry run.
	inNamespace := func(ns string) []byte {
		r := reviewOf(t, admissionv1.Create, "binding", binding)
		r.Request.Namespace = ns
		return marshal(t, r)
	}
	dryRun := func() []byte {
		r := reviewOf(t, admissionv1.Create, "binding", binding)
		r.Request.DryRun = ptr.To(true)
		return marshal(t, r)
	}
	refused := scheduler.ArbiterDecision{Outcome: scheduler.ArbiterRefused, Resource: "cpu",
		Message: "node node-7 has no room for team/web-3: cpu 500m requested, 200m free (after 2 binds in flight)"}
	for _, tc := range []struct {
		name     string
		body     []byte
		decision scheduler.ArbiterDecision
		allowed  bool
		asked    []string
		event    string
	}{
		{"admitted", review(admissionv1.Create, "binding", binding), scheduler.ArbiterDecision{Allowed: true, Outcome: scheduler.ArbiterAdmitted}, true,
			[]string{"team/web-3@node-7#u-1"}, ""},
		{"refused, with the arbiter's message and an Event on the pod", review(admissionv1.Create, "binding", binding), refused, false,
			[]string{"team/web-3@node-7#u-1"}, "Warning BindRefused " + refused.Message},
		{"not a binding", review(admissionv1.Create, "", binding), refused, true, nil, ""},
		{"the legacy bindings resource", bindingsReview(), refused, false,
			[]string{"team/web-3@node-7#u-1"}, "Warning BindRefused " + refused.Message},
		{"not a create", review(admissionv1.Update, "binding", binding), refused, true, nil, ""},
		{"a binding without a target is admitted", review(admissionv1.Create, "binding", []byte(`{"metadata":{"name":"web-3"}}`)), refused, true, nil, ""},
		{"a bind of kube-system, posted straight to the port, is not judged", inNamespace("kube-system"), refused, true, nil, ""},
		{"a bind of the operator's namespace is not judged", inNamespace("profile-scheduler-system"), refused, true, nil, ""},
		{"a dry-run bind is judged, as a dry run, without an Event", dryRun(), refused, false,
			[]string{"team/web-3@node-7#u-1"}, ""},
		{"a binding named by the request alone", review(admissionv1.Create, "binding", []byte(`{"target":{"name":"node-7"}}`)), refused, false,
			[]string{"team/web-3@node-7#"}, "Warning BindRefused " + refused.Message},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			arb := &fakeArbiter{decision: tc.decision}
			rec := events.NewFakeRecorder(4)
			code, answer := serveReview(t, bindingWebhookHandler(arb, rec, []string{"profile-scheduler-system", "kube-system"}, 0), tc.body)
			g.Expect(code).To(Equal(http.StatusOK))
			g.Expect(answer.APIVersion).To(Equal("admission.k8s.io/v1"))
			g.Expect(answer.Kind).To(Equal("AdmissionReview"))
			resp := answer.Response
			// kube-apiserver takes an answer only for the request it asked.
			g.Expect(resp.UID).To(BeEquivalentTo("0f8e2d6a-8b3c-4c1d-a2e5-7b9f1c3d5e7a"))
			g.Expect(resp.Allowed).To(Equal(tc.allowed))
			g.Expect(arb.asked).To(Equal(tc.asked))
			for _, d := range arb.dryRun {
				g.Expect(d).To(Equal(strings.Contains(tc.name, "dry-run")), "the arbiter is told a dry run, which holds no room")
			}
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

// A body that is no AdmissionReview gets an HTTP error, which kube-apiserver
// treats as the webhook failing: with failurePolicy Ignore, the bind goes on.
func TestBindingValidatorUnreadable(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":                  "{",
		"no request":                `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
		"a request of another type": `{"request":"binding"}`,
	} {
		t.Run(name, func(t *testing.T) {
			arb := &fakeArbiter{}
			code, _ := serveReview(t, bindingWebhookHandler(arb, nil, nil, 0), []byte(body))
			if code != http.StatusBadRequest || len(arb.asked) != 0 {
				t.Errorf("got HTTP %d, asked %v; want 400 and no decision", code, arb.asked)
			}
		})
	}
}

// A body larger than any Binding's review (here 7 MiB, what
// controller-runtime's webhooks read) is not read: an HTTP error, which
// kube-apiserver treats as the webhook failing, and no decision.
func TestBindingValidatorLargeBody(t *testing.T) {
	g := NewWithT(t)
	r := reviewOf(t, admissionv1.Create, "binding", marshal(t, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web-3", Annotations: map[string]string{"pad": strings.Repeat("x", 7<<20)}},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "node-7"},
	}))
	body := marshal(t, r)
	g.Expect(len(body)).To(BeNumerically(">", 7<<20))
	arb := &fakeArbiter{decision: scheduler.ArbiterDecision{Allowed: true, Outcome: scheduler.ArbiterAdmitted}}
	srv := httptest.NewServer(bindingWebhookHandler(arb, nil, nil, 0))
	defer srv.Close()
	for name, chunked := range map[string]bool{"with a Content-Length": false, "chunked": true} {
		var reader io.Reader = bytes.NewReader(body)
		if chunked {
			// No Content-Length: the handler stops reading at its bound.
			reader = io.MultiReader(reader)
		}
		resp, err := http.Post(srv.URL+BindingWebhookPath, "application/json", reader)
		g.Expect(err).NotTo(HaveOccurred(), name)
		_ = resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge), name)
	}
	g.Expect(arb.asked).To(BeEmpty())
}

// Beyond its bound on reviews answered at once, the webhook answers at
// once with an error (admitted by failurePolicy Ignore) instead of
// queueing reviews until kube-apiserver's timeout.
func TestBindingValidatorConcurrency(t *testing.T) {
	g := NewWithT(t)
	arb := &fakeArbiter{decision: scheduler.ArbiterDecision{Allowed: true, Outcome: scheduler.ArbiterAdmitted}, block: make(chan struct{})}
	srv := httptest.NewServer(bindingWebhookHandler(arb, nil, nil, 2))
	defer srv.Close()
	body := bindingReviewBody(t)
	// A review turned away is answered at once, not after a timeout.
	c := &http.Client{Timeout: 5 * time.Second}
	post := func() int {
		resp, err := c.Post(srv.URL+BindingWebhookPath, "application/json", bytes.NewReader(body))
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	held := make(chan int, 2)
	for range 2 {
		go func() { held <- post() }()
	}
	// The two held reviews take both slots; the next one is turned away.
	g.Eventually(arb.blocked.Load).WithTimeout(10 * time.Second).Should(BeEquivalentTo(2))
	g.Expect(post()).To(Equal(http.StatusTooManyRequests))
	close(arb.block)
	g.Eventually(held).Should(Receive(Equal(http.StatusOK)))
	g.Eventually(held).Should(Receive(Equal(http.StatusOK)))
	g.Expect(post()).To(Equal(http.StatusOK), "a slot freed serves again")
}
