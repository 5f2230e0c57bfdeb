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

package fakeextender

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"

	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// Held is an extender whose filter holds every call until Release: a
// test sees a call arrive on Entered, does what must happen while the
// call waits, then releases it. Its filter keeps every node.
type Held struct {
	URL string
	// Entered receives once per call as it arrives (buffered for 16).
	Entered chan struct{}

	srv      *httptest.Server
	release  chan struct{}
	once     sync.Once
	answered atomic.Int32
}

// StartHeld serves plain HTTP. Close releases and stops it.
func StartHeld() *Held {
	h := &Held{Entered: make(chan struct{}, 16), release: make(chan struct{})}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var args extenderv1.ExtenderArgs
		_ = json.NewDecoder(r.Body).Decode(&args)
		h.Entered <- struct{}{}
		<-h.release
		h.answered.Add(1)
		_ = json.NewEncoder(w).Encode(extenderv1.ExtenderFilterResult{Nodes: args.Nodes, NodeNames: args.NodeNames})
	}))
	h.URL = h.srv.URL
	return h
}

// Release lets every held call, and every later one, through; calling it
// again does nothing.
func (h *Held) Release() { h.once.Do(func() { close(h.release) }) }

// Answered is the number of calls answered so far.
func (h *Held) Answered() int32 { return h.answered.Load() }

// Close releases the held calls and stops the server.
func (h *Held) Close() {
	h.Release()
	h.srv.Close()
}
