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
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	upstream "k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// fault is how an extender misbehaves.
type fault string

const (
	faultSlow        fault = "slow"      // answers after httpTimeout
	fault500         fault = "error500"  // answers 500
	faultMalformed   fault = "malformed" // answers what is not JSON
	faultUnknownNode fault = "ghost"     // answers with a node it was not asked about
	faultHangUp      fault = "hangup"    // closes the connection mid-response
)

var faults = []fault{faultSlow, fault500, faultMalformed, faultUnknownNode, faultHangUp}

// extenderTimeout is the httpTimeout of the faulty extenders.
const extenderTimeout = 300 * time.Millisecond

// faultyExtender serves filter and prioritize, both misbehaving with f.
func faultyExtender(f fault) *httptest.Server {
	GinkgoHelper()
	handle := func(verb string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var args extenderv1.ExtenderArgs
			if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			switch f {
			case faultSlow:
				select {
				case <-r.Context().Done(): // the client gave up
				case <-time.After(20 * extenderTimeout):
				}
				return
			case fault500:
				http.Error(w, "extender is broken", http.StatusInternalServerError)
				return
			case faultMalformed:
				_, _ = w.Write([]byte("this is not JSON"))
				return
			case faultHangUp:
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"nodeNames\":[\"")
				_ = buf.Flush()
				_ = conn.Close()
				return
			}
			names := argNodes(&args)
			if verb == "filter" {
				kept := append(append([]string{}, names...), "ghost-node")
				_ = json.NewEncoder(w).Encode(&extenderv1.ExtenderFilterResult{NodeNames: &kept})
				return
			}
			list := extenderv1.HostPriorityList{{Host: "ghost-node", Score: extenderv1.MaxExtenderPriority}}
			for _, n := range names {
				list = append(list, extenderv1.HostPriority{Host: n, Score: 1})
			}
			_ = json.NewEncoder(w).Encode(&list)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/filter", handle("filter"))
	mux.HandleFunc("/prioritize", handle("prioritize"))
	srv := httptest.NewServer(mux)
	DeferCleanup(srv.Close)
	return srv
}

// extenderCase is one misbehaving extender, called only for pods that
// request its resource (managedResources), so one scheduler holds them all.
type extenderCase struct {
	name     string
	fault    fault
	filter   bool // filters (and prioritizes); else prioritizes only
	ignore   bool
	resource string
	url      string
	config   config.Extender
}

func extenderCases() []*extenderCase {
	GinkgoHelper()
	var out []*extenderCase
	add := func(f fault, filter, ignorable bool) {
		c := &extenderCase{fault: f, filter: filter, ignore: ignorable}
		verb := "prioritize"
		if filter {
			verb = "filter"
		}
		c.name = fmt.Sprintf("%s-%s-ignorable-%t", verb, f, ignorable)
		c.resource = "fault.example.com/" + c.name
		c.url = faultyExtender(f).URL
		c.config = config.Extender{
			URLPrefix:        c.url,
			PrioritizeVerb:   "prioritize",
			Weight:           1,
			HTTPTimeout:      metav1.Duration{Duration: extenderTimeout},
			NodeCacheCapable: true,
			Ignorable:        ignorable,
			ManagedResources: []config.ExtenderManagedResource{{Name: c.resource, IgnoredByScheduler: true}},
		}
		if filter {
			c.config.FilterVerb = "filter"
		}
		out = append(out, c)
	}
	for _, f := range faults {
		add(f, true, false)
		add(f, true, true)
		add(f, false, false)
	}
	return out
}

// startUpstreamWith runs upstream kube-scheduler's scheduler in-process,
// serving one default profile under name, with the given extenders.
func startUpstreamWith(name string, extenders ...config.Extender) {
	GinkgoHelper()
	prof, err := scheduler.DefaultProfile(name)
	Expect(err).NotTo(HaveOccurred())
	startUpstream(upstream.WithProfiles(prof), upstream.WithExtenders(extenders...),
		upstream.WithPodInitialBackoffSeconds(1), upstream.WithPodMaxBackoffSeconds(2))
}

// podOutcome is "bound", or the reason and message of PodScheduled=False;
// "" while neither.
func podOutcome(ns, name string) func() string {
	return func() string {
		p := getPod(ns, name)
		if p.Spec.NodeName != "" {
			return "bound"
		}
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse {
				return c.Reason + ": " + c.Message
			}
		}
		return ""
	}
}

var _ = Describe("Extenders that misbehave", func() {
	It("are handled as upstream kube-scheduler handles them, with the same pod messages, and are measured", func() {
		h := startScheduler(scheduler.WithPodBackoff(time.Second, 2*time.Second))
		name := uniqueName("faults")
		upstreamName := uniqueName("faults-upstream")
		cases := extenderCases()
		var cfgs []config.Extender
		for _, c := range cases {
			cfgs = append(cfgs, c.config)
		}
		h.apply(withExtenders(defaultProfile(name), cfgs...))
		startUpstreamWith(upstreamName, cfgs...)
		// Two nodes, so that prioritize is called.
		createNode("n1", "4", "8Gi")
		createNode("n2", "8", "16Gi")

		for _, c := range cases {
			createPod(newPod(h.ns, "ours-"+c.name, name, "100m", "100Mi", withExtendedResource(c.resource, "1")))
			createPod(newPod(h.ns, "upstream-"+c.name, upstreamName, "100m", "100Mi", withExtendedResource(c.resource, "1")))
		}

		// What upstream's HTTP extender reports for each fault, and what
		// its scheduling cycle makes of it.
		errText := map[fault]string{
			faultSlow:        "Client.Timeout exceeded while awaiting headers",
			fault500:         "code 500",
			faultMalformed:   "invalid character",
			faultUnknownNode: `claims a filtered node "ghost-node" which is not found in the input node list`,
			faultHangUp:      "unexpected EOF",
		}
		for _, c := range cases {
			By(c.name)
			theirs := ""
			Eventually(func() string { theirs = podOutcome(h.ns, "upstream-"+c.name)(); return theirs }).
				WithTimeout(30 * time.Second).WithPolling(20 * time.Millisecond).ShouldNot(BeEmpty())
			ours := ""
			Eventually(func() string { ours = podOutcome(h.ns, "ours-"+c.name)(); return ours }).
				WithTimeout(30 * time.Second).WithPolling(20 * time.Millisecond).ShouldNot(BeEmpty())
			GinkgoWriter.Printf("%-40s upstream: %s\n%-40s ours:     %s\n", c.name, theirs, "", ours)
			Expect(ours).To(Equal(theirs), c.name)

			switch {
			case c.filter && !c.ignore:
				// A filter error fails the cycle: the pod waits, with the error.
				Expect(ours).To(HavePrefix(v1.PodReasonSchedulerError+": "), c.name)
				if c.fault != faultMalformed && c.fault != faultHangUp {
					// Upstream names the extender, except when its answer
					// does not decode: then only the metric says which.
					Expect(ours).To(ContainSubstring(c.url), c.name)
				}
				Expect(ours).To(ContainSubstring(errText[c.fault]), c.name)
				Consistently(nodeOf(h.ns, "ours-"+c.name), 200*time.Millisecond, 20*time.Millisecond).Should(BeEmpty())
			default:
				// An ignorable extender is skipped; a prioritize error only
				// costs the extender's score.
				Expect(ours).To(Equal("bound"), c.name)
			}

			verb := "prioritize"
			if c.filter {
				verb = "filter"
			}
			calls := testutil.ToFloat64(scheduler.ExtenderCalls.WithLabelValues(name, c.url, verb))
			failed := testutil.ToFloat64(scheduler.ExtenderErrors.WithLabelValues(name, c.url, verb))
			Expect(calls).To(BeNumerically(">=", 1), "%s: calls", c.name)
			if c.fault == faultUnknownNode && !c.filter {
				// A score for an unknown node is ignored, not an error.
				Expect(failed).To(BeZero(), "%s: errors", c.name)
			} else {
				Expect(failed).To(BeNumerically(">=", 1), "%s: errors", c.name)
			}
			Expect(testutil.CollectAndCount(scheduler.ExtenderCallDuration, "profile_scheduler_extender_call_duration_seconds")).To(BeNumerically(">=", 1))
		}

		By("the metrics are served on the manager's registry")
		families, err := ctrlmetrics.Registry.Gather()
		Expect(err).NotTo(HaveOccurred())
		var served []string
		for _, mf := range families {
			served = append(served, mf.GetName())
		}
		Expect(served).To(ContainElements("profile_scheduler_extender_calls_total",
			"profile_scheduler_extender_errors_total", "profile_scheduler_extender_call_duration_seconds"))
	})
})
