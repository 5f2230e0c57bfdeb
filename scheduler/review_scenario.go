package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// Scenario changes the cluster a review places pods on, in the review's
// own snapshot only: nodes added (copies of a node, or templates), nodes
// removed (their pods placed again, as a drain would recreate them), and
// pods added after the pending ones. Minimize searches for the smallest
// count of one node shape that makes every pod fit.
type Scenario struct {
	// AddNodes are nodes that exist in the scenario only.
	AddNodes []NodeShape
	// RemoveNodes names nodes to drain; RemoveSelector (nil: none)
	// selects more by label. As kubectl drain does, they are cordoned
	// (they stay, unschedulable, and count as domains for spreading) and
	// their pods, but DaemonSet and static ones, are pending again. The
	// shares after leave them out.
	RemoveNodes    []string
	RemoveSelector labels.Selector
	// Pods are placed after the pending (and evicted) pods, entry by
	// entry.
	Pods []ScenarioPods
	// ReportBy is the node label whose values the allocated shares are
	// reported by; empty: one pool of every node.
	ReportBy string
	// Minimize, when set, searches for the smallest count of its shape
	// to add.
	Minimize *Minimize
	// Now is when the evicted pods are queued again; zero: time.Now.
	Now time.Time
}

// NodeShape is Count nodes like FromNode (a node of the cluster) or like
// Template.
type NodeShape struct {
	Template *v1.Node
	FromNode string
	Count    int
}

// ScenarioPods are Replicas copies of Template, named Template.Name-1, -2,
// ... When MinCount is above 0 they are the members of one pod group named
// Template.Name, placed all or nothing: at least MinCount of them, or
// none.
type ScenarioPods struct {
	Template *v1.Pod
	Replicas int
	MinCount int
}

// Minimize searches for the smallest count, from 0 to Max, of nodes of
// Shape (its Count unused) that places every pod of the scenario.
type Minimize struct {
	Shape NodeShape
	Max   int
}

// ScenarioLimits bound a scenario once expanded: nodes in its snapshot
// (the cluster's, less those removed, plus those added, plus Minimize's
// Max) and pods it places (pending, evicted and added).
type ScenarioLimits struct {
	Nodes, Pods int
}

// DefaultScenarioLimits are the limits of WithScenarioLimits unset.
var DefaultScenarioLimits = ScenarioLimits{Nodes: 10000, Pods: 10000}

// ScenarioError is a scenario that cannot be run as given. Field is the
// field at fault under the scenario ("addNodes[0].fromNode").
type ScenarioError struct {
	Field string
	// TooLarge: the scenario exceeds the operator's limits.
	TooLarge bool
	Err      error
}

func (e *ScenarioError) Error() string { return e.Field + ": " + e.Err.Error() }

func scenarioErrorf(field string, format string, args ...any) error {
	return &ScenarioError{Field: field, Err: fmt.Errorf(format, args...)}
}

// PodSource says why a pod is placed in a scenario.
type PodSource string

// The sources of a scenario's pods.
const (
	// SourcePending: a pending pod of the cluster (ReviewRequest.PendingPods).
	SourcePending PodSource = "Pending"
	// SourceEvicted: a pod of a removed node.
	SourceEvicted PodSource = "Evicted"
	// SourceAdded: a pod of Scenario.Pods.
	SourceAdded PodSource = "Added"
)

// ScenarioReview is a scenario's answer.
type ScenarioReview struct {
	// Pods in the order they were placed: the pending and evicted ones in
	// queue order, then the added ones. With pod groups on, a pending or
	// evicted member's whole group is placed when its first member comes
	// up, all or nothing, as the pod-group cycle places it (a group the
	// queue holds back, short of its minCount, waits).
	Pods []ScenarioPod
	// Groups are the pod groups of Scenario.Pods.
	Groups []GroupOutcome
	// AddedNodes and RemovedNodes count the nodes added (Minimize's
	// included) and removed.
	AddedNodes, RemovedNodes int
	// NotMoved counts the pods of removed nodes that are not placed again
	// (DaemonSet and static pods, which a drain leaves behind).
	NotMoved int
	// Pools are the allocated shares per value of Scenario.ReportBy,
	// before (the cluster now) and after (the scenario, its pods placed),
	// by value.
	Pools []PoolUsage
	// Minimize answers Scenario.Minimize.
	Minimize *MinimizeReview
}

// Unplaced counts the pods that would not be placed.
func (r *ScenarioReview) Unplaced() int {
	n := 0
	for _, p := range r.Pods {
		if p.Node == "" {
			n++
		}
	}
	return n
}

// ScenarioPod is one pod's outcome in a scenario.
type ScenarioPod struct {
	WhatIfPod
	Source PodSource
	// FromNode is the removed node an evicted pod ran on.
	FromNode string
}

// GroupOutcome is a pod group's outcome.
type GroupOutcome struct {
	Namespace, Name           string
	MinCount, Members, Placed int
	// Message says why the group is not placed; empty when it is.
	Message string
}

// PoolUsage is what the nodes of one label value hold.
type PoolUsage struct {
	// Value of the label; empty for nodes without it.
	Value         string
	Before, After Usage
}

// Usage sums the requests of the pods on some nodes and the nodes'
// allocatable.
type Usage struct {
	Nodes                  int
	MilliCPU, Memory, Pods ResourceUsage
}

// ResourceUsage is a resource requested and allocatable.
type ResourceUsage struct {
	Requested, Allocatable int64
}

// MinimizeReview is Minimize's answer.
type MinimizeReview struct {
	// Count is the smallest count tried that places every pod; -1 when
	// even Max is not enough (ScenarioReview.Pods then says which pods do
	// not fit with Max, and why).
	Count int
	Max   int
	// Tried are the counts run, in order, and how many pods each left
	// unplaced.
	Tried []MinimizeTrial
}

// MinimizeTrial is one count tried.
type MinimizeTrial struct {
	Count, Unplaced int
}

// scenario runs req.Scenario with prof on snapshots of its own, built
// from the review's snapshot (rc's, up to date with the cache), which it
// only reads. Each run builds a snapshot and a framework of prof on it:
// the live cache, queue and frameworks are never touched.
func (s *Scheduler) scenario(ctx context.Context, rc *reviewCycle, prof Profile, req ReviewRequest) (*ScenarioReview, error) {
	sc := req.Scenario
	base, err := rc.snapshot.List()
	if err != nil {
		return nil, err
	}
	p, err := s.planScenario(rc, sc, base)
	if err != nil {
		return nil, err
	}
	if req.PendingPods {
		name := req.PendingSchedulerName
		if name == "" {
			name = rc.fw.ProfileName()
		}
		pending, err := s.pendingPods(rc, name)
		if err != nil {
			return nil, err
		}
		p.sources = make(map[types.UID]PodSource, len(pending))
		for _, qp := range pending {
			p.sources[qp.Pod.UID] = SourcePending
		}
		p.queued = append(p.queued, pending...)
	}
	if err := s.planGroups(rc, p, req.PendingPods); err != nil {
		return nil, err
	}
	rc.sortPending(p.queued)
	if err := p.checkPods(s.opts.scenarioLimits, sc); err != nil {
		return nil, err
	}
	out := &ScenarioReview{RemovedNodes: p.removed.Len(), NotMoved: p.notMoved}
	before := pools(base, sc.ReportBy)

	run := func(n int) (*scenarioRun, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return s.runScenario(ctx, rc, prof, p, n)
	}
	var last *scenarioRun
	if sc.Minimize == nil {
		if last, err = run(0); err != nil {
			return nil, err
		}
	} else {
		out.Minimize = &MinimizeReview{Count: -1, Max: sc.Minimize.Max}
		if last, err = minimize(sc.Minimize.Max, out.Minimize, run); err != nil {
			return nil, err
		}
	}
	out.Pods, out.Groups, out.AddedNodes = last.pods, last.groups, len(p.added)+last.minimizeNodes
	out.Pools = mergePools(before, last.after)
	return out, nil
}

// minimize finds the smallest count in [0, max] whose run places every
// pod, by bisection. It assumes placement is monotone in the count (one
// more node never leaves a pod unplaced that fits with one fewer), which
// holds for resources and node-level filters; scoring that spreads pods
// differently on more nodes could break it in theory. The answer never
// rests on the assumption alone: the count answered was run and placed
// every pod, and count-1 was run and did not. It returns the run the
// answer describes: the count found, or max when no count is enough (0
// when max is 0).
func minimize(limit int, out *MinimizeReview, run func(int) (*scenarioRun, error)) (*scenarioRun, error) {
	try := func(n int) (*scenarioRun, error) {
		r, err := run(n)
		if err != nil {
			return nil, err
		}
		out.Tried = append(out.Tried, MinimizeTrial{Count: n, Unplaced: r.unplaced})
		return r, nil
	}
	r, err := try(0)
	if err != nil || r.unplaced == 0 {
		if err == nil {
			out.Count = 0
		}
		return r, err
	}
	if limit == 0 {
		return r, nil
	}
	best, err := try(limit)
	if err != nil || best.unplaced > 0 {
		return best, err
	}
	// lo was run and left pods unplaced; hi was run and placed them all.
	lo, hi := 0, limit
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		r, err := try(mid)
		if err != nil {
			return nil, err
		}
		if r.unplaced == 0 {
			hi, best = mid, r
		} else {
			lo = mid
		}
	}
	out.Count = hi
	return best, nil
}

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

// planScenario checks and expands sc against the cluster's nodes. Every
// count is checked against the limits before anything is made of it.
func (s *Scheduler) planScenario(rc *reviewCycle, sc *Scenario, base []fwk.NodeInfo) (*scenarioPlan, error) {
	limits := s.opts.scenarioLimits
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
			pod := e.Template.DeepCopy()
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
func (s *Scheduler) planGroups(rc *reviewCycle, p *scenarioPlan, pending bool) error {
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
			members, err := s.pendingMembers(qp.Pod.Namespace, podGroupOf(qp.Pod))
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

// checkPods checks the pods to place, pending ones included, against the
// limit.
func (p *scenarioPlan) checkPods(limits ScenarioLimits, sc *Scenario) error {
	n := len(p.queued)
	for _, e := range p.extra {
		n += len(e)
	}
	if n <= limits.Pods {
		return nil
	}
	field := "pods"
	if len(sc.RemoveNodes) > 0 || sc.RemoveSelector != nil {
		field = "removeNodes"
	}
	return tooLarge(field, "the scenario would place %d pods (%d of them pending in the cluster, the others evicted or added), over the operator's limit of %d (--scenario-max-pods)", n, len(p.sources), limits.Pods)
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
	pod = pod.DeepCopy()
	pod.Spec.NodeName = ""
	pod.Status.NominatedNodeName = ""
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return nil, err
	}
	return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: now}}, nil
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

// nodeNamer names the nodes a scenario adds: the shape's name, -1, -2,
// ..., skipping names the cluster or the scenario already has.
type nodeNamer struct {
	taken sets.Set[string]
	next  map[string]int
}

func newNodeNamer(base []fwk.NodeInfo) *nodeNamer {
	n := &nodeNamer{taken: sets.New[string](), next: map[string]int{}}
	for _, ni := range base {
		n.taken.Insert(ni.Node().Name)
	}
	return n
}

func (n *nodeNamer) clone() *nodeNamer {
	c := &nodeNamer{taken: n.taken.Clone(), next: make(map[string]int, len(n.next))}
	for k, v := range n.next {
		c.next[k] = v
	}
	return c
}

// copyOf is a new node like shape, with a name of its own (its hostname
// label too, so that spreading and affinity see a node of its own).
func (n *nodeNamer) copyOf(shape *v1.Node) *v1.Node {
	var name string
	for {
		n.next[shape.Name]++
		name = shape.Name + "-" + strconv.Itoa(n.next[shape.Name])
		if !n.taken.Has(name) {
			break
		}
	}
	n.taken.Insert(name)
	node := shape.DeepCopy()
	node.Name = name
	node.UID = types.UID("scenario-" + name)
	node.ResourceVersion = ""
	node.Spec.ProviderID = ""
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	node.Labels[v1.LabelHostname] = name
	return node
}

// scenarioRun is one run of a scenario with n nodes of Minimize's shape.
type scenarioRun struct {
	pods          []ScenarioPod
	groups        []GroupOutcome
	unplaced      int
	minimizeNodes int
	after         map[string]Usage
}

// runScenario builds the scenario's snapshot with n nodes of Minimize's
// shape, a framework of prof on it, and places the pending and evicted
// pods, then the added ones, through place.
func (s *Scheduler) runScenario(ctx context.Context, rc *reviewCycle, prof Profile, p *scenarioPlan, n int) (*scenarioRun, error) {
	logger := klog.FromContext(ctx)
	defer prometheus.NewTimer(scenarioRunDuration).ObserveDuration()
	nodes := slices.Concat(p.kept, p.added)
	if n > 0 {
		names := p.names.clone()
		for range n {
			nodes = append(nodes, names.copyOf(p.minimizeShape))
		}
	}
	// Upstream's constructor of a snapshot from objects: its name says
	// tests, and a scenario's snapshot is made from objects too.
	snapshot := internalcache.NewTestSnapshotWithPodGroups(p.keptPods, nodes, p.podGroups)
	rf, err := s.newReviewFramework(ctx, prof, snapshot)
	if err != nil {
		return nil, err
	}
	defer rf.close()
	src := &reviewCycle{reviewFramework: rf, startIndex: rc.startIndex}
	out := &scenarioRun{minimizeNodes: n}

	// A pending pod group is placed whole when its first member comes
	// up, with its pending and evicted members.
	placed, err := src.place(ctx, p.queued, func(ctx context.Context, namespace, name string) ([]WhatIfPod, error) {
		return s.placeGroup(ctx, src, namespace, name, p.groupPending[namespace+"/"+name])
	})
	if err != nil {
		return nil, err
	}
	uids := make(map[string]types.UID, len(p.queued))
	for _, qp := range p.queued {
		uids[qp.Pod.Namespace+"/"+qp.Pod.Name] = qp.Pod.UID
	}
	for _, r := range placed {
		uid, ok := uids[r.Namespace+"/"+r.Name]
		source := p.sources[uid]
		switch {
		case !ok:
			// A gated member of a group: pending in the cluster.
			source = SourcePending
		case source == "":
			source = SourceEvicted
		}
		out.pods = append(out.pods, ScenarioPod{WhatIfPod: r, Source: source, FromNode: p.from[uid]})
	}
	for i, entry := range p.extra {
		placed, err := src.place(ctx, entry, nil)
		if err != nil {
			return nil, err
		}
		if minCount, ok := p.groups[i]; ok {
			g, err := src.settleGroup(logger, entry, placed, minCount)
			if err != nil {
				return nil, err
			}
			out.groups = append(out.groups, g)
		}
		for _, r := range placed {
			out.pods = append(out.pods, ScenarioPod{WhatIfPod: r, Source: SourceAdded})
		}
	}
	for _, r := range out.pods {
		if r.Node == "" {
			out.unplaced++
		}
	}
	all, err := snapshot.List()
	if err != nil {
		return nil, err
	}
	all = slices.DeleteFunc(slices.Clone(all), func(ni fwk.NodeInfo) bool { return p.removed.Has(ni.Node().Name) })
	out.after = pools(all, p.reportBy)
	logger.V(4).Info("Scenario run", "addedNodes", n, "pods", len(out.pods), "unplaced", out.unplaced)
	return out, nil
}

// settleGroup makes a pod group's placement all or nothing, as the
// pod-group cycle does: when fewer than minCount members were placed, the
// ones placed are taken off the snapshot again (the last ones assumed, in
// reverse order) and reported unplaced.
func (rc *reviewCycle) settleGroup(logger klog.Logger, members []*framework.QueuedPodInfo, placed []WhatIfPod, minCount int) (GroupOutcome, error) {
	pod := members[0].Pod
	g := GroupOutcome{Namespace: pod.Namespace, Name: *pod.Spec.SchedulingGroup.PodGroupName, MinCount: minCount, Members: len(members)}
	for _, r := range placed {
		if r.Node != "" {
			g.Placed++
		}
	}
	if g.Placed >= minCount {
		return g, nil
	}
	g.Message = fmt.Sprintf("%d of the group's %d pods fit, fewer than its minCount %d: the group is not placed", g.Placed, len(members), minCount)
	for i := len(placed) - 1; i >= 0; i-- {
		if placed[i].Node == "" {
			continue
		}
		if err := rc.forget(logger, members[i].Pod); err != nil {
			return g, fmt.Errorf("taking %s off the scenario's snapshot: %w", klog.KObj(members[i].Pod), err)
		}
		placed[i].Node = ""
		placed[i].Message = "its pod group " + g.Name + " is not placed: " + g.Message
	}
	g.Placed = 0
	return g, nil
}

// pools sums the usage of nodes by their value of the label key (every
// node in one pool when key is empty).
func pools(nodes []fwk.NodeInfo, key string) map[string]Usage {
	out := map[string]Usage{}
	for _, ni := range nodes {
		node := ni.Node()
		if node == nil {
			continue
		}
		value := ""
		if key != "" {
			value = node.Labels[key]
		}
		u := out[value]
		u.Nodes++
		req, alloc := ni.GetRequested(), ni.GetAllocatable()
		u.MilliCPU.Requested += req.GetMilliCPU()
		u.MilliCPU.Allocatable += alloc.GetMilliCPU()
		u.Memory.Requested += req.GetMemory()
		u.Memory.Allocatable += alloc.GetMemory()
		u.Pods.Requested += int64(len(ni.GetPods()))
		u.Pods.Allocatable += int64(alloc.GetAllowedPodNumber())
		out[value] = u
	}
	return out
}

// mergePools lists the pools of before and after by value.
func mergePools(before, after map[string]Usage) []PoolUsage {
	values := sets.KeySet(before).Union(sets.KeySet(after))
	out := make([]PoolUsage, 0, values.Len())
	for _, v := range sets.List(values) {
		out = append(out, PoolUsage{Value: v, Before: before[v], After: after[v]})
	}
	return out
}

// IsScenarioError reports whether err is a ScenarioError, and returns it.
func IsScenarioError(err error) (*ScenarioError, bool) {
	var se *ScenarioError
	ok := errors.As(err, &se)
	return se, ok
}
