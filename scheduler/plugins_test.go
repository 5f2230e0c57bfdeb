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
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// Labels that steer the test plugins, per pod.
const (
	labelPermit  = "test/permit"  // "wait" holds the pod at Permit ("wait-once": its first time only), "reject" rejects it
	labelReserve = "test/reserve" // "fail" rejects at Reserve, "error-N" errors the first N times
	labelBind    = "test/bind"    // "fail-once" fails the first Bind
	hooksName    = "TestHooks"
	flakyName    = "FlakyBind"
)

// calls records, per pod name, the extension points the test plugins saw.
type calls struct {
	mu     sync.Mutex
	byPod  map[string][]string
	times  map[string][]time.Time
	handle fwk.Handle
	binds  map[string]int
}

var recorded = &calls{byPod: map[string][]string{}, times: map[string][]time.Time{}, binds: map[string]int{}}

// add records a call and returns how many times pod reached point.
func (c *calls) add(pod *v1.Pod, point string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byPod[pod.Name] = append(c.byPod[pod.Name], point)
	key := pod.Name + "/" + point
	c.times[key] = append(c.times[key], time.Now())
	return len(c.times[key])
}

// timesOf returns when pod reached point, in order.
func (c *calls) timesOf(pod, point string) []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.times[pod+"/"+point]...)
}

func (c *calls) of(pod string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.byPod[pod]...)
}

func (c *calls) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byPod = map[string][]string{}
	c.times = map[string][]time.Time{}
	c.binds = map[string]int{}
}

// allowWaiting lets every pod waiting at Permit go on; it returns how many.
func (c *calls) allowWaiting() int {
	c.mu.Lock()
	h := c.handle
	c.mu.Unlock()
	n := 0
	h.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		wp.Allow(hooksName)
		n++
	})
	return n
}

func (c *calls) waitingCount() int {
	c.mu.Lock()
	h := c.handle
	c.mu.Unlock()
	if h == nil {
		return 0
	}
	n := 0
	h.IterateOverWaitingPods(func(fwk.WaitingPod) { n++ })
	return n
}

// hooks records Reserve, Unreserve, Permit, PreBind and PostBind.
type hooks struct{}

var (
	_ fwk.ReservePlugin  = hooks{}
	_ fwk.PermitPlugin   = hooks{}
	_ fwk.PreBindPlugin  = hooks{}
	_ fwk.PostBindPlugin = hooks{}
)

func (hooks) Name() string { return hooksName }

// hooksClosed counts the frameworks closed with TestHooks in them.
var hooksClosed atomic.Int64

// Close is called when the framework holding this instance is closed.
func (hooks) Close() error {
	hooksClosed.Add(1)
	return nil
}

func (hooks) Reserve(_ context.Context, _ fwk.CycleState, p *v1.Pod, _ string) *fwk.Status {
	n := recorded.add(p, "Reserve")
	v := p.Labels[labelReserve]
	if v == "fail" {
		return fwk.NewStatus(fwk.Unschedulable, "reserve refused by test")
	}
	var limit int
	if _, err := fmt.Sscanf(v, "error-%d", &limit); err == nil && n <= limit {
		return fwk.AsStatus(fmt.Errorf("reserve error %d of %d injected by test", n, limit))
	}
	return nil
}

func (hooks) Unreserve(_ context.Context, _ fwk.CycleState, p *v1.Pod, _ string) {
	recorded.add(p, "Unreserve")
}

func (hooks) Permit(_ context.Context, _ fwk.CycleState, p *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	n := recorded.add(p, "Permit")
	switch p.Labels[labelPermit] {
	case "wait":
		return fwk.NewStatus(fwk.Wait), time.Minute
	case "wait-once":
		if n == 1 {
			return fwk.NewStatus(fwk.Wait), time.Minute
		}
	case "reject":
		return fwk.NewStatus(fwk.Unschedulable, "permit refused by test"), 0
	}
	return nil, 0
}

func (hooks) PreBindPreFlight(context.Context, fwk.CycleState, *v1.Pod, string) (*fwk.PreBindPreFlightResult, *fwk.Status) {
	return nil, nil
}

func (hooks) PreBind(_ context.Context, _ fwk.CycleState, p *v1.Pod, _ string) *fwk.Status {
	recorded.add(p, "PreBind")
	return nil
}

func (hooks) PostBind(_ context.Context, _ fwk.CycleState, p *v1.Pod, _ string) {
	recorded.add(p, "PostBind")
}

// flakyBind fails the first Bind of pods labelled fail-once, every Bind
// of pods labelled fail-always, and skips otherwise, so DefaultBinder
// binds.
type flakyBind struct{}

func (flakyBind) Name() string { return flakyName }

func (flakyBind) Bind(_ context.Context, _ fwk.CycleState, p *v1.Pod, _ string) *fwk.Status {
	recorded.mu.Lock()
	recorded.binds[p.Name]++
	n := recorded.binds[p.Name]
	recorded.mu.Unlock()
	recorded.add(p, "Bind")
	if p.Labels[labelBind] == "fail-once" && n == 1 {
		return fwk.AsStatus(fmt.Errorf("bind refused once by test"))
	}
	if p.Labels[labelBind] == "fail-always" {
		return fwk.AsStatus(fmt.Errorf("bind refused by test"))
	}
	return fwk.NewStatus(fwk.Skip)
}

// testRegistry holds the test plugins; they are enabled per profile.
var testRegistry = frameworkruntime.Registry{
	hooksName: func(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		recorded.mu.Lock()
		recorded.handle = h
		recorded.mu.Unlock()
		return hooks{}, nil
	},
	flakyName: func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
		return flakyBind{}, nil
	},
}

// withHooks enables the test plugins: TestHooks everywhere it applies and
// FlakyBind before DefaultBinder.
func withHooks(p *config.KubeSchedulerProfile) {
	p.Plugins.MultiPoint.Enabled = append(p.Plugins.MultiPoint.Enabled, config.Plugin{Name: hooksName})
	p.Plugins.Bind = config.PluginSet{
		Enabled:  []config.Plugin{{Name: flakyName}, {Name: names.DefaultBinder}},
		Disabled: []config.Plugin{{Name: names.DefaultBinder}},
	}
}
