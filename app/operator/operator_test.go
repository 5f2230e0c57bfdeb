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

package operator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
)

// TestSchedulerClientsDoNotAskForGzip sends a request through each of the
// scheduler's clients to a real HTTP server and checks what it asked for:
// no gzip (the API server would otherwise compress every watch event), and
// the scheduler's user agent on the scheduling client.
func TestSchedulerClientsDoNotAskForGzip(t *testing.T) {
	schedCfg, eventCfg, take := schedulerClientsToRecorder(t)
	for name, cfg := range map[string]*rest.Config{"scheduler": schedCfg, "events": eventCfg} {
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatalf("%s client: %v", name, err)
		}
		// The server answers 404; only the request matters.
		_, _ = cs.CoreV1().Pods("default").Get(context.Background(), "p", metav1.GetOptions{})
		got := take()
		if len(got) != 1 {
			t.Fatalf("%s client: server saw %d requests, want 1", name, len(got))
		}
		h := got[0].header
		if enc := h.Get("Accept-Encoding"); strings.Contains(enc, "gzip") {
			t.Errorf("%s client asks for Accept-Encoding %q, want no gzip", name, enc)
		}
		if name == "scheduler" && !strings.Contains(h.Get("User-Agent"), "scheduler") {
			t.Errorf("scheduler client's User-Agent is %q, want it to name the scheduler", h.Get("User-Agent"))
		}
	}
}

// TestSchedulerClientsSendProtobuf sends what the scheduler writes most, a
// pod's binding and an event, through its clients to a real HTTP server
// and checks that both go as protobuf, as kube-scheduler sends them:
// client-go's hand-written Bind sends JSON unless the config asks for
// protobuf.
func TestSchedulerClientsSendProtobuf(t *testing.T) {
	schedCfg, eventCfg, take := schedulerClientsToRecorder(t)
	cs, err := kubernetes.NewForConfig(schedCfg)
	if err != nil {
		t.Fatal(err)
	}
	ecs, err := kubernetes.NewForConfig(eventCfg)
	if err != nil {
		t.Fatal(err)
	}
	// The server answers 404; only the requests matter.
	_ = cs.CoreV1().Pods("default").Bind(context.Background(), &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p"},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "n"},
	}, metav1.CreateOptions{})
	sink := &events.EventSinkImpl{Interface: ecs.EventsV1()}
	_, _ = sink.Create(context.Background(), &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p.1"}})

	seen := map[string]string{}
	for _, r := range take() {
		seen[r.path] = r.header.Get("Content-Type")
	}
	for path, what := range map[string]string{
		"/api/v1/namespaces/default/pods/p/binding":        "the binding",
		"/apis/events.k8s.io/v1/namespaces/default/events": "the event",
	} {
		ct, ok := seen[path]
		if !ok {
			t.Errorf("%s: no request to %s", what, path)
			continue
		}
		if ct != runtime.ContentTypeProtobuf {
			t.Errorf("%s is sent as %q, want %q", what, ct, runtime.ContentTypeProtobuf)
		}
	}
}

// recordedRequest is what the recording server kept of a request.
type recordedRequest struct {
	path   string
	header http.Header
}

// schedulerClientsToRecorder starts a TLS server that answers 404 and
// records every request, and returns the scheduler's two client configs
// pointed at it, and take, which returns the requests recorded since the
// last take. TLS, as an API server is: over plain HTTP client-go uses Go's
// default transport, whatever the config says.
func schedulerClientsToRecorder(t *testing.T) (sched, events *rest.Config, take func() []recordedRequest) {
	t.Helper()
	var mu sync.Mutex
	var seen []recordedRequest
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, recordedRequest{path: r.URL.Path, header: r.Header.Clone()})
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	sched, events = schedulerClientConfigs(&rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	return sched, events, func() []recordedRequest {
		mu.Lock()
		defer mu.Unlock()
		got := seen
		seen = nil
		return got
	}
}
