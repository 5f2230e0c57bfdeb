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

package scheduler_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

var _ = Describe("A rollout of another QueueSort", func() {
	It("is refused by StartRollout, naming both, and changes nothing", func() {
		h := startScheduler(scheduler.WithOutOfTreeRegistry(frameworkruntime.Registry{testenv.SecondSortName: testenv.NewSecondSort}))
		name := uniqueName("qs")
		h.apply(defaultProfile(name))
		ctx := context.Background()

		other := defaultProfile(name, func(p *config.KubeSchedulerProfile) {
			p.Plugins.QueueSort = config.PluginSet{
				Enabled:  []config.Plugin{{Name: testenv.SecondSortName}},
				Disabled: []config.Plugin{{Name: "*"}},
			}
		})
		other.Generation = 2
		_, err := h.sched.StartRollout(ctx, other, scheduler.RolloutStep{Percent: 10})
		var qs *scheduler.QueueSortChangedError
		Expect(errors.As(err, &qs)).To(BeTrue(), "error %v", err)
		Expect(*qs).To(Equal(scheduler.QueueSortChangedError{Serving: "PrioritySort", Candidate: testenv.SecondSortName}))
		Expect(err.Error()).To(ContainSubstring("(PrioritySort to SecondSort)"))
		Expect(h.sched.Candidate(name)).To(BeZero(), "no candidate serves")
		_, ok := h.sched.Window(name, false)
		Expect(ok).To(BeFalse())

		By("a candidate of the same QueueSort still starts")
		same := defaultProfile(name)
		same.Generation = 3
		_, err = h.sched.StartRollout(ctx, same, scheduler.RolloutStep{Percent: 10})
		Expect(err).NotTo(HaveOccurred())
		Expect(h.sched.Candidate(name)).To(Equal(int64(3)))
		Expect(h.sched.Rollback(ctx, name)).To(BeTrue())
	})
})
