package scheduler

import (
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

// ReviewFrameworkBuilds is the number of frameworks built for reviews so
// far.
func (s *Scheduler) ReviewFrameworkBuilds() int64 { return s.reviewBuilds.Load() }

// ReviewFrameworksOpen is the number of frameworks built for reviews and
// not closed yet.
func (s *Scheduler) ReviewFrameworksOpen() int64 { return s.reviewsOpen.Load() }

// ReviewSnapshotsMade is the number of snapshots made for reviews so far.
func (s *Scheduler) ReviewSnapshotsMade() int {
	s.reviews.mu.Lock()
	defer s.reviews.mu.Unlock()
	return s.reviews.made
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
