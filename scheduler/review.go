package scheduler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// Errors of Review a caller tells apart.
var (
	// ErrPodNotFound: the scheduler knows no such pod that is not
	// terminal.
	ErrPodNotFound = errors.New("pod not found")
	// ErrNotServing: no live profile serves the schedulerName asked for.
	ErrNotServing = errors.New("no profile serves the schedulerName")
	// ErrNotReady: the scheduler has not synced its informers yet (it is
	// not started, or this replica does not lead).
	ErrNotReady = errors.New("the scheduler is not running yet")
)

// BuildError is a framework build failure of a review's profile: for a
// draft, the text is the one Apply would have returned.
type BuildError struct{ Err error }

func (e *BuildError) Error() string { return e.Err.Error() }
func (e *BuildError) Unwrap() error { return e.Err }

// ReviewRequest asks what a scheduling cycle would decide.
type ReviewRequest struct {
	// Pod is evaluated as given (a pod template, as if created now). When
	// nil, PodNamespace/PodName name a pod the scheduler's informer knows.
	Pod                   *v1.Pod
	PodNamespace, PodName string
	// SchedulerName selects the live profile to evaluate with, unless
	// Draft is set. Empty: the pod's schedulerName.
	SchedulerName string
	// Draft is a profile built for this review only (converted,
	// defaulted and validated as for Apply), closed afterwards.
	Draft *Profile
	// PendingPods asks for what-if mode: every pending pod whose
	// schedulerName is PendingSchedulerName, in queue order.
	PendingPods          bool
	PendingSchedulerName string
	// ScoredNodes, when above 0, bounds the feasible nodes listed with
	// their per-plugin scores (PodReview.Feasible[i].Scores) to the first
	// ScoredNodes in rank order; the others have their total only. Every
	// feasible node is scored and ranked either way.
	ScoredNodes int
}

// Reviewer answers scheduling reviews. *Scheduler implements it.
type Reviewer interface {
	// Review runs the scheduling pipeline (PreFilter, Filter on every
	// node, extenders, PreScore, Score, NormalizeScore, and dry-run
	// preemption when nothing fits) on a private snapshot of the cache,
	// with a private framework built from the serving profile (once per
	// generation, shared by its reviews) or from the draft (per review). It never runs Reserve, Permit or Bind, never changes the
	// cache, the queue or any API object, and never blocks a scheduling
	// cycle.
	Review(ctx context.Context, req ReviewRequest) (*Review, error)
}

var _ Reviewer = &Scheduler{}

// Review is the answer.
type Review struct {
	// SchedulerName of the framework used.
	SchedulerName string
	// SnapshotNodes is the number of nodes evaluated on.
	SnapshotNodes int
	// Pod answers explain mode.
	Pod *PodReview
	// WhatIf answers what-if mode, in queue order.
	WhatIf []WhatIfPod
}

// PodReview is what one scheduling cycle would decide for one pod.
type PodReview struct {
	Pod *v1.Pod
	// SelectedNode is where the cycle would put the pod; empty if nowhere.
	SelectedNode string
	// Message is, when SelectedNode is empty, the FailedScheduling event
	// message the cycle would write.
	Message string
	// Feasible nodes in the order the cycle ranks them (the selected node
	// first, ties by name), with their scores.
	Feasible []NodeResult
	// Tied counts the nodes sharing the best score (the selected one
	// included) when the cycle would pick among several at random; 0
	// otherwise.
	Tied int
	// Rejected nodes, by name.
	Rejected []NodeRejection
	// NumFeasibleNodesToFind is where the real cycle stops searching
	// (percentageOfNodesToScore); StartNode is where it starts now.
	NumFeasibleNodesToFind int
	StartNode              string
	// Preemption is set when nothing fits and the profile preempts.
	Preemption *PreemptionReview
}

// NodeResult is a feasible node.
type NodeResult struct {
	Name string
	// Scores per score plugin (raw, normalized, weighted), then per
	// prioritizing extender (weighted only); nil beyond the first
	// ReviewRequest.ScoredNodes nodes.
	Scores []ScoreDetail
	Total  int64
	// Sampled is false when the real cycle, starting at StartNode and
	// stopping at NumFeasibleNodesToFind, would not reach the node.
	Sampled bool
}

// ScoreDetail is one plugin's (or extender's) score of a node.
type ScoreDetail struct {
	Name     string
	Extender bool
	// Raw and Normalized are set for plugins.
	Raw, Normalized int64
	Weight          int32
	Weighted        int64
}

// NodeRejection is a node that does not fit and what rejected it.
type NodeRejection struct {
	Node string
	// Plugin or extender name; empty for nodes a PreFilterResult excluded.
	Plugin       string
	Reasons      []string
	Unresolvable bool
}

// PreemptionReview is DefaultPreemption's answer, computed without
// touching a victim.
type PreemptionReview struct {
	// Node the pod would be nominated to, and its victims (namespace/name).
	Node    string
	Victims []string
	// Message is what PostFilter adds to the FailedScheduling message.
	Message string
	// NotEvaluated says why preemption was not evaluated (PostFilter
	// plugins other than DefaultPreemption).
	NotEvaluated string
}

// WhatIfPod is one pending pod's outcome in what-if mode.
type WhatIfPod struct {
	Namespace, Name string
	Node            string
	Message         string
}

// reviewParallelism is the parallelism of a review framework: its Filter
// and Score passes and preemption's dry run run on one goroutine. A review
// evaluates every node, twice the work of a cycle's sampled pass or more;
// with the scheduler's parallelism (16 by default) its workers would take
// every core from the scheduling cycle's own parallel passes for as long as
// it runs. With one, a review never takes more than one core. Each node's
// verdict and scores do not depend on the order nodes are evaluated in, so
// the answer is the same; preemption's dry run stops after enough
// candidates from a random offset, as the cycle's does, whose parallel
// workers may look at a few more. On 2 cores a review takes as long either
// way (BenchmarkReview: 1.3 ms at 500 nodes, 14 ms at 5000); on more cores
// a big review takes longer with one.
const reviewParallelism = 1

// Review answers a review. See Reviewer.
//
// Its work, and the parallel Filter and Score workers it starts, carry the
// pprof label work=review, so a CPU profile of the operator tells a
// review's cost from the scheduling loop's.
func (s *Scheduler) Review(ctx context.Context, req ReviewRequest) (out *Review, err error) {
	pprof.Do(ctx, pprof.Labels("work", "review"), func(ctx context.Context) {
		out, err = s.review(ctx, req)
	})
	return out, err
}

func (s *Scheduler) review(ctx context.Context, req ReviewRequest) (*Review, error) {
	if !s.HasSynced() {
		return nil, ErrNotReady
	}
	logger := klog.FromContext(ctx)
	var rc *reviewCycle
	if req.Draft != nil {
		// A draft that does not build is the answer, whatever the pod.
		var err error
		if rc, err = s.startReviewCycle(ctx, req.Draft, nil); err != nil {
			return nil, err
		}
		defer rc.end()
	}
	pod := req.Pod
	if pod == nil && !req.PendingPods {
		p, err := s.podLister.Pods(req.PodNamespace).Get(req.PodName)
		if err != nil {
			return nil, fmt.Errorf("%w: %s/%s", ErrPodNotFound, req.PodNamespace, req.PodName)
		}
		pod = p
	}
	if rc == nil {
		name := req.SchedulerName
		if name == "" && pod != nil {
			name = pod.Spec.SchedulerName
		}
		// Taken as a cycle takes it: a swap retires it, and it is closed,
		// with the review framework of its generation, once this review
		// released it.
		lp := s.acquireProfile(name)
		if lp == nil {
			return nil, fmt.Errorf("%w: %q", ErrNotServing, name)
		}
		defer lp.release(logger)
		var err error
		if rc, err = s.startReviewCycle(ctx, nil, lp); err != nil {
			return nil, err
		}
		defer rc.end()
	}

	out := &Review{SchedulerName: rc.fw.ProfileName(), SnapshotNodes: rc.snapshot.NumNodesInPlacement()}
	var err error
	if req.PendingPods {
		name := req.PendingSchedulerName
		if name == "" {
			name = out.SchedulerName
		}
		out.WhatIf, err = s.whatIf(ctx, rc, name)
		return out, err
	}
	rc.scoredNodes = req.ScoredNodes
	pod = pod.DeepCopy()
	if pod.Spec.NodeName != "" {
		// A bound pod is evaluated as if it were pending again, without
		// counting itself where it runs.
		if err := rc.removePod(logger, pod); err != nil {
			return nil, err
		}
		pod.Spec.NodeName = ""
	}
	out.Pod, err = rc.evaluate(ctx, pod)
	return out, err
}

// reviewFramework is a framework built for reviews on the snapshot reviews
// share. A live profile's generation has one, built at its first review,
// reused by every review of that generation and closed with it (or when
// the reviews' snapshot is replaced); a draft review builds its own and
// closes it at its end.
type reviewFramework struct {
	fw framework.Framework
	// snapshot is the reviews' snapshot it was built on.
	snapshot   *internalcache.Snapshot
	cancel     context.CancelFunc
	informers  *frameworkInformers
	weights    map[string]int32
	preemption *defaultpreemption.DefaultPreemption
	// notPreempting explains why preemption is not evaluated.
	notPreempting string
	// draPostFilter: DynamicResources' PostFilter runs before preemption.
	draPostFilter bool
	parent        *Scheduler
}

// reviewCycle is one review: a review framework on the reviews' snapshot,
// which the review holds (reviews.mu) until end.
type reviewCycle struct {
	*reviewFramework
	// owned: the framework is the review's own (a draft's), closed at end.
	owned      bool
	startIndex int
	mutating   bool
	// scoredNodes bounds the feasible nodes listed with their scores
	// (ReviewRequest.ScoredNodes); 0: all of them.
	scoredNodes int
}

// startReviewCycle takes the snapshot reviews share (reviews take turns
// on it until end), brings it up to date with the cache and returns a
// cycle on it with the review framework of lp's generation, built now if
// this is its first review, or with a framework built for draft.
//
// The cache's lock is held for UpdateSnapshot only, as a scheduling cycle
// holds it: for the nodes that changed since the last review, not for a
// copy of the whole cluster, and never across a framework build.
func (s *Scheduler) startReviewCycle(ctx context.Context, draft *Profile, lp *liveProfile) (*reviewCycle, error) {
	logger := klog.FromContext(ctx)
	s.reviews.mu.Lock()
	snapshot := s.reviews.snapshotLocked()
	rc := &reviewCycle{owned: draft != nil}
	var err error
	if draft != nil {
		rc.reviewFramework, err = s.newReviewFramework(ctx, *draft, snapshot)
	} else {
		rc.reviewFramework, err = s.liveReviewFramework(ctx, lp, snapshot)
	}
	if err != nil {
		s.reviews.mu.Unlock()
		return nil, err
	}
	if err := s.cache.UpdateSnapshot(logger, snapshot); err != nil {
		rc.end()
		return nil, fmt.Errorf("taking a snapshot of the cache: %w", err)
	}
	rc.startIndex = int(s.nextStartNodeIndex.Load())
	return rc, nil
}

// liveReviewFramework returns the review framework of lp's generation on
// snapshot, building it if there is none yet (or the one there is was
// built on a snapshot since replaced). The caller holds reviews.mu and a
// reference on lp.
func (s *Scheduler) liveReviewFramework(ctx context.Context, lp *liveProfile, snapshot *internalcache.Snapshot) (*reviewFramework, error) {
	if rf := lp.reviewFramework(); rf != nil && rf.snapshot == snapshot {
		return rf, nil
	}
	rf, err := s.newReviewFramework(ctx, lp.profile, snapshot)
	if err != nil {
		return nil, err
	}
	if !lp.setReviewFramework(rf) {
		rf.close()
		return nil, fmt.Errorf("%w: %q was closed", ErrNotServing, lp.applied.SchedulerName)
	}
	return rf, nil
}

// newReviewFramework builds a framework for p on the reviews' snapshot. The framework shares the scheduler's informers,
// client (for reads), nominator (read-only), CSI and DRA managers; it has
// its own waiting-pods and pre-bind maps, no event recorder and no pod
// activator, so nothing it does reaches the live scheduler. The caller
// holds reviews.mu.
func (s *Scheduler) newReviewFramework(ctx context.Context, p Profile, snapshot *internalcache.Snapshot) (*reviewFramework, error) {
	logger := klog.FromContext(ctx)
	prof, extenders, _, err := prepareBuild(p)
	if err != nil {
		return nil, &BuildError{err}
	}
	name := prof.SchedulerName
	s.reviewBuilds.Add(1)
	fctx, cancel := context.WithCancel(s.ctx)
	fctx = klog.NewContext(fctx, logger.WithValues("review", name))
	fi := newFrameworkInformers(s.informerFactory)
	opts := append(s.frameworkOptions(fi, snapshot, extenders, noActivation{}, discardEvents{}),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithParallelism(reviewParallelism))
	// Plugin constructors add indexers to the shared informers: builds
	// take turns (buildMu), as Apply's and Validate's do.
	s.buildMu.Lock()
	fw, err := frameworkruntime.NewFramework(fctx, s.registry, prof, opts...)
	if err != nil {
		s.buildMu.Unlock()
		cancel()
		fi.removeHandlers()
		return nil, &BuildError{fmt.Errorf("building framework for %q: %w", name, err)}
	}
	rf := &reviewFramework{
		fw:        fw,
		snapshot:  snapshot,
		cancel:    cancel,
		informers: fi,
		weights:   map[string]int32{},
		parent:    s,
	}
	s.reviewsOpen.Add(1)
	plugins := fw.ListPlugins()
	for _, pl := range plugins.Score.Enabled {
		rf.weights[pl.Name] = pl.Weight
	}
	err = rf.setUpPreemption(fctx, prof, plugins)
	s.buildMu.Unlock()
	if err != nil {
		rf.close()
		return nil, &BuildError{err}
	}
	// A draft's plugins may have asked for informers nothing started yet.
	s.informerFactory.Start(s.ctx.Done())
	syncCtx, cancelSync := context.WithTimeout(ctx, informerSyncTimeout)
	defer cancelSync()
	for typ, ok := range s.informerFactory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			rf.close()
			return nil, fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	return rf, nil
}

// setUpPreemption builds a DefaultPreemption of the review's own, with the
// profile's args, when DefaultPreemption is the profile's PostFilter
// plugin: its evaluator finds the victims without evicting them.
// DynamicResources' PostFilter may come first: for a pod without claims it
// returns Unschedulable without a reason, which leaves the message as
// DefaultPreemption makes it; for a pod with claims it would deallocate a
// claim, which a review does not do (the answer says so).
func (rf *reviewFramework) setUpPreemption(ctx context.Context, prof *config.KubeSchedulerProfile, plugins *config.Plugins) error {
	var others []string
	found := false
	for _, p := range plugins.PostFilter.Enabled {
		switch {
		case p.Name == defaultpreemption.Name:
			found = true
		case p.Name == dynamicresources.Name && !found:
			rf.draPostFilter = true
		default:
			others = append(others, p.Name)
		}
	}
	switch {
	case len(others) > 0:
		rf.notPreempting = fmt.Sprintf("PostFilter plugins %v are not run in a review (only %s and %s)", others, dynamicresources.Name, defaultpreemption.Name)
		return nil
	case !found:
		return nil
	}
	var args runtime.Object
	for _, pc := range prof.PluginConfig {
		if pc.Name == defaultpreemption.Name {
			args = pc.Args
		}
	}
	if args == nil {
		return fmt.Errorf("no args for %s in the defaulted profile", defaultpreemption.Name)
	}
	pl, err := defaultpreemption.New(ctx, args, rf.fw, feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate))
	if err != nil {
		return fmt.Errorf("initializing plugin %q: %w", defaultpreemption.Name, err)
	}
	rf.preemption = pl
	return nil
}

// close closes the framework's plugins, cancels its context and removes
// its informer handlers.
func (rf *reviewFramework) close() {
	if err := rf.fw.Close(); err != nil {
		klog.Background().Error(err, "Closing the plugins of a review failed")
	}
	rf.cancel()
	rf.informers.removeHandlers()
	rf.parent.reviewsOpen.Add(-1)
}

// end hands the review snapshot to the next review, with a bound pod the
// review took off its node put back, and closes a draft's framework.
func (rc *reviewCycle) end() {
	if rc.mutating {
		if err := rc.snapshot.EndMutations(); err != nil {
			// The next review starts from a new snapshot (and builds the
			// review frameworks it needs on it).
			klog.Background().Error(err, "Restoring the review snapshot failed")
			rc.parent.reviews.snapshot = nil
		}
	}
	if rc.owned {
		rc.reviewFramework.close()
	}
	rc.parent.reviews.mu.Unlock()
}

// reviewSnapshot is the snapshot reviews take turns on.
type reviewSnapshot struct {
	mu       sync.Mutex
	snapshot *internalcache.Snapshot
	// made counts the snapshots made: one, unless restoring one failed.
	// Every other review updates the one there is with the nodes that
	// changed since the last review.
	made int
}

func (r *reviewSnapshot) snapshotLocked() *internalcache.Snapshot {
	if r.snapshot == nil {
		r.snapshot = internalcache.NewEmptySnapshot()
		r.made++
	}
	return r.snapshot
}

// removePod takes a bound pod off its node in the review's snapshot.
func (rc *reviewCycle) removePod(logger klog.Logger, pod *v1.Pod) error {
	if !rc.mutating {
		if err := rc.snapshot.StartMutations(); err != nil {
			return err
		}
		rc.mutating = true
	}
	if _, err := rc.snapshot.Get(pod.Spec.NodeName); err != nil {
		return nil
	}
	return rc.snapshot.RemovePod(logger, pod, pod.Spec.NodeName)
}

// evaluate runs one pod through the cycle's decision steps, as
// schedulePod and schedulingAlgorithm do, with Filter on every node.
func (rc *reviewCycle) evaluate(ctx context.Context, pod *v1.Pod) (*PodReview, error) {
	fw := rc.fw
	out := &PodReview{Pod: pod}
	state := framework.NewCycleState()
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())

	numAll := rc.snapshot.NumNodesInPlacement()
	if numAll == 0 {
		out.Message = failedSchedulingMessage(fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithError(errNoNodesAvailable))
		return out, nil
	}
	nodes, allNodes, diagnosis, err := runPreFilter(ctx, fw, state, pod, rc.snapshot)
	if err != nil {
		return nil, err
	}
	var feasible []fwk.NodeInfo
	rejectedBy := map[string]string{}
	if nodes != nil {
		feasible, err = filterNodes(ctx, fw, state, pod, &diagnosis, nodes, 0, int32(len(nodes)))
		if err != nil {
			return nil, err
		}
		order := make(map[string]int, len(nodes))
		for i, n := range nodes {
			order[n.Node().Name] = i
		}
		slices.SortFunc(feasible, func(a, b fwk.NodeInfo) int {
			return cmp.Compare(order[a.Node().Name], order[b.Node().Name])
		})
		out.NumFeasibleNodesToFind, out.StartNode = rc.sampling(nodes)
		sampled := rc.sampled(nodes, feasible, out.NumFeasibleNodesToFind)
		// Extenders one at a time, as findNodesThatPassExtenders calls
		// them, to know which one rejected a node.
		for _, e := range fw.Extenders() {
			before := feasible
			feasible, err = findNodesThatPassExtenders(ctx, []fwk.Extender{e}, pod, feasible, diagnosis.NodeToStatus)
			if err != nil {
				return nil, fmt.Errorf("extender %s: %w", e.Name(), err)
			}
			if len(feasible) != len(before) {
				kept := make(map[string]bool, len(feasible))
				for _, n := range feasible {
					kept[n.Node().Name] = true
				}
				for _, n := range before {
					if !kept[n.Node().Name] {
						rejectedBy[n.Node().Name] = e.Name()
					}
				}
			}
		}
		if err := rc.rank(ctx, state, out, feasible, sampled); err != nil {
			return nil, err
		}
	}
	out.Rejected = rejections(allNodes, feasible, diagnosis.NodeToStatus, rejectedBy)
	if len(feasible) > 0 {
		out.SelectedNode = out.Feasible[0].Name
		return out, nil
	}

	fitErr := newFitError(pod, numAll, diagnosis)
	if fw.HasPostFilterPlugins() {
		out.Preemption = rc.dryRunPreemption(ctx, state, pod, diagnosis.NodeToStatus)
		fitErr.Diagnosis.PostFilterMsg = out.Preemption.Message
	}
	out.Message = failedSchedulingMessage(fwk.NewStatus(fwk.Unschedulable).WithError(fitErr))
	return out, nil
}

// rank scores the feasible nodes as the cycle does (prioritizeNodes) and
// orders them as it picks: highest total first. A feasible nominated node
// is picked without scoring, as the cycle does; so is a single node.
func (rc *reviewCycle) rank(ctx context.Context, state fwk.CycleState, out *PodReview, feasible []fwk.NodeInfo, sampled map[string]bool) error {
	pod := out.Pod
	if len(feasible) == 0 {
		return nil
	}
	var scores []fwk.NodePluginScores
	if len(feasible) > 1 {
		var err error
		scores, err = prioritizeNodes(ctx, rc.fw, state, pod, feasible)
		if err != nil {
			return err
		}
	} else {
		scores = []fwk.NodePluginScores{{Name: feasible[0].Node().Name}}
	}
	nominated := pod.Status.NominatedNodeName
	slices.SortStableFunc(scores, func(a, b fwk.NodePluginScores) int {
		switch {
		case a.Name == nominated:
			return -1
		case b.Name == nominated:
			return 1
		}
		if c := cmp.Compare(b.TotalScore, a.TotalScore); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	// The details of the listed nodes in one allocation: a slice and a
	// map per feasible node were most of what a review allocated.
	detailed := len(scores)
	if rc.scoredNodes > 0 {
		detailed = min(detailed, rc.scoredNodes)
	}
	n := 0
	for _, ns := range scores[:detailed] {
		n += len(ns.Scores)
	}
	details := make([]ScoreDetail, n)
	out.Feasible = make([]NodeResult, len(scores))
	for i, ns := range scores {
		res := &out.Feasible[i]
		*res = NodeResult{Name: ns.Name, Total: ns.TotalScore, Sampled: sampled[ns.Name]}
		if i >= detailed || len(ns.Scores) == 0 {
			continue
		}
		res.Scores, details = details[:len(ns.Scores):len(ns.Scores)], details[len(ns.Scores):]
		for j, sc := range ns.Scores {
			d := ScoreDetail{Name: sc.Name, Weighted: sc.Score}
			if r, ok := rawScore(ns.RawScores, j, sc.Name); ok {
				d.Raw, d.Weight = r, rc.weights[sc.Name]
				if d.Weight > 0 {
					d.Normalized = sc.Score / int64(d.Weight)
				}
			} else {
				d.Extender = true
			}
			res.Scores[j] = d
		}
	}
	if len(scores) > 1 && scores[0].Name != nominated {
		tied := 1
		for tied < len(scores) && scores[tied].TotalScore == scores[0].TotalScore {
			tied++
		}
		if tied > 1 {
			out.Tied = tied
		}
	}
	return nil
}

// rawScore is the raw score of plugin among a node's raw scores. The
// framework lists them in the order of the weighted scores (whose
// extenders' scores come last and have no raw score), so it is at index i;
// it is looked for by name otherwise.
func rawScore(raw []fwk.PluginScore, i int, plugin string) (int64, bool) {
	if i < len(raw) && raw[i].Name == plugin {
		return raw[i].Score, true
	}
	for _, r := range raw {
		if r.Name == plugin {
			return r.Score, true
		}
	}
	return 0, false
}

// sampling returns how many feasible nodes the real cycle looks for and
// the node it would start from.
func (rc *reviewCycle) sampling(nodes []fwk.NodeInfo) (int, string) {
	n := int(rc.parent.numFeasibleNodesToFind(rc.fw.PercentageOfNodesToScore(), int32(len(nodes))))
	if !hasExtenderFilters(rc.fw) && !hasScoring(rc.fw) {
		n = 1
	}
	if len(nodes) == 0 {
		return n, ""
	}
	return n, nodes[rc.startIndex%len(nodes)].Node().Name
}

// sampled marks the feasible nodes the real cycle would reach: the first
// numToFind of them going round from the start index.
func (rc *reviewCycle) sampled(nodes, feasible []fwk.NodeInfo, numToFind int) map[string]bool {
	fits := make(map[string]bool, len(feasible))
	for _, n := range feasible {
		fits[n.Node().Name] = true
	}
	out := make(map[string]bool, numToFind)
	for i := 0; i < len(nodes) && len(out) < numToFind; i++ {
		name := nodes[(rc.startIndex+i)%len(nodes)].Node().Name
		if fits[name] {
			out[name] = true
		}
	}
	return out
}

// rejections lists every node that does not fit, by name, with the status
// that rejected it: its own, or the status of the nodes no plugin looked at.
func rejections(allNodes, feasible []fwk.NodeInfo, statuses *framework.NodeToStatus, rejectedBy map[string]string) []NodeRejection {
	fits := make(map[string]bool, len(feasible))
	for _, n := range feasible {
		fits[n.Node().Name] = true
	}
	out := make([]NodeRejection, 0, len(allNodes)-len(feasible))
	for _, n := range allNodes {
		name := n.Node().Name
		if fits[name] {
			continue
		}
		st := statuses.Get(name)
		r := NodeRejection{Node: name, Plugin: st.Plugin(), Reasons: st.Reasons(), Unresolvable: st.Code() == fwk.UnschedulableAndUnresolvable}
		if e, ok := rejectedBy[name]; ok {
			r.Plugin = e
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b NodeRejection) int { return cmp.Compare(a.Node, b.Node) })
	return out
}

// whatIf places every pending pod of schedulerName in queue order on the
// review's snapshot, each placed pod assumed there for the next. Gated
// pods are not pending for the queue and are left out.
func (s *Scheduler) whatIf(ctx context.Context, rc *reviewCycle, schedulerName string) ([]WhatIfPod, error) {
	logger := klog.FromContext(ctx)
	all, err := s.podLister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var pending []*framework.QueuedPodInfo
	for _, pod := range all {
		if pod.Spec.SchedulerName != schedulerName || pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil ||
			len(pod.Spec.SchedulingGates) > 0 || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		if assumed, _ := s.cache.IsAssumedPod(pod); assumed {
			// Already placed in the snapshot.
			continue
		}
		pi, err := framework.NewPodInfo(pod)
		if err != nil {
			return nil, err
		}
		pending = append(pending, &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: pod.CreationTimestamp.Time}})
	}
	// The profile's queue sort with each pod's creation time as its queue
	// time, and where it ties, the order the queue takes pods that arrive
	// together in (queue.ComparePending): the same pods in the same order
	// for every review of the same state.
	less := rc.fw.QueueSortFunc()
	slices.SortFunc(pending, func(a, b *framework.QueuedPodInfo) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return queue.ComparePending(a.Pod, b.Pod)
	})
	// Only the node each pod goes to is reported: no node's scores are
	// listed but the first one's.
	rc.scoredNodes = 1
	out := make([]WhatIfPod, 0, len(pending))
	for _, qp := range pending {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pod := qp.Pod.DeepCopy()
		res := WhatIfPod{Namespace: pod.Namespace, Name: pod.Name}
		r, err := rc.evaluate(ctx, pod)
		switch {
		case err != nil:
			res.Message = err.Error()
		case r.SelectedNode == "":
			res.Message = r.Message
		default:
			res.Node = r.SelectedNode
			pod.Spec.NodeName = r.SelectedNode
			pi, err := framework.NewPodInfo(pod)
			if err != nil {
				return nil, err
			}
			if err := rc.snapshot.AssumePod(pi); err != nil {
				return nil, fmt.Errorf("assuming %s on the review's snapshot: %w", klog.KObj(pod), err)
			}
			logger.V(5).Info("What-if placed pod", "pod", klog.KObj(pod), "node", r.SelectedNode)
		}
		out = append(out, res)
	}
	return out, nil
}

// noActivation drops the activations a review's plugins ask for.
type noActivation struct{}

func (noActivation) Activate(klog.Logger, map[string]*v1.Pod) {}

// discardEvents drops the events a review's plugins record.
type discardEvents struct{}

func (discardEvents) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...interface{}) {
}
func (d discardEvents) WithLogger(klog.Logger) events.EventRecorderLogger { return d }
