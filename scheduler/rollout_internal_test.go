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

package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/utils/ptr"
)

// TestBucketSplitsAndIsStable: a key always falls in the same bucket, and
// the buckets of many keys split about as the percent says.
func TestBucketSplitsAndIsStable(t *testing.T) {
	under := 0
	for i := range 10000 {
		key := fmt.Sprintf("8d2f6c1e-%04d-4c4e-9b1a-%012d", i, i*7919)
		b := bucket(key)
		if b < 0 || b > 99 {
			t.Fatalf("bucket(%q) = %d, not in 0..99", key, b)
		}
		if bucket(key) != b {
			t.Fatalf("bucket(%q) changed", key)
		}
		if b < 10 {
			under++
		}
	}
	if under < 850 || under > 1150 {
		t.Errorf("%d of 10000 keys under 10%%, want about 1000", under)
	}
}

func TestGenerationStatsWindow(t *testing.T) {
	g := &generationStats{}
	g.record(outcomeBound, time.Second)
	if c := g.window(false); c.Attempts != 0 || c.LatencySamples != 0 {
		t.Errorf("outside a rollout nothing is counted: %+v", c)
	}
	g.setRole("p", "candidate")
	for i := 1; i <= 100; i++ {
		g.record(outcomeBound, time.Duration(i)*time.Millisecond)
	}
	g.record(outcomeUnschedulable, 0)
	g.record(outcomeError, 0)
	c := g.window(true)
	if c.Attempts != 102 || c.Bound != 100 || c.Unschedulable != 1 || c.Errors != 1 {
		t.Errorf("counts %+v", c)
	}
	if c.LatencyP99 != 99*time.Millisecond || c.LatencySamples != 100 {
		t.Errorf("p99 %v over %d samples, want 99ms over 100", c.LatencyP99, c.LatencySamples)
	}
	if c := g.window(false); c.Attempts != 0 || c.LatencySamples != 0 {
		t.Errorf("a new window starts empty: %+v", c)
	}
}

// TestRolloutKeyOfAGang: every member of a pod group is keyed by the
// group (its UID once the cache knows it), so a gang never straddles
// generations, whatever the members' own UIDs.
func TestRolloutKeyOfAGang(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := internalcache.New(ctx, nil, true, false)
	member := func(uid string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train-" + uid, UID: types.UID(uid)},
			Spec:       v1.PodSpec{SchedulingGroup: &v1.PodSchedulingGroup{PodGroupName: ptr.To("train")}},
		}
	}
	if a, b := rolloutKey(c.PodGroups(), member("a")), rolloutKey(c.PodGroups(), member("b")); a != b || a != "ml/train" {
		t.Errorf("members of a group the cache does not know are keyed %q and %q, want ml/train for both", a, b)
	}
	c.AddPodGroup(&schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train", UID: "group-uid"}})
	if a, b := rolloutKey(c.PodGroups(), member("a")), rolloutKey(c.PodGroups(), member("b")); a != b || a != "group-uid" {
		t.Errorf("members are keyed %q and %q, want the group's UID for both", a, b)
	}
	alone := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "solo", UID: "solo-uid"}}
	if k := rolloutKey(c.PodGroups(), alone); k != "solo-uid" {
		t.Errorf("a pod of no group is keyed %q, want its UID", k)
	}
}

// TestGenerationStatsRoleStartsAWindow: counting starts anew with a role,
// and stops, counts dropped, without one.
func TestGenerationStatsRoleStartsAWindow(t *testing.T) {
	g := &generationStats{}
	g.setRole("p", "serving")
	g.record(outcomeUnschedulable, 0)
	g.setRole("p", "serving")
	if c := g.window(false); c.Attempts != 0 {
		t.Errorf("a role starts a new window: %+v", c)
	}
	g.record(outcomeError, 0)
	g.setRole("", "")
	g.record(outcomeError, 0)
	if c := g.window(false); c.Attempts != 0 || c.Errors != 0 {
		t.Errorf("without a role nothing is kept: %+v", c)
	}
}
