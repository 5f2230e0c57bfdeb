package metrics

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// fakeSet serves what Apply was given unless the profile is named "bad".
type fakeSet struct{ serving map[string]bool }

func (f *fakeSet) Apply(_ context.Context, p scheduler.Profile) (scheduler.Applied, error) {
	if p.Config.SchedulerName == "bad" {
		return scheduler.Applied{}, errors.New("FilterPlugin \"Nope\" does not exist")
	}
	f.serving[p.Config.SchedulerName] = true
	return scheduler.Applied{SchedulerName: p.Config.SchedulerName}, nil
}
func (f *fakeSet) Validate(context.Context, scheduler.Profile) (scheduler.Applied, error) {
	return scheduler.Applied{}, nil
}
func (f *fakeSet) Remove(_ context.Context, name string) bool {
	ok := f.serving[name]
	delete(f.serving, name)
	return ok
}
func (f *fakeSet) Serving(name string) bool { return f.serving[name] }

func profile(name string) scheduler.Profile {
	return scheduler.Profile{Config: config.KubeSchedulerProfile{SchedulerName: name}}
}

func TestInstrument(t *testing.T) {
	ctx := context.Background()
	set := Instrument(&fakeSet{serving: map[string]bool{}})

	for range 3 {
		if _, err := set.Apply(ctx, profile("m-pack")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := set.Apply(ctx, profile("m-spread")); err != nil {
		t.Fatal(err)
	}
	if _, err := set.Apply(ctx, profile("bad")); err == nil {
		t.Fatal("want the error of the wrapped set")
	}

	if got := testutil.ToFloat64(Swaps.WithLabelValues("m-pack")); got != 3 {
		t.Errorf("swaps of m-pack = %v, want 3", got)
	}
	if got := testutil.ToFloat64(Swaps.WithLabelValues("bad")); got != 0 {
		t.Errorf("a failed build counted as a swap: %v", got)
	}
	if got := testutil.CollectAndCount(SwapDuration); got != 3 {
		t.Errorf("swap duration series = %d, want 3 (m-pack, m-spread swapped; bad failed)", got)
	}
	if got := testutil.ToFloat64(ActiveProfiles); got != 2 {
		t.Errorf("active profiles = %v, want 2", got)
	}
	if !set.Remove(ctx, "m-pack") {
		t.Error("Remove of a served profile reported false")
	}
	if got := testutil.ToFloat64(ActiveProfiles); got != 1 {
		t.Errorf("active profiles after Remove = %v, want 1", got)
	}
}
