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
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// marshal is v as JSON.
func marshal(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// bindingReviewBody is a pods/binding CREATE review as kube-apiserver
// sends it: kube-scheduler's bind of team/web-3 (UID u-1) to node-7.
func bindingReviewBody(tb testing.TB) []byte {
	tb.Helper()
	binding := &corev1.Binding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Binding"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web-3", UID: "u-1"},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "node-7"},
	}
	return marshal(tb, reviewOf(tb, admissionv1.Create, "binding", marshal(tb, binding)))
}

// reviewOf is a review of op on team/web-3's subresource, obj its object.
func reviewOf(tb testing.TB, op admissionv1.Operation, subresource string, obj []byte) *admissionv1.AdmissionReview {
	tb.Helper()
	opts := &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}}
	pods := metav1.GroupVersionResource{Version: "v1", Resource: "pods"}
	kind := metav1.GroupVersionKind{Version: "v1", Kind: "Binding"}
	return &admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: "0f8e2d6a-8b3c-4c1d-a2e5-7b9f1c3d5e7a", Kind: kind, Resource: pods, SubResource: subresource,
			RequestKind: &kind, RequestResource: &pods, RequestSubResource: subresource,
			Name: "web-3", Namespace: "team", Operation: op,
			UserInfo: authenticationv1.UserInfo{Username: "system:kube-scheduler", UID: "uid", Groups: []string{"system:authenticated"},
				Extra: map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/credential-id": {"X509SHA256=0123456789abcdef"}}},
			Object: runtime.RawExtension{Raw: obj}, Options: runtime.RawExtension{Raw: marshal(tb, opts)},
		},
	}
}

// serveReview posts body to h as kube-apiserver does, and decodes the
// review h answers.
func serveReview(tb testing.TB, h http.Handler, body []byte) (int, *admissionv1.AdmissionReview) {
	tb.Helper()
	req := httptest.NewRequest(http.MethodPost, BindingWebhookPath+"?timeout=1s", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		return w.Code, nil
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		tb.Fatalf("the answer %q: %v", w.Body.String(), err)
	}
	return w.Code, &out
}

// BenchmarkBindingWebhook is what serving one bind's review costs the
// operator besides the decision (a decision that admits at once): the
// review read, the pod's name and node picked out, the response written.
func BenchmarkBindingWebhook(b *testing.B) {
	body := bindingReviewBody(b)
	h := bindingWebhookHandler(&fakeArbiter{decision: scheduler.ArbiterDecision{Allowed: true, Outcome: scheduler.ArbiterAdmitted}}, nil, nil, 0)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, BindingWebhookPath+"?timeout=1s", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
