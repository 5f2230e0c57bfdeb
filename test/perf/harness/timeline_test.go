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

package harness

import (
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestGenerationTimeline(t *testing.T) {
	g := NewWithT(t)
	applied := time.Unix(1000, 0)
	canary, promoted, end := applied.Add(4*time.Second), applied.Add(8*time.Second), applied.Add(10*time.Second)
	// One pod bound every 100 ms for 10 s, each 50 ms after its creation.
	var pods []PodState
	inCanary := 0
	for i := range 100 {
		bound := applied.Add(time.Duration(i) * 100 * time.Millisecond)
		uid := fmt.Sprintf("uid-%d", i)
		if !bound.Before(canary) && bound.Before(promoted) && CanaryBucket(uid) < 50 {
			inCanary++
		}
		pods = append(pods, PodState{UID: uid, Created: bound.Add(-50 * time.Millisecond), Bound: bound})
	}
	// Outside the window: not counted.
	pods = append(pods, PodState{UID: "late", Created: end, Bound: end.Add(time.Second)}, PodState{UID: "pending", Created: applied})

	wins := GenerationTimeline(pods, applied, canary, promoted, end, 50)
	g.Expect(wins).To(HaveLen(10), "five whole windows of 2 s, two generations each")
	count := map[bool]int{}
	for _, w := range wins {
		count[w.Candidate] += w.Pods
		g.Expect(w.BindsPerSecond).To(Equal(float64(w.Pods) / 2))
		if w.Pods > 0 {
			g.Expect(w.P99Millis).To(BeNumerically("~", 50, 0.001))
		}
		switch {
		case w.AtSeconds < 4:
			if w.Candidate {
				g.Expect(w.Pods).To(BeZero(), "before the canary step the serving generation binds every pod")
			}
		case w.AtSeconds >= 8 && w.AtSeconds < 10:
			if !w.Candidate {
				g.Expect(w.Pods).To(BeZero(), "promoted, the new generation binds every pod")
			}
		}
	}
	g.Expect(count[true]).To(Equal(inCanary + 20))
	g.Expect(count[true] + count[false]).To(Equal(100))
}
