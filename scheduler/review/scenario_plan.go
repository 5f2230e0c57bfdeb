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
	"fmt"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// ScenarioLimits bound a scenario once expanded: nodes in its snapshot
// (the cluster's, less those removed, plus those added, plus Minimize's
// Max) and pods it places (pending, evicted and added). NodePods bounds
// their product, the estimate of what a scenario costs in memory: each
// pod placed is judged on every node, and what the judgement keeps per
// node (its verdict, the pods placed on it) grows with both.
type ScenarioLimits struct {
	Nodes, Pods int
	NodePods    int
}

// DefaultScenarioLimits are the limits of WithScenarioLimits unset. At
// the NodePods budget a scenario takes the operator about 100 MB, a tenth
// of the chart's memory limit: 9,900 pods on 4,900 added nodes (48
// million) took 200 MB before the budget refused them.
var DefaultScenarioLimits = ScenarioLimits{Nodes: 10000, Pods: 10000, NodePods: 20_000_000}

// scenarioPlan is a scenario expanded against the cluster's nodes.
type scenarioPlan struct {
	// kept are the cluster's nodes, those removed cordoned, and keptPods
	// their pods but those a drain evicts.
	kept     []*v1.Node
	keptPods []*v1.Pod
	// added are the nodes of AddNodes.
	added []*v1.Node
	// minimizeShape is the node Minimize adds copies of; names names them.
	minimizeShape *v1.Node
	names         *nodeNamer
	reportBy      string
	// removed are the nodes drained: left out of the shares after.
	removed  sets.Set[string]
	notMoved int
	// queued are the pending and evicted pods, in queue order once
	// sorted; sources says which are pending (the others are evicted).
	queued  []*framework.QueuedPodInfo
	sources map[types.UID]PodSource
	from    map[types.UID]string
	// groupPending are the pending members of each pod group of queued
	// ("namespace/name"): the cluster's pending ones (gated included)
	// and those the drain evicts. podGroups are the PodGroup objects of
	// the groups of queued and keptPods, from the review's snapshot: a
	// run's snapshot holds them, so that pending groups are placed as the
	// pod-group cycle places them.
	groupPending map[string][]*v1.Pod
	podGroups    []*schedulingv1beta1.PodGroup
	// extra are the pods of Scenario.Pods, entry by entry.
	extra [][]*framework.QueuedPodInfo
	// groups are the entries of extra that are pod groups (MinCount).
	groups map[int]int
}

// checkPods checks the pods to place, pending ones included, against the
// limit.
func (p *scenarioPlan) checkPods(limits ScenarioLimits, sc *Scenario) error {
	n := len(p.queued)
	for _, e := range p.extra {
		n += len(e)
	}
	field := "pods"
	if len(sc.RemoveNodes) > 0 || sc.RemoveSelector != nil {
		field = "removeNodes"
	}
	if n > limits.Pods {
		return tooLarge(field, "the scenario would place %d pods (%d of them pending in the cluster, the others evicted or added), over the operator's limit of %d (--scenario-max-pods)", n, len(p.sources), limits.Pods)
	}
	nodes := len(p.kept) + len(p.added)
	if sc.Minimize != nil {
		nodes += sc.Minimize.Max
	}
	if limits.NodePods > 0 && n*nodes > limits.NodePods {
		return tooLarge(field, "the scenario would place %d pods on up to %d nodes: %d pods times nodes, over the operator's memory budget of %d (--scenario-max-node-pods); ask with fewer pods or nodes", n, nodes, n*nodes, limits.NodePods)
	}
	return nil
}

func tooLarge(field, format string, args ...any) error {
	return &ScenarioError{Field: field, TooLarge: true, Err: fmt.Errorf(format, args...)}
}

// movedByDrain says whether a drain recreates pod elsewhere: not a
// DaemonSet's pod, nor a static (mirror) pod, nor a finished one.
func movedByDrain(pod *v1.Pod) bool {
	if _, mirror := pod.Annotations[v1.MirrorPodAnnotationKey]; mirror {
		return false
	}
	if pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
		return false
	}
	for _, ref := range pod.OwnerReferences {
		if ref.Controller != nil && *ref.Controller && ref.Kind == "DaemonSet" {
			return false
		}
	}
	return true
}

// queuedCopy is pod pending again, queued at now.
func queuedCopy(pod *v1.Pod, now time.Time) (*framework.QueuedPodInfo, error) {
	pod = shallowCopy(pod)
	pod.Spec.NodeName = ""
	pod.Status.NominatedNodeName = ""
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return nil, err
	}
	return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: now}}, nil
}

// shallowCopy copies pod's top-level fields, sharing its maps and slices
// (labels, annotations, containers), which a review never writes: a
// review sets a copy's name, UID, schedulingGroup, nodeName or nominated
// node only. A scenario holds a copy per replica and places a copy per
// run; deep copies of a template's metadata were most of its memory.
func shallowCopy(pod *v1.Pod) *v1.Pod {
	c := *pod
	return &c
}

// nodeShape is the node a shape copies: the cluster's node FromNode, or
// the template, which must say what it can hold.
func nodeShape(snapshot *internalcache.Snapshot, shape NodeShape, field string) (*v1.Node, error) {
	switch {
	case shape.FromNode != "" && shape.Template != nil:
		return nil, scenarioErrorf(field, "set one of fromNode and template, not both")
	case shape.FromNode != "":
		ni, err := snapshot.Get(shape.FromNode)
		if err != nil {
			return nil, scenarioErrorf(field+".fromNode", "no node %q in the cluster", shape.FromNode)
		}
		node := ni.Node().DeepCopy()
		node.Name = shape.FromNode + "-copy"
		return node, nil
	case shape.Template != nil:
		node := shape.Template.DeepCopy()
		alloc := node.Status.Allocatable
		if len(alloc) == 0 {
			return nil, scenarioErrorf(field+".template.status.allocatable", "Required value: a template says what its nodes can hold (cpu, memory, pods)")
		}
		if q, ok := alloc[v1.ResourcePods]; !ok || q.Value() <= 0 {
			return nil, scenarioErrorf(field+".template.status.allocatable.pods", "Required value: a node without room for pods takes none")
		}
		if node.Name == "" {
			node.Name = "node"
		}
		return node, nil
	}
	return nil, scenarioErrorf(field, "set one of fromNode and template")
}

// planScenario checks and expands sc against the cluster's nodes. Every
// count is checked against the limits before anything is made of it.
func (rs *Reviews) planScenario(rc *cycle, sc *Scenario, base []fwk.NodeInfo) (*scenarioPlan, error) {
	limits := rs.opts.scenarioLimits
	p := &scenarioPlan{names: newNodeNamer(base), reportBy: sc.ReportBy, from: map[types.UID]string{}, groups: map[int]int{}}

	remove := sets.New[string]()
	for i, name := range sc.RemoveNodes {
		if _, err := rc.snapshot.Get(name); err != nil {
			return nil, scenarioErrorf(fmt.Sprintf("removeNodes.names[%d]", i), "no node %q in the cluster", name)
		}
		remove.Insert(name)
	}
	if sc.RemoveSelector != nil {
		for _, ni := range base {
			if sc.RemoveSelector.Matches(labels.Set(ni.Node().Labels)) {
				remove.Insert(ni.Node().Name)
			}
		}
	}
	p.removed = remove
	nodes := len(base)
	for i, a := range sc.AddNodes {
		field := fmt.Sprintf("addNodes[%d]", i)
		if a.Count < 0 {
			return nil, scenarioErrorf(field+".count", "must not be negative")
		}
		if nodes += a.Count; nodes > limits.Nodes {
			return nil, tooLarge(field+".count", "the scenario would have %d nodes or more, over the operator's limit of %d (--scenario-max-nodes)", nodes, limits.Nodes)
		}
	}
	if m := sc.Minimize; m != nil {
		if m.Max < 0 {
			return nil, scenarioErrorf("minimize.max", "must not be negative")
		}
		if nodes+m.Max > limits.Nodes {
			return nil, tooLarge("minimize.max", "the scenario would have up to %d nodes, over the operator's limit of %d (--scenario-max-nodes)", nodes+m.Max, limits.Nodes)
		}
	}
	for i, a := range sc.AddNodes {
		shape, err := nodeShape(rc.snapshot, a, fmt.Sprintf("addNodes[%d]", i))
		if err != nil {
			return nil, err
		}
		for range a.Count {
			p.added = append(p.added, p.names.copyOf(shape))
		}
	}
	if m := sc.Minimize; m != nil {
		shape, err := nodeShape(rc.snapshot, m.Shape, "minimize")
		if err != nil {
			return nil, err
		}
		p.minimizeShape = shape
	}

	now := sc.Now
	if now.IsZero() {
		now = time.Now()
	}
	for _, ni := range base {
		node := ni.Node()
		if !remove.Has(node.Name) {
			p.kept = append(p.kept, node)
			for _, pi := range ni.GetPods() {
				p.keptPods = append(p.keptPods, pi.GetPod())
			}
			continue
		}
		// Drained as kubectl drain does: cordoned, and emptied of the
		// pods a drain evicts. The node stays (a spreading constraint
		// still counts its domain), with its DaemonSet and static pods.
		cordoned := node.DeepCopy()
		cordoned.Spec.Unschedulable = true
		p.kept = append(p.kept, cordoned)
		for _, pi := range ni.GetPods() {
			pod := pi.GetPod()
			if !movedByDrain(pod) {
				p.notMoved++
				p.keptPods = append(p.keptPods, pod)
				continue
			}
			qp, err := queuedCopy(pod, now)
			if err != nil {
				return nil, err
			}
			p.from[pod.UID] = node.Name
			p.queued = append(p.queued, qp)
		}
	}
	// Pods whose count passes the limit are never made.
	total := len(p.queued)
	for i, e := range sc.Pods {
		if e.Replicas < 0 {
			return nil, scenarioErrorf(fmt.Sprintf("pods[%d].replicas", i), "must not be negative")
		}
		if total += e.Replicas; total > limits.Pods {
			return nil, tooLarge(fmt.Sprintf("pods[%d].replicas", i), "the scenario would place %d pods or more, over the operator's limit of %d (--scenario-max-pods)", total, limits.Pods)
		}
	}
	for i, e := range sc.Pods {
		if e.MinCount > e.Replicas {
			return nil, scenarioErrorf(fmt.Sprintf("pods[%d].podGroupTemplate.minCount", i), "%d is more than replicas (%d): the group could never be placed", e.MinCount, e.Replicas)
		}
		entry := make([]*framework.QueuedPodInfo, 0, e.Replicas)
		for j := range e.Replicas {
			pod := shallowCopy(e.Template)
			pod.Name = e.Template.Name + "-" + strconv.Itoa(j+1)
			pod.UID = types.UID(string(e.Template.UID) + "-" + strconv.Itoa(j+1))
			if e.MinCount > 0 {
				group := e.Template.Name
				pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
			}
			qp, err := queuedCopy(pod, now)
			if err != nil {
				return nil, err
			}
			entry = append(entry, qp)
		}
		if e.MinCount > 0 {
			p.groups[i] = e.MinCount
		}
		p.extra = append(p.extra, entry)
	}
	return p, nil
}

// planGroups finds, with pod groups on, the pod groups of the pods a
// scenario places again and of the pods it keeps: their PodGroup objects,
// and each placed group's pending members, the cluster's (when pending
// is set) and those the drain evicts. A group is then placed all or
// nothing when its first member comes up, as what-if places it: a group
// the queue holds back (fewer members than minCount, a gated member)
// waits, whatever nodes the scenario adds.
func (rs *Reviews) planGroups(rc *cycle, p *scenarioPlan, pending bool) error {
	if !podGroupsOn() {
		return nil
	}
	p.groupPending = map[string][]*v1.Pod{}
	seen := sets.New[string]()
	addGroup := func(pod *v1.Pod) string {
		g := podGroupOf(pod)
		if g == "" {
			return ""
		}
		key := pod.Namespace + "/" + g
		if !seen.Has(key) {
			seen.Insert(key)
			if pg, err := rc.snapshot.PodGroups().Get(pod.Namespace, g); err == nil {
				p.podGroups = append(p.podGroups, pg)
			}
		}
		return key
	}
	for _, pod := range p.keptPods {
		addGroup(pod)
	}
	for _, qp := range p.queued {
		key := addGroup(qp.Pod)
		if key == "" {
			continue
		}
		if _, listed := p.groupPending[key]; !listed && pending {
			members, err := rs.pendingMembers(qp.Pod.Namespace, podGroupOf(qp.Pod))
			if err != nil {
				return err
			}
			p.groupPending[key] = members
		}
		if p.sources[qp.Pod.UID] != SourcePending {
			p.groupPending[key] = append(p.groupPending[key], qp.Pod)
		}
	}
	return nil
}
