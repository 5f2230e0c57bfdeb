package scheduler

import (
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework/parallelize"

	"github.com/profile-scheduler/profile-scheduler/internal/testenv"
	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// Queue exposes the scheduling queue to the tests.
func (s *Scheduler) Queue() *queue.Queue { return s.queue }

// Cache exposes the scheduler cache to the tests.
func (s *Scheduler) Cache() internalcache.Cache { return s.cache }

// DefaultProfile is upstream's default profile serving schedulerName (the
// fixture of internal/testenv), for this package's tests.
var DefaultProfile = testenv.DefaultProfile

// ReviewMetrics are the review metrics of the process, as scraped: the
// frameworks built for reviews so far, those not closed yet, and the
// snapshots made for reviews.
func ReviewMetrics() (builds, open, snapshots float64) {
	return testutil.ToFloat64(reviewFrameworkBuilds), testutil.ToFloat64(reviewFrameworksOpen), testutil.ToFloat64(reviewSnapshots)
}

// FrameworkParallelism is the parallelism of the live framework serving
// schedulerName and of the review framework of its generation (0 before
// its first review): how many goroutines their Filter and Score passes
// run on.
func (s *Scheduler) FrameworkParallelism(schedulerName string) (live, review int) {
	lp := s.acquireProfile(schedulerName)
	if lp == nil {
		return 0, 0
	}
	defer lp.release(klog.Background())
	live = parallelismOf(lp.fw.Parallelizer())
	if rf := lp.reviewFramework(); rf != nil {
		review = parallelismOf(rf.fw.Parallelizer())
	}
	return live, review
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
