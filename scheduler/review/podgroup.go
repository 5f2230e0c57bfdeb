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

package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// A review of a pod that belongs to a PodGroup (GenericWorkload) answers
// for the whole group: the pod-group cycle's own algorithm
// (scheduler.RunPodGroupAlgorithm, RunPodGroupPostFilter) runs on the
// review's snapshot through placer, which assumes members there only, and
// workload-aware preemption runs with the review's DefaultPreemption,
// whose executor records its victims instead of evicting them. Nothing
// reaches the live cache, the queue or any object.

// ErrPodGroupNotFound is returned when a review names a PodGroup the
// scheduler does not know, or pod groups are off (the GenericWorkload
// feature gate).
var ErrPodGroupNotFound = errors.New("pod group not found")

// Verdicts of a GroupAnswer besides the reasons of the PodGroup's
// PodGroupInitiallyScheduled condition (Scheduled, Unschedulable,
// SchedulerError).
const (
	// GroupWaiting: the queue holds the group back (a member is gated:
	// fewer than minCount pods, a scheduling gate), so no cycle is
	// attempted and no condition is written.
	GroupWaiting = "Waiting"
	// GroupNothingPending: every member is already scheduled.
	GroupNothingPending = "NothingPending"
)

// GroupAnswer is what the pod-group cycle would decide for a group.
type GroupAnswer struct {
	Namespace, Name string
	// MinCount of the group's gang policy; 0 for a basic policy.
	MinCount int32
	// Reason is the reason of the PodGroupInitiallyScheduled condition
	// the cycle would write (Scheduled, Unschedulable, SchedulerError), or
	// GroupWaiting, or GroupNothingPending.
	Reason string
	// Message is the condition's message, byte for byte; for
	// GroupWaiting, the gating plugin's message.
	Message string
	// Members are the pending members in the order the cycle places
	// them, then the members already scheduled.
	Members []GroupMember
	// Preemption is what workload-aware preemption would do when the group
	// does not fit (dry run: no victim is touched).
	Preemption *Preemption
}

// Placed reports whether the cycle would bind the group's members.
func (g *GroupAnswer) Placed() bool { return g.Reason == "Scheduled" }

// GroupMember is one member's outcome.
type GroupMember struct {
	Name string
	// Node the algorithm placed the member on (bound there if the group
	// is placed); for a scheduled member, its node.
	Node string
	// Scheduled: the member was already bound or assumed.
	Scheduled bool
	// NominatedNode after preemption.
	NominatedNode string
	// Message is, when the member would stay pending, the message of the
	// FailedScheduling event the cycle would write for it.
	Message string
}

// podGroupsOn says whether pods of a PodGroup are scheduled as a group.
func podGroupsOn() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload)
}

// podGroupOf is the name of the PodGroup pod names, "" for none.
func podGroupOf(pod *v1.Pod) string {
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return ""
	}
	return *pod.Spec.SchedulingGroup.PodGroupName
}

// groupMembers lists the pods of a group that are not terminal or being
// deleted, by name.
func (rs *Reviews) groupMembers(namespace, name string) ([]*v1.Pod, error) {
	pods, err := rs.host.Pods().Pods(namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*v1.Pod
	for _, p := range pods {
		if podGroupOf(p) != name || p.DeletionTimestamp != nil || p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// groupHold is why the cycle would not place a group's members: the
// queue holds the group back (Reason GroupWaiting), or the cycle fails it
// before the algorithm runs (SchedulerError, as
// handlePodGroupFailureBeforeScheduling writes it). Member is each
// pending member's message.
type groupHold struct{ Reason, Message, Member string }

// pendingMembers lists the members of a group that are neither bound nor
// assumed in the live cache (gated ones included), by name.
func (rs *Reviews) pendingMembers(namespace, name string) ([]*v1.Pod, error) {
	members, err := rs.groupMembers(namespace, name)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(members, func(pod *v1.Pod) bool {
		if pod.Spec.NodeName != "" {
			return true
		}
		return rs.host.IsAssumed(pod)
	}), nil
}

// queuedGroup is a group as the queue would pop it: its pending members
// (pending: neither bound nor assumed), in upstream's member order (AddPod), and
// what holds it back before the algorithm, if anything: a member a
// PreEnqueue plugin gates (the queue then does not pop the group), or a
// group validatePodGroup fails.
func (rs *Reviews) queuedGroup(ctx context.Context, rc *cycle, namespace, name string, pending []*v1.Pod) (*framework.QueuedPodGroupInfo, *groupHold, error) {
	pg, err := rc.snapshot.PodGroups().Get(namespace, name)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s/%s", ErrPodGroupNotFound, namespace, name)
	}
	pgi := &framework.QueuedPodGroupInfo{
		PodGroupInfo: &framework.PodGroupInfo{
			Namespace: namespace,
			Name:      name,
			Type:      fwk.PodGroupKeyType,
			PodGroup:  pg,
			Children:  make([]*framework.PodGroupInfo, 0),
		},
		QueuedPodInfos: make(map[fwk.EntityKey][]*framework.QueuedPodInfo),
	}
	var gated string
	for _, pod := range pending {
		if gated == "" {
			gated = preEnqueueGate(ctx, rc.fw, pod)
		}
		if err := addMember(pgi, pod); err != nil {
			return nil, nil, err
		}
	}
	if gated != "" {
		return pgi, &groupHold{Reason: GroupWaiting, Message: gated, Member: gated}, nil
	}
	if len(pgi.QueuedPodInfos) == 0 {
		return pgi, nil, nil
	}
	// A draft (or a profile the review names) evaluates the group
	// whatever schedulerName its members ask for.
	serving := func(name string) bool { return rc.owned || name == rc.fw.ProfileName() || rs.host.Serving(name) }
	if _, err := scheduler.ValidatePodGroup(pgi, rc.snapshot.PodGroupStates(), serving); err != nil {
		st := fwk.AsStatus(err)
		return pgi, &groupHold{Reason: scheduler.PodGroupCondition(st).Reason, Message: err.Error(), Member: scheduler.FailedSchedulingMessage(st)}, nil
	}
	return pgi, nil, nil
}

// addMember adds a pending member to pgi as the queue holds it: members
// queued together have the same attempts, and a member's queue time is
// taken as its creation time (as what-if takes it), so AddPod puts the
// members in upstream's order (priority, attempts, queue time, name) and
// two reviews of the same state agree.
func addMember(pgi *framework.QueuedPodGroupInfo, pod *v1.Pod) error {
	pi, err := framework.NewPodInfo(pod.DeepCopy())
	if err != nil {
		return err
	}
	pgi.AddPod(&framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{
		Timestamp:            pod.CreationTimestamp.Time,
		UnschedulablePlugins: sets.New[string](),
		PendingPlugins:       sets.New[string](),
	}})
	return nil
}

// preEnqueueGate runs the PreEnqueue plugins on pod as the queue does,
// and returns "plugin: message" for the first that holds it back.
func preEnqueueGate(ctx context.Context, fw framework.Framework, pod *v1.Pod) string {
	for _, pl := range fw.PreEnqueuePlugins() {
		if st := pl.PreEnqueue(ctx, pod); !st.IsSuccess() {
			return pl.Name() + ": " + st.Message()
		}
	}
	return ""
}

// groupQuestion asks what the pod-group cycle would decide for the group
// namespace/name: the group a review names, or the group of the pending
// pod it names.
type groupQuestion struct {
	namespace, name string
	// profile is the schedulerName whose profile answers.
	profile string
}

// groupQuestion is the question of the group namespace/name; with no
// profile named and no draft, the profile serving its members answers.
func (rs *Reviews) groupQuestion(namespace, name, profile string, draft bool) (question, error) {
	if !podGroupsOn() {
		return nil, fmt.Errorf("%w: %s/%s (pod groups are off: the GenericWorkload feature gate)", ErrPodGroupNotFound, namespace, name)
	}
	if !rs.host.HasPodGroup(namespace, name) {
		return nil, fmt.Errorf("%w: %s/%s", ErrPodGroupNotFound, namespace, name)
	}
	if profile == "" && !draft {
		members, err := rs.groupMembers(namespace, name)
		if err != nil {
			return nil, err
		}
		if len(members) == 0 {
			return nil, fmt.Errorf("%w: pod group %s/%s has no pod to take a schedulerName from (name a profile)", ErrNotServing, namespace, name)
		}
		profile = members[0].Spec.SchedulerName
	}
	return groupQuestion{namespace: namespace, name: name, profile: profile}, nil
}

func (q groupQuestion) schedulerName() string { return q.profile }

func (q groupQuestion) ask(ctx context.Context, rs *Reviews, rc *cycle, _ scheduler.Profile, out *Answer) error {
	var err error
	out.Group, err = rs.reviewPodGroup(ctx, rc, q.namespace, q.name)
	return err
}

// reviewPodGroup answers for the group namespace/name as the pod-group
// cycle would on the review's snapshot, preemption dry-run included.
func (rs *Reviews) reviewPodGroup(ctx context.Context, rc *cycle, namespace, name string) (*GroupAnswer, error) {
	pending, err := rs.pendingMembers(namespace, name)
	if err != nil {
		return nil, err
	}
	pgi, hold, err := rs.queuedGroup(ctx, rc, namespace, name, pending)
	if err != nil {
		return nil, err
	}
	out := &GroupAnswer{Namespace: namespace, Name: name}
	if gang := pgi.PodGroup.Spec.SchedulingPolicy.Gang; gang != nil {
		out.MinCount = gang.MinCount
	}
	defer func() { out.Members = append(out.Members, scheduledMembers(rc, pgi)...) }()
	infos := pgi.QueuedPodInfos[fwk.PodGroupKey(pgi.Namespace, pgi.Name)]
	switch {
	case hold != nil:
		out.Reason, out.Message = hold.Reason, hold.Message
		for _, p := range infos {
			out.Members = append(out.Members, GroupMember{Name: p.Pod.Name, Message: hold.Member})
		}
		return out, nil
	case len(infos) == 0:
		out.Reason = GroupNothingPending
		return out, nil
	}
	rc.scoredNodes = 1
	ctx = klog.NewContext(ctx, klog.LoggerWithValues(klog.FromContext(ctx), "podGroup", klog.KObj(pgi)))
	cycleState := framework.NewCycleState()
	result, rootStatus := scheduler.RunPodGroupAlgorithm(ctx, placer{rc}, rc.fw, cycleState, pgi)
	if rootStatus.Code() == fwk.Unschedulable {
		out.Preemption = &Preemption{}
		scheduler.RunPodGroupPostFilter(ctx, placer{rc}, rc.fw, cycleState, pgi, result, rootStatus, rc.podGroupPostFilter(out.Preemption))
	}
	cond := scheduler.PodGroupCondition(result.Status())
	out.Reason, out.Message = cond.Reason, cond.Message
	for i, p := range infos {
		m := GroupMember{Name: p.Pod.Name, Node: result.Node(i)}
		if st, nominating := result.MemberFailure(i); st != nil {
			m.Message = scheduler.FailedSchedulingMessage(st)
			if nominating != nil && nominating.Mode() == fwk.ModeOverride {
				m.NominatedNode = nominating.NominatedNodeName
			}
		}
		out.Members = append(out.Members, m)
	}
	return out, nil
}

// scheduledMembers lists the group's members bound or assumed in the
// review's snapshot.
func scheduledMembers(rc *cycle, pgi *framework.QueuedPodGroupInfo) []GroupMember {
	state, err := rc.snapshot.PodGroupStates().Get(pgi.Namespace, pgi.Name)
	if err != nil {
		return nil
	}
	var out []GroupMember
	for _, p := range state.ScheduledPods() {
		out = append(out, GroupMember{Name: p.Name, Node: p.Spec.NodeName, Scheduled: true})
	}
	slices.SortFunc(out, func(a, b GroupMember) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// placer places a group's members on the review's snapshot: each member
// is filtered and scored as a review evaluates a pod (every node, ties
// broken by name) and assumed on the snapshot for the next. It runs no
// Reserve plugin (a review never does): a member's claims and volumes are
// not reserved for the next member.
type placer struct{ rc *cycle }

var _ scheduler.PodGroupPlacer = placer{}

func (p placer) PodGroupStates() fwk.PodGroupStateLister { return p.rc.snapshot.PodGroupStates() }

func (p placer) Place(ctx context.Context, state fwk.CycleState, podInfo *framework.QueuedPodInfo) (string, int, *fwk.Status, error) {
	r, status, err := p.rc.evaluateIn(ctx, state, podInfo.Pod)
	if err != nil {
		return "", 0, nil, err
	}
	return r.SelectedNode, len(r.Feasible), status, nil
}

func (p placer) Assume(podInfo *framework.QueuedPodInfo, node string) (*framework.QueuedPodInfo, error) {
	assumed := podInfo.DeepCopy()
	assumed.Pod.Spec.NodeName = node
	return assumed, p.rc.assume(assumed.PodInfo)
}

func (p placer) Forget(ctx context.Context, assumed *framework.QueuedPodInfo) error {
	return p.rc.forget(klog.FromContext(ctx), assumed.Pod)
}

// podGroupPostFilter runs the profile's PodGroupPostFilter plugins as the
// framework does (RunPodGroupPostFilterPlugins), DefaultPreemption as the
// review's own, whose executor records the victims in out instead of
// evicting them. A plugin a review cannot run without side effects
// (DynamicResources for a group with claims, any other) counts as
// Unschedulable without a reason, and out says so.
func (rc *cycle) podGroupPostFilter(out *Preemption) scheduler.PodGroupPostFilter {
	return func(ctx context.Context, state *framework.CycleState, pgi fwk.PodGroupInfo, schedule fwk.PodGroupSchedulingFunc) (*fwk.PodGroupPostFilterResult, *fwk.Status) {
		var reasons []string
		var rejector string
		for _, pl := range rc.fw.PodGroupPostFilterPlugins() {
			var res *fwk.PodGroupPostFilterResult
			var status *fwk.Status
			switch name := pl.Name(); {
			case name == defaultpreemption.Name && rc.preemption != nil:
				rc.victims.reset()
				res, status = rc.preemption.PodGroupPostFilter(ctx, state, pgi, schedule)
				out.Victims = rc.victims.take()
				out.Message = status.Message()
			case name == dynamicresources.Name && !groupHasClaims(pgi):
				// Nothing to deallocate: its answer without a reason.
				status = fwk.NewStatus(fwk.Unschedulable)
			default:
				out.NotEvaluated = fmt.Sprintf("PodGroupPostFilter plugin %s is not run in a review", name)
				if name == defaultpreemption.Name {
					out.NotEvaluated = rc.notPreempting
				}
				status = fwk.NewStatus(fwk.Unschedulable)
			}
			switch {
			case status.IsSuccess():
				return res, status
			case status.Code() == fwk.UnschedulableAndUnresolvable:
				return res, status.WithPlugin(pl.Name())
			case status.Code() == fwk.Unschedulable:
				reasons = append(reasons, status.Reasons()...)
				if rejector == "" {
					rejector = pl.Name()
				}
			default:
				return nil, fwk.AsStatus(fmt.Errorf("error in %q PodGroupPostFilter plugins: %s", pl.Name(), status.Message())).WithPlugin(pl.Name())
			}
		}
		return nil, fwk.NewStatus(fwk.Unschedulable, reasons...).WithPlugin(rejector)
	}
}

// groupHasClaims reports whether a pending member has resource claims.
func groupHasClaims(pgi fwk.PodGroupInfo) bool {
	for _, p := range pgi.GetUnscheduledPods() {
		if len(p.Spec.ResourceClaims) > 0 {
			return true
		}
	}
	return false
}

// whatIfGroup places the pending members of a group all or nothing with
// the pod-group algorithm on the review's snapshot; when the group fits,
// its members stay assumed there for the pods after it. Preemption is not
// run: a group that would preempt stays pending.
func (rs *Reviews) whatIfGroup(ctx context.Context, rc *cycle, namespace, name string) ([]WhatIfPod, error) {
	pending, err := rs.pendingMembers(namespace, name)
	if err != nil {
		return nil, err
	}
	return rs.placeGroup(ctx, rc, namespace, name, pending)
}

// placeGroup places pending, the pending members of the group
// namespace/name, as whatIfGroup says, on rc's snapshot: the live
// review's, or a scenario's (whose pending members are the cluster's and
// those its drain evicts).
func (rs *Reviews) placeGroup(ctx context.Context, rc *cycle, namespace, name string, pending []*v1.Pod) ([]WhatIfPod, error) {
	pgi, hold, err := rs.queuedGroup(ctx, rc, namespace, name, pending)
	if errors.Is(err, ErrPodGroupNotFound) {
		// The queue holds the members until their PodGroup is observed.
		var out []WhatIfPod
		for _, p := range pending {
			if len(p.Spec.SchedulingGates) == 0 {
				out = append(out, WhatIfPod{Namespace: namespace, Name: p.Name, Group: name, Message: fmt.Sprintf("waiting for its PodGroup %q to be observed", name)})
			}
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	infos := pgi.QueuedPodInfos[fwk.PodGroupKey(pgi.Namespace, pgi.Name)]
	out := make([]WhatIfPod, 0, len(infos))
	if hold != nil {
		for _, p := range infos {
			out = append(out, WhatIfPod{Namespace: namespace, Name: p.Pod.Name, Group: name, Message: hold.Member})
		}
		return out, nil
	}
	ctx = klog.NewContext(ctx, klog.LoggerWithValues(klog.FromContext(ctx), "podGroup", klog.KObj(pgi)))
	pl := placer{rc}
	result, _ := scheduler.RunPodGroupAlgorithm(ctx, pl, rc.fw, framework.NewCycleState(), pgi)
	for i, p := range infos {
		res := WhatIfPod{Namespace: namespace, Name: p.Pod.Name, Group: name}
		if st, _ := result.MemberFailure(i); st != nil {
			res.Message = scheduler.FailedSchedulingMessage(st)
			out = append(out, res)
			continue
		}
		// Kept on the snapshot for the pods after the group.
		res.Node = result.Node(i)
		if _, err := pl.Assume(p, res.Node); err != nil {
			return nil, fmt.Errorf("assuming %s on the review's snapshot: %w", klog.KObj(p.Pod), err)
		}
		out = append(out, res)
	}
	return out, nil
}
