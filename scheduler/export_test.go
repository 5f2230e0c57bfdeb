package scheduler

import (
	"fmt"

	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// Queue exposes the scheduling queue to the tests.
func (s *Scheduler) Queue() *queue.Queue { return s.queue }

// Cache exposes the scheduler cache to the tests.
func (s *Scheduler) Cache() internalcache.Cache { return s.cache }

// DefaultProfile returns upstream's default profile (v1 defaulting through
// the upstream scheme, converted to the internal type) serving
// schedulerName.
func DefaultProfile(schedulerName string) (config.KubeSchedulerProfile, error) {
	var versioned configv1.KubeSchedulerConfiguration
	scheme.Scheme.Default(&versioned)
	var cfg config.KubeSchedulerConfiguration
	if err := scheme.Scheme.Convert(&versioned, &cfg, nil); err != nil {
		return config.KubeSchedulerProfile{}, fmt.Errorf("converting default configuration: %w", err)
	}
	if len(cfg.Profiles) == 0 {
		return config.KubeSchedulerProfile{}, fmt.Errorf("upstream defaulting produced no profile")
	}
	p := cfg.Profiles[0]
	p.SchedulerName = schedulerName
	return p, nil
}

// ReviewFrameworkBuilds is the number of frameworks built for reviews so
// far.
func (s *Scheduler) ReviewFrameworkBuilds() int64 { return s.reviewBuilds.Load() }

// ReviewFrameworksOpen is the number of frameworks built for reviews and
// not closed yet.
func (s *Scheduler) ReviewFrameworksOpen() int64 { return s.reviewsOpen.Load() }
