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
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// slowFilterVerb is the slow extender's filter verb.
const slowFilterVerb = "filter"

// SlowExtender is an HTTP scheduler extender served by the harness, on
// 127.0.0.1, whose filter passes every node it is given after Delay. It
// counts its calls.
type SlowExtender struct {
	Delay time.Duration

	srv *http.Server
	url string

	mu    sync.Mutex
	calls []time.Time
	// first is closed at the first call.
	first chan struct{}
}

// StartSlowExtender serves a SlowExtender on a free local port until Stop.
func StartSlowExtender(delay time.Duration) (*SlowExtender, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	x := &SlowExtender{Delay: delay, url: "http://" + l.Addr().String() + "/isolation", first: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /isolation/"+slowFilterVerb, x.filter)
	x.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = x.srv.Serve(l) }()
	return x, nil
}

// Config is the extender's upstream configuration: its filter verb, the
// timeout, every node passed by name (nodeCacheCapable), and resource as
// its one managed resource, ignored by NodeResourcesFit, so that it is
// asked only about the pods that request it.
func (x *SlowExtender) Config(resource string, timeout time.Duration) schedv1.Extender {
	return schedv1.Extender{
		URLPrefix:        x.url,
		FilterVerb:       slowFilterVerb,
		HTTPTimeout:      metav1.Duration{Duration: timeout},
		NodeCacheCapable: true,
		ManagedResources: []schedv1.ExtenderManagedResource{{Name: resource, IgnoredByScheduler: true}},
	}
}

// filter answers ExtenderArgs after Delay with every node it was given.
func (x *SlowExtender) filter(w http.ResponseWriter, req *http.Request) {
	x.mu.Lock()
	if len(x.calls) == 0 {
		close(x.first)
	}
	x.calls = append(x.calls, time.Now())
	x.mu.Unlock()
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(req.Body).Decode(&args); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t := time.NewTimer(x.Delay)
	defer t.Stop()
	select {
	case <-req.Context().Done():
		return
	case <-t.C:
	}
	res := extenderv1.ExtenderFilterResult{NodeNames: args.NodeNames}
	if args.NodeNames == nil && args.Nodes != nil {
		res.Nodes = &corev1.NodeList{Items: args.Nodes.Items}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&res)
}

// Calls is how many filter calls came.
func (x *SlowExtender) Calls() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.calls)
}

// WaitCalled waits for the first call, up to timeout.
func (x *SlowExtender) WaitCalled(ctx context.Context, timeout time.Duration) error {
	select {
	case <-x.first:
		// Called already: whatever the timer would say.
		return nil
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("the slow extender was not called within %s", timeout)
	case <-x.first:
		return nil
	}
}

// Stop closes the server and the calls under way.
func (x *SlowExtender) Stop() { _ = x.srv.Close() }
