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
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	upstream "k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// TestOperatorWatchesEachResourceOnce runs the whole operator, serving a
// profile of the default plugins, on a real API server and counts the
// watches it opened (kube-apiserver's apiserver_longrunning_requests, less
// what the API server itself watches): one per resource. A second watch of
// a resource is a second cache of all its objects: a controller-runtime
// cache of Pods or Nodes read through the manager's client beside the
// scheduler's informers, a plugin's own informer, an informer started per
// profile. Secrets are watched in the extender-secrets namespace only.
// Then it runs upstream's scheduler, with its default profile, on the same
// API server: besides the manager's own kinds, the operator watches exactly
// what upstream watches.
func TestOperatorWatchesEachResourceOnce(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, cfg, err := controlplane.Start()
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = env.Stop() }()
	cs, err := kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	c, err := client.New(cfg, client.Options{Scheme: Scheme})
	g.Expect(err).NotTo(HaveOccurred())

	watches := func(g Gomega) map[string]int {
		raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		return parseWatches(string(raw))
	}
	base := watches(g)

	opts := Defaults()
	opts.MetricsAddr, opts.ProbeAddr = "0", "0"
	opts.ExtenderSecretsNamespace = "default"
	opts.SkipControllerNameValidation = true
	op, err := New(cfg, opts)
	g.Expect(err).NotTo(HaveOccurred())
	opCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- op.Start(opCtx) }()
	stopped := false
	stopOperator := func() {
		if !stopped {
			stopped = true
			stop()
			g.Expect(<-done).To(Succeed())
		}
	}
	defer stopOperator()

	sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: "watches"}}
	g.Expect(c.Create(ctx, sp)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(sp), sp)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(sp.Status.Conditions, v1alpha1.ConditionReady)).To(BeTrue())
		g.Expect(sp.Status.ActiveGeneration).To(Equal(sp.Generation))
	}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(100 * time.Millisecond).Should(Succeed())

	opened := func(g Gomega) map[string]int {
		now := watches(g)
		delta := map[string]int{}
		for k, n := range now {
			if d := n - base[k]; d != 0 {
				delta[k] = d
			}
		}
		return delta
	}
	// Every informer of the manager and of the live profile has started.
	want := []string{"pods (cluster)", "nodes (cluster)", "secrets (namespace)",
		"schedulerprofiles.scheduling.profilescheduler.io (cluster)",
		"extenderconfigs.scheduling.profilescheduler.io (cluster)",
		"schedulingreviews.scheduling.profilescheduler.io (cluster)",
		"profileroutes.scheduling.profilescheduler.io (cluster)",
		"routingtables.scheduling.profilescheduler.io (cluster)"}
	g.Eventually(func(g Gomega) {
		got := opened(g)
		for _, k := range want {
			g.Expect(got).To(HaveKey(k), describe(got))
		}
	}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
	g.Consistently(func(g Gomega) {
		got := opened(g)
		for k, n := range got {
			g.Expect(n).To(Equal(1), "%s is watched %d times; the operator's watches: %s", k, n, describe(got))
		}
		g.Expect(got).NotTo(HaveKey("secrets (cluster)"), describe(got))
	}).WithContext(ctx).WithTimeout(2 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())

	ours := opened(g)
	for _, k := range []string{"secrets (namespace)",
		"schedulerprofiles.scheduling.profilescheduler.io (cluster)",
		"extenderconfigs.scheduling.profilescheduler.io (cluster)",
		"schedulingreviews.scheduling.profilescheduler.io (cluster)",
		"profileroutes.scheduling.profilescheduler.io (cluster)",
		"routingtables.scheduling.profilescheduler.io (cluster)"} {
		delete(ours, k) // the manager's
	}
	stopOperator()
	g.Eventually(opened).WithContext(ctx).WithTimeout(30*time.Second).WithPolling(200*time.Millisecond).Should(BeEmpty(),
		"the stopped operator's watches end")

	upCtx, stopUpstream := context.WithCancel(klog.NewContext(ctx, klog.Background()))
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	factory := upstream.NewInformerFactory(cs, 0, nil)
	sched, err := upstream.New(upCtx, cs, factory, nil, profile.NewRecorderFactory(broadcaster))
	g.Expect(err).NotTo(HaveOccurred())
	broadcaster.StartRecordingToSink(upCtx.Done())
	factory.Start(upCtx.Done())
	factory.WaitForCacheSync(upCtx.Done())
	g.Expect(sched.WaitForHandlersSync(upCtx)).To(Succeed())
	upDone := make(chan struct{})
	go func() {
		defer close(upDone)
		sched.Run(upCtx)
	}()
	defer func() {
		stopUpstream()
		<-upDone
		broadcaster.Shutdown()
		factory.Shutdown()
	}()
	g.Eventually(func(g Gomega) {
		g.Expect(opened(g)).To(Equal(ours), "upstream's watches: %s\nours, less the manager's: %s", describe(opened(g)), describe(ours))
	}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
}

var longrunning = regexp.MustCompile(`^apiserver_longrunning_requests\{([^}]*)\} (\S+)$`)
var label = regexp.MustCompile(`(\w+)="([^"]*)"`)

// parseWatches sums kube-apiserver's open WATCH requests by resource and
// scope, as "resource.group (scope)" ("pods (cluster)" for the core group).
func parseWatches(metrics string) map[string]int {
	out := map[string]int{}
	for _, line := range strings.Split(metrics, "\n") {
		m := longrunning.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		labels := map[string]string{}
		for _, l := range label.FindAllStringSubmatch(m[1], -1) {
			labels[l[1]] = l[2]
		}
		if labels["verb"] != "WATCH" || labels["subresource"] != "" {
			continue
		}
		n, err := strconv.ParseFloat(m[2], 64)
		if err != nil || n == 0 {
			continue
		}
		key := labels["resource"]
		if labels["group"] != "" {
			key += "." + labels["group"]
		}
		out[fmt.Sprintf("%s (%s)", key, labels["scope"])] += int(n)
	}
	return out
}

func describe(watches map[string]int) string {
	keys := make([]string, 0, len(watches))
	for k, n := range watches {
		keys = append(keys, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
