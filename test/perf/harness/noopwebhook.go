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

package harness

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// NoopWebhookConfiguration is the ValidatingWebhookConfiguration of a
// coexist run with SetupTwoUpstreamWebhook.
const NoopWebhookConfiguration = "bench-bind-noop"

// noopWebhook is a webhook on pods/binding that admits every bind at once,
// served by the harness over HTTPS (HTTP/1.1, as kube-apiserver calls a
// webhook behind a Service): what any webhook on binds costs kube-apiserver
// and the binds, the floor under the bind arbiter's price.
type noopWebhook struct {
	srv     *httptest.Server
	reviews atomic.Int64
}

// ServeHTTP admits the review's request, reading of it only its uid.
func (w *noopWebhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var review struct {
		Request struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil {
		err = json.Unmarshal(body, &review)
	}
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	w.reviews.Add(1)
	rw.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(rw, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":%q,"allowed":true}}`, review.Request.UID)
}

// startNoopWebhook serves a noopWebhook for the binds of e's namespace and
// waits until kube-apiserver calls it; stop deletes its configuration and
// stops it.
func (r *Runner) startNoopWebhook(ctx context.Context, e *env) (w *noopWebhook, stop func(), err error) {
	w = &noopWebhook{}
	w.srv = httptest.NewUnstartedServer(w)
	w.srv.StartTLS()
	var undo cleanups
	stop = undo.run
	undo.add(w.srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw})
	probeNS, err := r.registerBindWebhook(ctx, e, &undo, "webhook", "the no-op bind webhook", NoopWebhookConfiguration, w.srv.URL+"/validate-pods-binding", ca)
	if err != nil {
		return w, stop, err
	}
	err = r.probeBindWebhook(ctx, e, probeNS, "the no-op bind webhook", "received a bind", func(error) bool { return w.reviews.Load() > 0 })
	w.reviews.Store(0)
	return w, stop, err
}
