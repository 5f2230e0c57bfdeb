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

package scheduler_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// fakeExtender is an HTTP extender behind a real httptest server.
type fakeExtender struct {
	srv *httptest.Server

	mu        sync.Mutex
	reject    map[string]bool  // nodes the filter refuses
	scores    map[string]int64 // prioritize scores (0..10)
	filters   []extenderv1.ExtenderArgs
	prios     []extenderv1.ExtenderArgs
	bindings  []extenderv1.ExtenderBindingArgs
	failWith  string // filter answers with this error
	nodeNames bool   // whether the last filter call carried names only
	// delay is how long filter takes to answer.
	delay time.Duration
}

func newFakeExtender() *fakeExtender {
	e := &fakeExtender{reject: map[string]bool{}, scores: map[string]int64{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/filter", e.filter)
	mux.HandleFunc("/prioritize", e.prioritize)
	mux.HandleFunc("/bind", e.bind)
	e.srv = httptest.NewServer(mux)
	DeferCleanup(e.srv.Close)
	return e
}

func argNodes(args *extenderv1.ExtenderArgs) []string {
	if args.NodeNames != nil {
		return *args.NodeNames
	}
	var out []string
	if args.Nodes != nil {
		for _, n := range args.Nodes.Items {
			out = append(out, n.Name)
		}
	}
	return out
}

func (e *fakeExtender) filter(w http.ResponseWriter, r *http.Request) {
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	delay := e.delay
	e.mu.Unlock()
	time.Sleep(delay)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.filters = append(e.filters, args)
	e.nodeNames = args.NodeNames != nil && args.Nodes == nil
	result := extenderv1.ExtenderFilterResult{FailedNodes: extenderv1.FailedNodesMap{}, Error: e.failWith}
	if args.NodeNames != nil {
		kept := []string{}
		for _, n := range *args.NodeNames {
			if e.reject[n] {
				result.FailedNodes[n] = "refused by extender"
			} else {
				kept = append(kept, n)
			}
		}
		result.NodeNames = &kept
	} else {
		kept := &v1.NodeList{}
		for _, n := range args.Nodes.Items {
			if e.reject[n.Name] {
				result.FailedNodes[n.Name] = "refused by extender"
			} else {
				kept.Items = append(kept.Items, n)
			}
		}
		result.Nodes = kept
	}
	_ = json.NewEncoder(w).Encode(result)
}

func (e *fakeExtender) prioritize(w http.ResponseWriter, r *http.Request) {
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.prios = append(e.prios, args)
	list := extenderv1.HostPriorityList{}
	for _, n := range argNodes(&args) {
		list = append(list, extenderv1.HostPriority{Host: n, Score: e.scores[n]})
	}
	_ = json.NewEncoder(w).Encode(list)
}

func (e *fakeExtender) bind(w http.ResponseWriter, r *http.Request) {
	var args extenderv1.ExtenderBindingArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.bindings = append(e.bindings, args)
	e.mu.Unlock()
	result := extenderv1.ExtenderBindingResult{}
	err := cs.CoreV1().Pods(args.PodNamespace).Bind(context.Background(), &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: args.PodNamespace, Name: args.PodName, UID: args.PodUID},
		Target:     v1.ObjectReference{Kind: "Node", Name: args.Node},
	}, metav1.CreateOptions{})
	if err != nil {
		result.Error = err.Error()
	}
	_ = json.NewEncoder(w).Encode(result)
}

func (e *fakeExtender) counts() (filters, prios, binds int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.filters), len(e.prios), len(e.bindings)
}

func (e *fakeExtender) config() config.Extender {
	return config.Extender{URLPrefix: e.srv.URL, HTTPTimeout: metav1.Duration{Duration: 5 * time.Second}}
}

func withExtenders(p scheduler.Profile, exts ...config.Extender) scheduler.Profile {
	p.Extenders = exts
	return p
}

var _ = Describe("Extenders", func() {
	It("filters nodes, sending full nodes or only names when nodeCacheCapable", func() {
		h := startScheduler()
		name := uniqueName("ext")
		ext := newFakeExtender()
		ext.reject["n1"] = true
		cfg := ext.config()
		cfg.FilterVerb = "filter"
		a := h.apply(withExtenders(defaultProfile(name), cfg))
		Expect(a.Extenders).To(Equal([]string{ext.srv.URL}))
		createNode("n1", "8", "16Gi")
		createNode("n2", "2", "4Gi")
		createPod(newPod(h.ns, "full", name, "1", "1Gi"))
		Expect(waitBound(h.ns, "full", 10*time.Second)).To(Equal("n2"))
		ext.mu.Lock()
		Expect(ext.nodeNames).To(BeFalse())
		ext.mu.Unlock()

		cfg.NodeCacheCapable = true
		h.apply(withExtenders(defaultProfile(name), cfg))
		createPod(newPod(h.ns, "names", name, "100m", "100Mi"))
		Expect(waitBound(h.ns, "names", 10*time.Second)).To(Equal("n2"))
		ext.mu.Lock()
		defer ext.mu.Unlock()
		Expect(ext.nodeNames).To(BeTrue())
		last := ext.filters[len(ext.filters)-1]
		Expect(last.Nodes).To(BeNil())
		Expect(*last.NodeNames).To(ConsistOf("n1", "n2"))
	})

	It("adds the extender's priorities times its weight", func() {
		h := startScheduler()
		name := uniqueName("ext")
		ext := newFakeExtender()
		ext.scores["small"] = 10
		createNode("small", "2", "4Gi")
		createNode("large", "64", "256Gi")

		// Without the extender, LeastAllocated prefers the large node.
		h.apply(defaultProfile(name))
		createPod(newPod(h.ns, "plain", name, "1", "1Gi"))
		Expect(waitBound(h.ns, "plain", 10*time.Second)).To(Equal("large"))

		cfg := ext.config()
		cfg.PrioritizeVerb = "prioritize"
		cfg.Weight = 5
		h.apply(withExtenders(defaultProfile(name), cfg))
		createPod(newPod(h.ns, "weighted", name, "100m", "100Mi"))
		Expect(waitBound(h.ns, "weighted", 10*time.Second)).To(Equal("small"))
		_, prios, _ := ext.counts()
		Expect(prios).To(BeNumerically(">=", 1))
	})

	It("binds through a binder extender", func() {
		h := startScheduler()
		name := uniqueName("ext")
		ext := newFakeExtender()
		cfg := ext.config()
		cfg.BindVerb = "bind"
		h.apply(withExtenders(defaultProfile(name), cfg))
		createNode("n1", "4", "8Gi")
		createPod(newPod(h.ns, "p", name, "1", "1Gi"))
		Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n1"))
		ext.mu.Lock()
		defer ext.mu.Unlock()
		Expect(ext.bindings).To(HaveLen(1))
		Expect(ext.bindings[0].PodName).To(Equal("p"))
		Expect(ext.bindings[0].Node).To(Equal("n1"))
	})

	It("calls an extender with managedResources only for pods that request them", func() {
		h := startScheduler()
		name := uniqueName("ext")
		ext := newFakeExtender()
		cfg := ext.config()
		cfg.FilterVerb = "filter"
		cfg.ManagedResources = []config.ExtenderManagedResource{{Name: "example.com/widget", IgnoredByScheduler: true}}
		h.apply(withExtenders(defaultProfile(name), cfg))
		createNode("n1", "4", "8Gi")
		createPod(newPod(h.ns, "plain", name, "100m", "100Mi"))
		waitBound(h.ns, "plain", 10*time.Second)
		filters, _, _ := ext.counts()
		Expect(filters).To(BeZero())

		// The node has no widgets; the scheduler ignores the resource and
		// leaves it to the extender.
		createPod(newPod(h.ns, "widget", name, "100m", "100Mi", withExtendedResource("example.com/widget", "1")))
		waitBound(h.ns, "widget", 10*time.Second)
		filters, _, _ = ext.counts()
		Expect(filters).To(Equal(1))
	})

	It("skips an ignorable extender that is down", func() {
		h := startScheduler()
		name := uniqueName("ext")
		ext := newFakeExtender()
		cfg := ext.config()
		ext.srv.Close()
		cfg.FilterVerb = "filter"
		cfg.Ignorable = true
		h.apply(withExtenders(defaultProfile(name), cfg))
		createNode("n1", "4", "8Gi")
		createPod(newPod(h.ns, "p", name, "100m", "100Mi"))
		Expect(waitBound(h.ns, "p", 10*time.Second)).To(Equal("n1"))
	})

	It("fails the pod with the error of a non-ignorable extender that is down", func() {
		h := startScheduler()
		name := uniqueName("ext")
		ext := newFakeExtender()
		cfg := ext.config()
		ext.srv.Close()
		cfg.FilterVerb = "filter"
		h.apply(withExtenders(defaultProfile(name), cfg))
		createNode("n1", "4", "8Gi")
		createPod(newPod(h.ns, "p", name, "100m", "100Mi"))
		Eventually(func() string {
			c := scheduledCondition(h.ns, "p")()
			if c == nil || c.Status != v1.ConditionFalse {
				return ""
			}
			return c.Reason + ": " + c.Message
		}, 10*time.Second, 20*time.Millisecond).Should(And(HavePrefix(v1.PodReasonSchedulerError+": "), ContainSubstring("connection refused")))
		Consistently(nodeOf(h.ns, "p"), 500*time.Millisecond, 50*time.Millisecond).Should(BeEmpty())
	})
})
