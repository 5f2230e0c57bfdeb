//go:build reviewmemory

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

package e2e

import (
	. "github.com/onsi/ginkgo/v2"
)

// Twenty of the largest reviews take minutes (four at a time, each up to
// --review-timeout): make test-review-memory runs them, not make test.
var _ = Describe("twenty of the largest reviews", Ordered, func() {
	lr := &largestReviews{name: "review-memory-many"}
	BeforeAll(lr.start)

	It("created together are answered with room to spare under the chart's memory limit", func(ctx SpecContext) {
		lr.answer(ctx, "many", 20)
	})
})
