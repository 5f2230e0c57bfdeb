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

package queue

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"
)

// popForNow is PopFor with a deadline: nil when name has no pod within d.
func popForNow(t *testing.T, q *Queue, name string, d time.Duration) *framework.QueuedPodInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return poppedPod(t, q.PopFor(ctx, name))
}

func TestPopForTakesOnlyItsProfilesPodsInItsOrder(t *testing.T) {
	g := NewWithT(t)
	q := newQueue(t, testingclock.NewFakeClock(time.Now()), "a", "b")
	ctx := context.Background()
	q.Add(ctx, pod("b-high", "b", 100))
	q.Add(ctx, pod("a-low", "a", 1))
	q.Add(ctx, pod("a-high", "a", 10))
	var order []string
	for range 2 {
		order = append(order, popForNow(t, q, "a", time.Second).Pod.Name)
	}
	g.Expect(order).To(Equal([]string{"a-high", "a-low"}))
	g.Expect(popForNow(t, q, "a", 50*time.Millisecond)).To(BeNil(), "b's pod is not a's")
	g.Expect(popForNow(t, q, "b", time.Second).Pod.Name).To(Equal("b-high"))
}

func TestPopForWakesOnlyForItsOwnPods(t *testing.T) {
	g := NewWithT(t)
	q := newQueue(t, testingclock.NewFakeClock(time.Now()), "a", "b")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	popped := make(chan string, 2)
	go func() {
		for {
			e := q.PopFor(ctx, "a")
			if e == nil {
				return
			}
			popped <- e.(*framework.QueuedPodInfo).Pod.Name
		}
	}()
	q.Add(ctx, pod("for-b", "b", 0))
	g.Consistently(popped, 100*time.Millisecond).ShouldNot(Receive())
	q.Add(ctx, pod("for-a", "a", 0))
	g.Eventually(popped, time.Second).Should(Receive(Equal("for-a")))

	// The queue closing ends a waiting PopFor.
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Expect(q.PopFor(context.Background(), "b-none")).To(BeNil())
	}()
	time.Sleep(20 * time.Millisecond)
	q.Close()
	g.Eventually(done, time.Second).Should(BeClosed())
}

func TestPopForTakesItsOwnRejectedPodFromBackoffWhenIdle(t *testing.T) {
	g := NewWithT(t)
	clk := testingclock.NewFakeClock(time.Now())
	q := newQueue(t, clk, "a", "b")
	g.Expect(q.popFromBackoff).To(BeTrue(), "the feature gate is on by default")
	ctx := context.Background()
	q.Add(ctx, pod("b1", "b", 0))
	q.Add(ctx, pod("a1", "a", 0))
	b1, a1 := popForNow(t, q, "b", time.Second), popForNow(t, q, "a", time.Second)
	// A useful node arrives while both are in flight: they go to
	// back-off instead of the unschedulable set.
	q.MoveAllToActiveOrBackoffQueue(ctx, nodeAdd, nil, usefulNode, nil)
	rejectByNodeWaiter(t, q, b1)
	clk.Step(time.Millisecond)
	rejectByNodeWaiter(t, q, a1)
	// Both wait in back-off; b's pod ends it first, but a's loop takes
	// a's.
	_, backoff, _ := q.Pending()
	g.Expect(backoff).To(HaveLen(2))
	g.Expect(popForNow(t, q, "a", time.Second).Pod.Name).To(Equal("a1"))
	g.Expect(popForNow(t, q, "b", time.Second).Pod.Name).To(Equal("b1"))
}

func TestRetryPutsThePodBackAsIfNotPopped(t *testing.T) {
	g := NewWithT(t)
	q := newQueue(t, testingclock.NewFakeClock(time.Now()), "a")
	ctx := context.Background()
	q.Add(ctx, pod("first", "a", 0))
	q.Add(ctx, pod("second", "a", 0))
	p := popForNow(t, q, "a", time.Second)
	g.Expect(p.Pod.Name).To(Equal("first"))
	g.Expect(p.Attempts).To(Equal(1))

	q.Retry(ctx, p)
	active, backoff, unschedulable := q.Pending()
	g.Expect(active).To(HaveLen(2))
	g.Expect(backoff).To(BeEmpty())
	g.Expect(unschedulable).To(BeEmpty())
	g.Expect(q.inFlight).To(BeEmpty())
	// Its place in the profile's order is kept, its attempt not counted.
	again := popForNow(t, q, "a", time.Second)
	g.Expect(again.Pod.Name).To(Equal("first"))
	g.Expect(again.Attempts).To(Equal(1))
	g.Expect(again.UnschedulableCount).To(BeZero())

	// A pod whose profile went away is not put back.
	q.RemoveProfile("a")
	q.Retry(ctx, again)
	active, _, _ = q.Pending()
	g.Expect(active).To(BeEmpty())
}
