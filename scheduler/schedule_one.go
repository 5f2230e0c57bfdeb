package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/parallelize"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

const (
	// pluginMetricsSamplePercent of cycles record per-plugin latency.
	pluginMetricsSamplePercent = 10
	// minFeasibleNodesToFind and minFeasibleNodesPercentageToFind bound how
	// few nodes a cycle looks at, as upstream.
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// errNoNodesAvailable is the failure when the cluster has no node.
var errNoNodesAvailable = errors.New("no nodes available to schedule pods")

var clearNominatedNode = &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: ""}

// scheduleResult is the outcome of the scheduling algorithm for one pod.
type scheduleResult struct {
	suggestedHost  string
	evaluatedNodes int
	feasibleNodes  int
	nominatingInfo *fwk.NominatingInfo
}

// scheduleOne pops one entity, a pod or a pod group, and schedules it.
func (s *Scheduler) scheduleOne(ctx context.Context) {
	switch e := s.queue.Pop(ctx).(type) {
	case *framework.QueuedPodGroupInfo:
		s.scheduleOnePodGroup(ctx, e)
	case *framework.QueuedPodInfo:
		if e.Pod != nil {
			s.scheduleOnePod(ctx, e)
		}
	}
}

// scheduleOnePod runs a pod's scheduling cycle on the framework serving its
// schedulerName now; on success it starts the binding cycle on the same
// framework.
func (s *Scheduler) scheduleOnePod(ctx context.Context, podInfo *framework.QueuedPodInfo) {
	logger := klog.FromContext(ctx)
	pod := podInfo.Pod
	logger = klog.LoggerWithValues(logger, "pod", klog.KObj(pod))
	ctx = klog.NewContext(ctx, logger)

	prof := s.acquireProfile(pod.Spec.SchedulerName)
	if prof == nil {
		// The profile went away after the pod was popped.
		logger.V(3).Info("No profile serves the pod any more, dropping it from the queue", "schedulerName", pod.Spec.SchedulerName)
		s.queue.Done(pod.UID)
		return
	}
	handedOver := false
	defer func() {
		if !handedOver {
			prof.release(logger)
		}
	}()
	fw := prof.fw
	if s.skipPodSchedule(ctx, fw, pod) {
		s.queue.Done(pod.UID)
		return
	}
	logger.V(3).Info("Attempting to schedule pod")

	start := time.Now()
	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(rand.Intn(100) < pluginMetricsSamplePercent)
	podsToActivate := framework.NewPodsToActivate()
	state.Write(framework.PodsToActivateKey, podsToActivate)
	if utilfeature.DefaultFeatureGate.Enabled(features.OpportunisticBatching) && podInfo.PodSignature == nil {
		podInfo.PodSignature = fw.SignPod(ctx, pod)
	}

	cycleCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	result, assumedPodInfo, status := s.schedulingCycle(cycleCtx, state, fw, podInfo, start, podsToActivate)
	if !status.IsSuccess() {
		s.handleSchedulingFailure(cycleCtx, fw, assumedPodInfo, status, result.nominatingInfo, start)
		return
	}

	handedOver = true
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer prof.release(logger)
		s.runBindingCycle(ctx, state, fw, prof.check, result, assumedPodInfo, start, podsToActivate)
	}()
}

func (s *Scheduler) skipPodSchedule(ctx context.Context, fw framework.Framework, pod *v1.Pod) bool {
	logger := klog.FromContext(ctx)
	if pod.DeletionTimestamp != nil {
		fw.EventRecorder().WithLogger(logger).Eventf(pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", "skip schedule deleting pod: %v/%v", pod.Namespace, pod.Name)
		logger.V(3).Info("Skip schedule deleting pod")
		return true
	}
	// A pod updated while it was being assumed can come back to the queue.
	isAssumed, err := s.cache.IsAssumedPod(pod)
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to check whether pod is assumed")
		return false
	}
	return isAssumed
}

func (s *Scheduler) schedulingCycle(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, start time.Time, podsToActivate *framework.PodsToActivate) (scheduleResult, *framework.QueuedPodInfo, *fwk.Status) {
	logger := klog.FromContext(ctx)
	if err := s.cache.UpdateSnapshot(logger, s.snapshot); err != nil {
		return scheduleResult{nominatingInfo: clearNominatedNode}, podInfo, fwk.AsStatus(err)
	}
	result, status := s.schedulingAlgorithm(ctx, state, fw, podInfo, start)
	if !status.IsSuccess() {
		return result, podInfo, status
	}
	assumed, status := s.prepareForBindingCycle(ctx, state, fw, podInfo, podsToActivate, result)
	if !status.IsSuccess() {
		return scheduleResult{nominatingInfo: clearNominatedNode}, assumed, status
	}
	return result, assumed, nil
}

// prepareForBindingCycle applies a cycle's result in memory: assume,
// Reserve, Permit (a waiting pod is added to the framework's waiting
// pods), then activates the pods plugins asked for.
func (s *Scheduler) prepareForBindingCycle(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, podsToActivate *framework.PodsToActivate, result scheduleResult) (*framework.QueuedPodInfo, *fwk.Status) {
	logger := klog.FromContext(ctx)
	assumed, status := s.assumeAndReserve(ctx, state, fw, podInfo, result)
	if !status.IsSuccess() {
		return assumed, status
	}
	waitTime, permit := fw.RunPermitPlugins(ctx, state, assumed.Pod, result.suggestedHost)
	if permit.IsWait() {
		fw.AddWaitingPod(assumed.Pod, waitTime)
	} else if !permit.IsSuccess() {
		if err := s.unreserveAndForget(ctx, state, fw, assumed, result.suggestedHost); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "ForgetPod failed")
		}
		if permit.IsRejected() {
			return assumed, fwk.NewStatus(permit.Code()).WithError(singleNodeFitError(podInfo.Pod, result.suggestedHost, permit, true))
		}
		return assumed, permit
	}
	if len(podsToActivate.Map) != 0 {
		s.queue.Activate(logger, podsToActivate.Map)
		podsToActivate.Map = make(map[string]*v1.Pod)
	}
	return assumed, nil
}

// singleNodeFitError describes a rejection at Reserve, Permit or
// WaitOnPermit, where only the chosen node was involved.
func singleNodeFitError(pod *v1.Pod, node string, st *fwk.Status, addPluginStatus bool) *framework.FitError {
	fitErr := &framework.FitError{
		NumAllNodes: 1,
		Pod:         pod,
		Diagnosis:   framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()},
	}
	fitErr.Diagnosis.NodeToStatus.Set(node, st)
	if addPluginStatus {
		fitErr.Diagnosis.AddPluginStatus(st)
	} else {
		fitErr.Diagnosis.UnschedulablePlugins = sets.New(st.Plugin())
	}
	return fitErr
}

// schedulingAlgorithm filters and scores, and runs PostFilter (preemption)
// when no node fits.
func (s *Scheduler) schedulingAlgorithm(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, start time.Time) (scheduleResult, *fwk.Status) {
	defer func() { metrics.SchedulingAlgorithmLatency.Observe(metrics.SinceInSeconds(start)) }()
	logger := klog.FromContext(ctx)
	pod := podInfo.Pod
	result, err := s.schedulePod(ctx, fw, state, podInfo)
	if err == nil {
		return result, nil
	}
	if errors.Is(err, errNoNodesAvailable) {
		return scheduleResult{nominatingInfo: clearNominatedNode}, fwk.NewStatus(fwk.UnschedulableAndUnresolvable).WithError(err)
	}
	var fitError *framework.FitError
	if !errors.As(err, &fitError) {
		logger.Error(err, "Error selecting node for pod")
		return scheduleResult{nominatingInfo: clearNominatedNode}, fwk.AsStatus(err)
	}
	// A pod of a pod-group cycle gets no PostFilter: the group's
	// PodGroupPostFilter runs at the end of the cycle and may set the
	// nominating info then.
	if state.IsPodGroupSchedulingCycle() {
		return scheduleResult{nominatingInfo: nil}, fwk.NewStatus(fwk.Unschedulable).WithError(err)
	}
	if !fw.HasPostFilterPlugins() {
		logger.V(3).Info("No PostFilter plugins are registered, so no preemption will be performed")
		return scheduleResult{nominatingInfo: clearNominatedNode}, fwk.NewStatus(fwk.Unschedulable).WithError(err)
	}
	pfResult, status := fw.RunPostFilterPlugins(ctx, state, pod, fitError.Diagnosis.NodeToStatus)
	msg := status.Message()
	fitError.Diagnosis.PostFilterMsg = msg
	if status.Code() == fwk.Error {
		utilruntime.HandleErrorWithContext(ctx, nil, "Status after running PostFilter plugins for pod", "status", msg)
	} else {
		logger.V(5).Info("Status after running PostFilter plugins for pod", "status", msg)
	}
	var nominatingInfo *fwk.NominatingInfo
	if pfResult != nil {
		nominatingInfo = pfResult.NominatingInfo
	}
	return scheduleResult{nominatingInfo: nominatingInfo}, fwk.NewStatus(fwk.Unschedulable).WithError(err)
}

// newFitError is the error of a cycle that found no feasible node.
func newFitError(pod *v1.Pod, numAllNodes int, diagnosis framework.Diagnosis) *framework.FitError {
	return &framework.FitError{Pod: pod, NumAllNodes: numAllNodes, Diagnosis: diagnosis}
}

func (s *Scheduler) schedulePod(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) (scheduleResult, error) {
	pod := podInfo.Pod
	if s.snapshot.NumNodesInPlacement() == 0 {
		return scheduleResult{}, errNoNodesAvailable
	}
	feasible, diagnosis, nodeHint, err := s.findNodesThatFitPod(ctx, fw, state, podInfo)
	if err != nil {
		return scheduleResult{}, err
	}
	if len(feasible) == 0 {
		return scheduleResult{}, newFitError(pod, s.snapshot.NumNodesInPlacement(), diagnosis)
	}
	batching := utilfeature.DefaultFeatureGate.Enabled(features.OpportunisticBatching)
	if len(feasible) == 1 {
		node := feasible[0].Node().Name
		if batching {
			fw.StoreScheduleResults(ctx, podInfo.PodSignature, nodeHint, node, nil, s.queue.SchedulingCycle())
		}
		return scheduleResult{suggestedHost: node, evaluatedNodes: 1 + diagnosis.NodeToStatus.Len(), feasibleNodes: 1}, nil
	}
	scores, err := prioritizeNodes(ctx, fw, state, pod, feasible)
	if err != nil {
		return scheduleResult{}, err
	}
	sorted := framework.NewSortedScoredNodes(scores)
	node := sorted.Pop().Name
	if batching {
		fw.StoreScheduleResults(ctx, podInfo.PodSignature, nodeHint, node, sorted, s.queue.SchedulingCycle())
	}
	return scheduleResult{
		suggestedHost:  node,
		evaluatedNodes: len(feasible) + diagnosis.NodeToStatus.Len(),
		feasibleNodes:  len(feasible),
	}, nil
}

// findNodesThatFitPod runs PreFilter, Filter (in parallel, from a rotating
// start index, stopping at numFeasibleNodesToFind) and the extenders' filter.
func (s *Scheduler) findNodesThatFitPod(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) ([]fwk.NodeInfo, framework.Diagnosis, string, error) {
	pod := podInfo.Pod
	nodes, allNodes, diagnosis, err := runPreFilter(ctx, fw, state, pod, s.snapshot)
	if err != nil || nodes == nil {
		return nil, diagnosis, "", err
	}

	var nodeHint string
	if utilfeature.DefaultFeatureGate.Enabled(features.OpportunisticBatching) {
		nodeHint = fw.GetNodeHint(ctx, pod, podInfo.PodSignature, state, s.queue.SchedulingCycle())
	}
	// A nominated node (from preemption) or a batching hint is tried first.
	if pod.Status.NominatedNodeName != "" || nodeHint != "" {
		feasible, err := s.evaluateNominatedNode(ctx, pod, fw, state, nodeHint, diagnosis)
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Evaluation failed on nominated node", "node", pod.Status.NominatedNodeName)
		}
		if len(feasible) != 0 {
			return feasible, diagnosis, nodeHint, nil
		}
	}

	feasible, err := s.findNodesThatPassFilters(ctx, fw, state, pod, &diagnosis, nodes)
	processed := len(feasible) + diagnosis.NodeToStatus.Len()
	s.nextStartNodeIndex.Store(int64((int(s.nextStartNodeIndex.Load()) + processed) % len(allNodes)))
	if err != nil {
		return nil, diagnosis, nodeHint, err
	}
	afterExtenders, err := findNodesThatPassExtenders(ctx, fw.Extenders(), pod, feasible, diagnosis.NodeToStatus)
	if err != nil {
		return nil, diagnosis, nodeHint, err
	}
	if len(afterExtenders) != len(feasible) {
		// Extenders have no queueing hints: any event may help.
		if diagnosis.UnschedulablePlugins == nil {
			diagnosis.UnschedulablePlugins = sets.New[string]()
		}
		diagnosis.UnschedulablePlugins.Insert(framework.ExtenderName)
	}
	return afterExtenders, diagnosis, nodeHint, nil
}

// runPreFilter runs the PreFilter plugins and returns the nodes Filter
// must look at (all nodes of the snapshot, or those a PreFilterResult
// names), and all nodes. nodes is nil when PreFilter rejected the pod; the
// diagnosis then says why. A review runs it on its own snapshot.
func runPreFilter(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, snapshot *internalcache.Snapshot) (nodes, allNodes []fwk.NodeInfo, diagnosis framework.Diagnosis, err error) {
	logger := klog.FromContext(ctx)
	diagnosis = framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	allNodes, err = snapshot.ListNodesInPlacement()
	if err != nil {
		return nil, nil, diagnosis, err
	}
	preRes, st, unschedulablePlugins := fw.RunPreFilterPlugins(ctx, state, pod)
	diagnosis.UnschedulablePlugins = unschedulablePlugins
	if !st.IsSuccess() {
		if !st.IsRejected() {
			return nil, allNodes, diagnosis, st.AsError()
		}
		diagnosis.NodeToStatus.SetAbsentNodesStatus(st)
		diagnosis.PreFilterMsg = st.Message()
		logger.V(5).Info("Status after running PreFilter plugins for pod", "status", st.Message())
		diagnosis.AddPluginStatus(st)
		return nil, allNodes, diagnosis, nil
	}
	if preRes.AllNodes() {
		return allNodes, allNodes, diagnosis, nil
	}
	nodes = make([]fwk.NodeInfo, 0, len(preRes.NodeNames))
	for name := range preRes.NodeNames {
		if ni, err := snapshot.GetNodeInPlacement(name); err == nil {
			nodes = append(nodes, ni)
		}
	}
	diagnosis.NodeToStatus.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unschedulablePlugins))))
	return nodes, allNodes, diagnosis, nil
}

func (s *Scheduler) evaluateNominatedNode(ctx context.Context, pod *v1.Pod, fw framework.Framework, state fwk.CycleState, nodeHint string, diagnosis framework.Diagnosis) ([]fwk.NodeInfo, error) {
	nnn := pod.Status.NominatedNodeName
	if nnn == "" {
		nnn = nodeHint
	}
	ni, err := s.snapshot.GetNodeInPlacement(nnn)
	if err != nil {
		if _, err := s.snapshot.Get(nnn); err != nil {
			return nil, err
		}
		return nil, nil
	}
	feasible, err := s.findNodesThatPassFilters(ctx, fw, state, pod, &diagnosis, []fwk.NodeInfo{ni})
	if err != nil {
		return nil, err
	}
	return findNodesThatPassExtenders(ctx, fw.Extenders(), pod, feasible, diagnosis.NodeToStatus)
}

func hasScoring(fw framework.Framework) bool {
	if fw.HasScorePlugins() {
		return true
	}
	for _, e := range fw.Extenders() {
		if e.IsPrioritizer() {
			return true
		}
	}
	return false
}

func hasExtenderFilters(fw framework.Framework) bool {
	for _, e := range fw.Extenders() {
		if e.IsFilter() {
			return true
		}
	}
	return false
}

func (s *Scheduler) findNodesThatPassFilters(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, diagnosis *framework.Diagnosis, nodes []fwk.NodeInfo) ([]fwk.NodeInfo, error) {
	numNodesToFind := s.numFeasibleNodesToFind(fw.PercentageOfNodesToScore(), int32(len(nodes)))
	if !hasExtenderFilters(fw) && !hasScoring(fw) {
		numNodesToFind = 1
	}
	return filterNodes(ctx, fw, state, pod, diagnosis, nodes, int(s.nextStartNodeIndex.Load()), numNodesToFind)
}

// filterNodes runs the Filter plugins (with nominated pods) on nodes in
// parallel, from startIndex on, until numNodesToFind nodes fit; rejected
// nodes get their status in diagnosis. A review runs it on every node.
func filterNodes(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, diagnosis *framework.Diagnosis, nodes []fwk.NodeInfo, startIndex int, numNodesToFind int32) ([]fwk.NodeInfo, error) {
	numAllNodes := len(nodes)
	feasible := make([]fwk.NodeInfo, numNodesToFind)
	if !fw.HasFilterPlugins() {
		for i := range feasible {
			feasible[i] = nodes[(startIndex+i)%numAllNodes]
		}
		return feasible, nil
	}

	errCh := parallelize.NewResultChannel[error]()
	var feasibleLen int32
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(errors.New("findNodesThatPassFilters has completed"))
	type nodeStatus struct {
		node   string
		status *fwk.Status
	}
	results := make([]*nodeStatus, numAllNodes)
	checkNode := func(i int) {
		ni := nodes[(startIndex+i)%numAllNodes]
		st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni)
		if st.Code() == fwk.Error {
			errCh.SendWithCancel(st.AsError(), func() { cancel(errors.New("some other Filter operation failed")) })
			return
		}
		if st.IsSuccess() {
			n := atomic.AddInt32(&feasibleLen, 1)
			if n > numNodesToFind {
				cancel(errors.New("findNodesThatPassFilters has found enough nodes"))
				atomic.AddInt32(&feasibleLen, -1)
			} else {
				feasible[n-1] = ni
			}
			return
		}
		results[i] = &nodeStatus{node: ni.Node().Name, status: st}
	}
	begin := time.Now()
	code := fwk.Success
	defer func() {
		metrics.FrameworkExtensionPointDuration.WithLabelValues(metrics.Filter, code.String(), fw.ProfileName()).Observe(metrics.SinceInSeconds(begin))
	}()
	fw.Parallelizer().Until(ctx, numAllNodes, checkNode, metrics.Filter)
	feasible = feasible[:feasibleLen]
	for _, r := range results {
		if r == nil {
			continue
		}
		diagnosis.NodeToStatus.Set(r.node, r.status)
		diagnosis.AddPluginStatus(r.status)
	}
	if err := errCh.Receive(); err != nil {
		code = fwk.Error
		return feasible, err
	}
	return feasible, nil
}

// numFeasibleNodesToFind is how many feasible nodes end the search: all of
// them below 100 nodes, else percentageOfNodesToScore (the profile's, else
// the scheduler's; 0 is adaptive), never fewer than 100.
func (s *Scheduler) numFeasibleNodesToFind(profilePercentage *int32, numAllNodes int32) int32 {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	percentage := s.opts.percentageOfNodesToScore
	if profilePercentage != nil {
		percentage = *profilePercentage
	}
	if percentage == 0 {
		percentage = int32(50) - numAllNodes/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	n := numAllNodes * percentage / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return n
}

// findNodesThatPassExtenders calls the interested extenders in order, each
// on the nodes the previous ones kept. An ignorable extender that fails is
// skipped; any other failure fails the cycle.
func findNodesThatPassExtenders(ctx context.Context, extenders []fwk.Extender, pod *v1.Pod, feasible []fwk.NodeInfo, statuses *framework.NodeToStatus) ([]fwk.NodeInfo, error) {
	logger := klog.FromContext(ctx)
	for _, e := range extenders {
		if len(feasible) == 0 {
			break
		}
		if !e.IsInterested(pod) {
			continue
		}
		kept, failed, failedAndUnresolvable, err := e.Filter(pod, feasible)
		if err != nil {
			if e.IsIgnorable() {
				logger.Info("Skipping extender as it returned error and has ignorable flag set", "extender", e.Name(), "err", err)
				continue
			}
			return nil, err
		}
		for node, msg := range failedAndUnresolvable {
			statuses.Set(node, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg))
		}
		for node, msg := range failed {
			if _, ok := failedAndUnresolvable[node]; ok {
				continue
			}
			statuses.Set(node, fwk.NewStatus(fwk.Unschedulable, msg))
		}
		feasible = kept
	}
	return feasible, nil
}

// prioritizeNodes runs PreScore and Score (weighted, normalized) and adds
// the interested extenders' priorities times their weight.
func prioritizeNodes(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, error) {
	logger := klog.FromContext(ctx)
	extenders := fw.Extenders()
	if len(extenders) == 0 && !fw.HasScorePlugins() {
		result := make([]fwk.NodePluginScores, 0, len(nodes))
		for i := range nodes {
			result = append(result, fwk.NodePluginScores{Name: nodes[i].Node().Name, TotalScore: 1})
		}
		return result, nil
	}
	if st := fw.RunPreScorePlugins(ctx, state, pod, nodes); !st.IsSuccess() {
		return nil, st.AsError()
	}
	scores, st := fw.RunScorePlugins(ctx, state, pod, nodes)
	if !st.IsSuccess() {
		return nil, st.AsError()
	}
	if len(extenders) == 0 {
		return scores, nil
	}
	byNode := make(map[string]*fwk.NodePluginScores, len(nodes))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range extenders {
		e := extenders[i]
		if !e.IsInterested(pod) {
			continue
		}
		wg.Add(1)
		go func() {
			metrics.Goroutines.WithLabelValues(metrics.PrioritizingExtender).Inc()
			defer func() {
				metrics.Goroutines.WithLabelValues(metrics.PrioritizingExtender).Dec()
				wg.Done()
			}()
			list, weight, err := e.Prioritize(pod, nodes)
			if err != nil {
				logger.V(5).Info("Failed to run extender's priority function. No score given by this extender.", "error", err, "extender", e.Name())
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, hp := range *list {
				score := hp.Score * weight * (fwk.MaxScore / extenderv1.MaxExtenderPriority)
				ns := byNode[hp.Host]
				if ns == nil {
					ns = &fwk.NodePluginScores{Name: hp.Host, Scores: make([]fwk.PluginScore, 0, len(extenders))}
					byNode[hp.Host] = ns
				}
				ns.Scores = append(ns.Scores, fwk.PluginScore{Name: e.Name(), Score: score})
				ns.TotalScore += score
			}
		}()
	}
	wg.Wait()
	for i := range scores {
		if ns, ok := byNode[nodes[i].Node().Name]; ok {
			scores[i].Scores = append(scores[i].Scores, ns.Scores...)
			scores[i].TotalScore += ns.TotalScore
			scores[i].Randomizer = rand.Int()
		}
	}
	return scores, nil
}

// assumeAndReserve assumes the pod on the chosen node in the cache, then
// runs Reserve; on a Reserve failure it unreserves and forgets.
func (s *Scheduler) assumeAndReserve(ctx context.Context, state fwk.CycleState, fw framework.Framework, podInfo *framework.QueuedPodInfo, result scheduleResult) (*framework.QueuedPodInfo, *fwk.Status) {
	logger := klog.FromContext(ctx)
	assumed := podInfo.DeepCopy()
	assumed.Pod.Spec.NodeName = result.suggestedHost
	// In a pod-group cycle the pod is assumed in the cycle's snapshot
	// only, for the next members to see; the cache gets it once the whole
	// group fits.
	if state.IsPodGroupSchedulingCycle() {
		if err := s.snapshot.AssumePod(assumed.PodInfo); err != nil {
			logger.Error(err, "Scheduler snapshot AssumePod failed")
			return assumed, fwk.AsStatus(err)
		}
	} else if err := s.cache.AssumePod(logger, assumed.Pod); err != nil {
		logger.Error(err, "Scheduler cache AssumePod failed")
		return assumed, fwk.AsStatus(err)
	}
	s.queue.DeleteNominatedPodIfExists(assumed.Pod)
	if st := fw.RunReservePluginsReserve(ctx, state, assumed.Pod, result.suggestedHost); !st.IsSuccess() {
		if err := s.unreserveAndForget(ctx, state, fw, assumed, result.suggestedHost); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "ForgetPod failed")
		}
		if st.IsRejected() {
			return assumed, fwk.NewStatus(st.Code()).WithError(singleNodeFitError(podInfo.Pod, result.suggestedHost, st, true))
		}
		return assumed, st
	}
	return assumed, nil
}

func (s *Scheduler) unreserveAndForget(ctx context.Context, state fwk.CycleState, fw framework.Framework, assumed *framework.QueuedPodInfo, node string) error {
	logger := klog.FromContext(ctx)
	fw.RunReservePluginsUnreserve(ctx, state, assumed.Pod, node)
	if !state.IsPodGroupSchedulingCycle() {
		return s.cache.ForgetPod(logger, assumed.Pod)
	}
	if err := s.snapshot.ForgetPod(logger, assumed.Pod); err != nil {
		return err
	}
	if nnn := assumed.Pod.Status.NominatedNodeName; nnn != "" {
		// Assuming dropped the nomination; reverting the assumption
		// restores it.
		s.queue.AddNominatedPod(logger, assumed.PodInfo, &fwk.NominatingInfo{NominatedNodeName: nnn, NominatingMode: fwk.ModeOverride})
	}
	return nil
}
