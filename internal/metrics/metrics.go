package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

const namespace = "profile_scheduler"

var (
	// Swaps counts frameworks swapped in, per schedulerName.
	Swaps = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace,
		Name:      "profile_swaps_total",
		Help:      "Frameworks built and swapped in, by profile (schedulerName).",
	}, []string{"profile"})

	// SwapDuration observes how long building and swapping in a framework
	// takes, per schedulerName and result (swapped, failed).
	SwapDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace,
		Name:      "profile_swap_duration_seconds",
		Help:      "Time to build a profile's framework and swap it in, by profile and result.",
		Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"profile", "result"})

	// RefusedGenerations counts SchedulerProfile generations refused, per
	// profile and reason (the Ready condition's reason).
	RefusedGenerations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace,
		Name:      "refused_generations_total",
		Help:      "SchedulerProfile generations refused, by profile (object name) and reason.",
	}, []string{"profile", "reason"})

	// ActiveProfiles is the number of schedulerNames served now.
	ActiveProfiles = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace,
		Name:      "active_profiles",
		Help:      "Profiles (schedulerNames) served now.",
	})
)

var registerOnce sync.Once

// Register registers the metrics on controller-runtime's registry, once.
func Register() {
	registerOnce.Do(func() {
		ctrlmetrics.Registry.MustRegister(Swaps, SwapDuration, RefusedGenerations, ActiveProfiles)
	})
}

// Instrument wraps a ProfileSet so that every Apply and Remove is measured.
// Validate (dry-run admission) is not a swap and is passed through.
func Instrument(set scheduler.ProfileSet) scheduler.ProfileSet {
	Register()
	return &instrumented{ProfileSet: set, served: map[string]bool{}}
}

type instrumented struct {
	scheduler.ProfileSet

	mu     sync.Mutex
	served map[string]bool
}

var _ scheduler.ProfileSet = &instrumented{}

func (i *instrumented) Apply(ctx context.Context, p scheduler.Profile) (scheduler.Applied, error) {
	name := p.Config.SchedulerName
	start := time.Now()
	applied, err := i.ProfileSet.Apply(ctx, p)
	result := "swapped"
	if err != nil {
		result = "failed"
	} else {
		Swaps.WithLabelValues(name).Inc()
	}
	SwapDuration.WithLabelValues(name, result).Observe(time.Since(start).Seconds())
	i.setServed(name, i.ProfileSet.Serving(name))
	return applied, err
}

func (i *instrumented) Remove(ctx context.Context, schedulerName string) bool {
	removed := i.ProfileSet.Remove(ctx, schedulerName)
	i.setServed(schedulerName, i.ProfileSet.Serving(schedulerName))
	return removed
}

func (i *instrumented) setServed(name string, serving bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if serving {
		i.served[name] = true
	} else {
		delete(i.served, name)
	}
	ActiveProfiles.Set(float64(len(i.served)))
}
