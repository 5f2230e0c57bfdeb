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

package controllers

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/profile-scheduler/profile-scheduler/scheduler/review"
)

// A review stopped at --review-timeout says what it had computed.
func TestReviewTimeoutSaysWhatWasComputed(t *testing.T) {
	g := NewWithT(t)
	g.Expect(computed(nil)).To(Equal("; nothing was computed yet"))
	g.Expect(computed(&review.Answer{SnapshotNodes: 3})).To(Equal("; it had taken a snapshot of 3 nodes"))
	g.Expect(computed(&review.Answer{SnapshotNodes: 3, Scenario: &review.ScenarioAnswer{Minimize: &review.MinimizeAnswer{
		Count: -1, Max: 5, Tried: []review.MinimizeTrial{{Count: 0, Unplaced: 4}, {Count: 5, Unplaced: 0}},
	}}})).To(Equal("; minimize had tried: 0 nodes left 4 pods unplaced, 5 nodes left 0 pods unplaced"))
}
