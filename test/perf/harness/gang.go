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
	"fmt"
	"sort"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/test/stats"
	"github.com/profile-scheduler/profile-scheduler/test/perf/workloads"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// GangRun is what a run of a case with PodGroups measured of its groups.
type GangRun struct {
	// Groups of the measured step, and how many the watch saw wholly bound.
	Groups      int `json:"groups"`
	GroupsBound int `json:"groupsBound"`
	// GroupBoundMillis is, over the measured groups wholly bound, the time
	// from the group's last member's creation (the resume, in a throughput
	// run, for members created before it) to its last member's bind, both
	// seen by the harness's watch.
	GroupBoundMillis stats.Summary `json:"groupBoundMillis"`
	// PodGroups is every PodGroup of the run (all steps) read from the API
	// at the end of the measured step.
	PodGroups int `json:"podGroups"`
	// PartiallyBound counts the PodGroups that had some member bound but
	// not all of them, or fewer than minCount, at the end of the measured
	// step, from the API; PartiallyBoundGroups names up to ten as
	// group bound/members (minCount).
	PartiallyBound       int      `json:"partiallyBound"`
	PartiallyBoundGroups []string `json:"partiallyBoundGroups,omitempty"`
	// ExpectedPending counts the groups of expectPending steps;
	// StayedPending those with no member bound at the end, from the API.
	ExpectedPending int `json:"expectedPending"`
	StayedPending   int `json:"stayedPending"`
}

// GroupLabel names the PodGroup a benchmark pod belongs to.
const GroupLabel = "bench.profilescheduler.io/group"

// assignGroups makes pods the members of groups: each names its group in
// spec.schedulingGroup.podGroupName and carries GroupLabel.
func assignGroups(pods []*corev1.Pod, groups []workloads.Group) error {
	for _, g := range groups {
		if g.First+g.Size > len(pods) {
			return fmt.Errorf("group %s: members %d..%d, only %d pods", g.Name, g.First, g.First+g.Size-1, len(pods))
		}
		for _, p := range pods[g.First : g.First+g.Size] {
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(g.Name)}
			p.Labels[GroupLabel] = g.Name
		}
	}
	return nil
}

// podGroup is the PodGroup object of g: gang policy with g's minCount,
// no Workload behind it (workloadRef is optional).
func podGroup(ns, step string, g workloads.Group) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: ns, Labels: map[string]string{StepLabel: step}},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
				Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: int32(g.MinCount)},
			},
		},
	}
}

// createPodGroups creates the step's PodGroups (before any member).
func (r *Runner) createPodGroups(ctx context.Context, e *env, step string, groups []workloads.Group) error {
	if len(groups) == 0 {
		return nil
	}
	e.podGroups = true
	return r.parallel(ctx, len(groups), func(ctx context.Context, i int) error {
		_, err := r.CP.Core.SchedulingV1beta1().PodGroups(e.ns).Create(ctx, podGroup(e.ns, step, groups[i]), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("PodGroup %s: %w", groups[i].Name, err)
		}
		return nil
	})
}

// gang measures the run's groups once the measured step s has ended: the
// measured groups' bind times from the watch, and every group's bound
// members from the API.
func (r *Runner) gang(ctx context.Context, c *workloads.Case, e *env, s *workloads.CreatePods, vals map[string]int) (*GangRun, error) {
	layout, err := s.Layout(vals)
	if err != nil {
		return nil, err
	}
	g := &GangRun{Groups: len(layout)}
	seen := e.rec.Groups(s.Prefix)
	var lat []time.Duration
	for _, grp := range layout {
		t, ok := seen[grp.Name]
		if !ok || t.Members != grp.Size || t.Bound != t.Members {
			continue
		}
		g.GroupsBound++
		from := t.LastCreated
		if from.Before(e.measureStart) {
			from = e.measureStart
		}
		lat = append(lat, t.LastBound.Sub(from))
	}
	g.GroupBoundMillis = stats.Summarize(stats.Durations(lat))

	pending := map[string]bool{}
	for _, st := range c.Steps {
		if st.CreatePods != nil && st.CreatePods.ExpectPending {
			pending[st.CreatePods.Prefix] = true
		}
	}
	census, err := r.groupCensus(ctx, e.ns)
	if err != nil {
		return g, err
	}
	g.tally(census, pending)
	r.logf("gang: %d/%d measured groups bound, group bound after last member p50 %.0f / p99 %.0f ms; %d PodGroups, %d partially bound; %d of %d expected pending stayed pending",
		g.GroupsBound, g.Groups, g.GroupBoundMillis.P50, g.GroupBoundMillis.P99, g.PodGroups, g.PartiallyBound, g.StayedPending, g.ExpectedPending)
	return g, nil
}

// tally counts, over the census, the groups partially bound (some members
// bound, but not all or fewer than minCount) and the groups of the steps in
// pending (expected pending) with no member bound.
func (g *GangRun) tally(census map[string]*groupState, pending map[string]bool) {
	names := make([]string, 0, len(census))
	for n := range census {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		x := census[n]
		g.PodGroups++
		if x.bound > 0 && (x.bound < x.members || x.bound < x.minCount) {
			g.PartiallyBound++
			if len(g.PartiallyBoundGroups) < 10 {
				g.PartiallyBoundGroups = append(g.PartiallyBoundGroups, fmt.Sprintf("%s %d/%d (minCount %d)", n, x.bound, x.members, x.minCount))
			}
		}
		if pending[x.step] {
			g.ExpectedPending++
			if x.bound == 0 {
				g.StayedPending++
			}
		}
	}
}

// groupState is one PodGroup as the API shows it: its step, minCount,
// and its members (pods naming it, not being deleted), bound or not.
type groupState struct {
	step           string
	minCount       int
	members, bound int
}

// groupCensus reads every PodGroup of namespace ns and the pods naming
// them from the API.
func (r *Runner) groupCensus(ctx context.Context, ns string) (map[string]*groupState, error) {
	pgs, err := r.CP.Core.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing PodGroups: %w", err)
	}
	out := map[string]*groupState{}
	for _, pg := range pgs.Items {
		st := &groupState{step: pg.Labels[StepLabel]}
		if gang := pg.Spec.SchedulingPolicy.Gang; gang != nil {
			st.minCount = int(gang.MinCount)
		}
		out[pg.Name] = st
	}
	pods, err := r.CP.Core.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	for _, p := range pods.Items {
		sg := p.Spec.SchedulingGroup
		if p.DeletionTimestamp != nil || sg == nil || sg.PodGroupName == nil {
			continue
		}
		st := out[*sg.PodGroupName]
		if st == nil {
			// A pod naming a PodGroup that does not exist: counted too.
			st = &groupState{step: p.Labels[StepLabel]}
			out[*sg.PodGroupName] = st
		}
		st.members++
		if p.Spec.NodeName != "" {
			st.bound++
		}
	}
	return out, nil
}
