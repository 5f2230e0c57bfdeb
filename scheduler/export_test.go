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

package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/parallelize"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// Queue exposes the scheduling queue to the tests.
func (s *Scheduler) Queue() *queue.Queue { return s.queue }

// Cache exposes the scheduler cache to the tests.
func (s *Scheduler) Cache() internalcache.Cache { return s.cache }

// ReviewMetrics are the review metrics of the process, as scraped from
// controller-runtime's registry: the frameworks built for reviews so far,
// those not closed yet, and the snapshots made for reviews (registered by
// the first review.New).
func ReviewMetrics() (builds, open, snapshots float64) {
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return -1, -1, -1
	}
	value := func(name string) float64 {
		for _, mf := range families {
			if mf.GetName() != name || len(mf.GetMetric()) == 0 {
				continue
			}
			m := mf.GetMetric()[0]
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
		return 0
	}
	return value("profile_scheduler_review_framework_builds_total"), value("profile_scheduler_review_frameworks_open"), value("profile_scheduler_review_snapshots_total")
}

// FrameworkParallelism is the parallelism of the live framework serving
// schedulerName and of the review framework attached to its generation
// (0 before its first review): how many goroutines their Filter and Score
// passes run on.
func (s *Scheduler) FrameworkParallelism(schedulerName string) (live, review int) {
	lp := s.gens.acquire(schedulerName)
	if lp == nil {
		return 0, 0
	}
	defer lp.release(klog.Background())
	live = parallelismOf(lp.fw.Parallelizer())
	if rf, ok := lp.attachment().(interface{ Parallelizer() fwk.Parallelizer }); ok {
		review = parallelismOf(rf.Parallelizer())
	}
	return live, review
}

// CycleDecision is the decision part of a scheduling cycle for pod (the
// snapshot update, then schedulingAlgorithm) on the live profile serving
// its schedulerName, for the benchmarks; release gives the profile back.
func (s *Scheduler) CycleDecision(pod *v1.Pod) (decide func(context.Context) error, release func(), err error) {
	lp := s.gens.acquire(pod.Spec.SchedulerName)
	if lp == nil {
		return nil, nil, fmt.Errorf("no profile serves %q", pod.Spec.SchedulerName)
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		lp.release(klog.Background())
		return nil, nil, err
	}
	qpi := &framework.QueuedPodInfo{PodInfo: pi}
	logger := klog.Background()
	l := s.loops.loopFor(pod.Spec.SchedulerName)
	decide = func(ctx context.Context) error {
		if err := l.updateSnapshot(logger); err != nil {
			return err
		}
		state := framework.NewCycleState()
		if _, st := l.schedulingAlgorithm(ctx, state, lp.fw, qpi, time.Now()); !st.IsSuccess() {
			return st.AsError()
		}
		return nil
	}
	return decide, func() { lp.release(logger) }, nil
}

// parallelismOf finds the parallelism p was made with: upstream's
// Parallelizer keeps it in a field of its own.
func parallelismOf(p fwk.Parallelizer) int {
	for n := 1; n <= 1024; n++ {
		if p == fwk.Parallelizer(parallelize.NewParallelizer(n)) {
			return n
		}
	}
	return -1
}

// BindChecks is the number of checks before binding made for profile, and
// how many of them refused the pod, by refusing plugin.
func BindChecks(profile string) (checks uint64, refused map[string]float64) {
	var m dto.Metric
	if h, err := bindCheckDuration.GetMetricWithLabelValues(profile); err == nil {
		_ = h.(interface{ Write(*dto.Metric) error }).Write(&m)
		checks = m.GetHistogram().GetSampleCount()
	}
	refused = map[string]float64{}
	for _, plugin := range []string{"NodeResourcesFit", "NodePorts", "NodeVolumeLimits", "InterPodAffinity", bindCheckNodeGone} {
		var c dto.Metric
		_ = bindChecksRefused.WithLabelValues(profile, plugin).Write(&c)
		if v := c.GetCounter().GetValue(); v > 0 {
			refused[plugin] = v
		}
	}
	return checks, refused
}

// CachedPodsOn is the number of pods the cache holds on node, -1 when the
// cache has no such node.
func (s *Scheduler) CachedPodsOn(node string) int {
	ni, err := s.cache.GetNode(node)
	if err != nil || ni.Node() == nil {
		return -1
	}
	return len(ni.Pods)
}

// NodeOvercommits is node_overcommits_total for otherScheduler.
func NodeOvercommits(otherScheduler string) float64 {
	var m dto.Metric
	_ = nodeOvercommits.WithLabelValues(otherScheduler).Write(&m)
	return m.GetCounter().GetValue()
}

// OvercommittedNodes is the overcommitted_nodes gauge as scraped.
func OvercommittedNodes() float64 { return countOvercommitted() }

// SetHold sets how long an admitted bind holds its room (tests).
func (a *Arbiter) SetHold(d time.Duration) { a.holdFor = d }

// ArbiterHolds is the number of binds the arbiter holds room for.
func ArbiterHolds() float64 { return testutil.ToFloat64(arbiterHolds) }

// Client is the scheduler's API client.
func (s *Scheduler) Client() kubernetes.Interface { return s.client }

// HoldBind holds room on node for pod as an admitted bind does, until
// ReleaseBind.
func (s *Scheduler) HoldBind(pod *v1.Pod, node string) {
	s.binds.hold(pod, node, time.Now().Add(time.Hour))
}

// ReleaseBind ends the hold of the pod uid.
func (s *Scheduler) ReleaseBind(uid types.UID) { s.binds.release(uid) }

// InformerHas reports whether the scheduler's pod informer has the pod.
func (s *Scheduler) InformerHas(namespace, name string) bool {
	_, err := s.podLister.Pods(namespace).Get(name)
	return err == nil
}

// SchedulingLoops is the scheduling_loops gauge: the loops running in the
// process.
func SchedulingLoops() float64 { return testutil.ToFloat64(loopsRunning) }

// ScheduleAttempts is upstream's scheduler_schedule_attempts_total for a
// profile and result (scheduled, unschedulable, error), as gathered from
// the legacy registry.
func ScheduleAttempts(profile, result string) float64 {
	m, err := gatheredProfileResult(legacyregistry.DefaultGatherer, "scheduler_schedule_attempts_total", profile, result)
	if err != nil {
		return -1
	}
	return m.GetCounter().GetValue()
}

// gatheredProfileResult is the series of metric name with labels profile
// and result, as g gathers it; nil (whose getters give zeros) if none.
func gatheredProfileResult(g prometheus.Gatherer, name, profile, result string) (*dto.Metric, error) {
	families, err := g.Gather()
	if err != nil {
		return nil, err
	}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["profile"] == profile && labels["result"] == result {
				return m, nil
			}
		}
	}
	return nil, nil
}
