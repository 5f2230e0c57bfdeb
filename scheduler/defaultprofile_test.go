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
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

func TestDefaultProfile(t *testing.T) {
	g := NewWithT(t)
	p, err := DefaultProfile("mine")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(p.SchedulerName).To(Equal("mine"))
	g.Expect(p.Plugins).NotTo(BeNil())
	// Upstream's defaults: the MultiPoint set and the args of the
	// configurable plugins.
	var multiPoint []string
	for _, pl := range p.Plugins.MultiPoint.Enabled {
		multiPoint = append(multiPoint, pl.Name)
	}
	g.Expect(multiPoint).To(ContainElements(names.PrioritySort, names.NodeResourcesFit, names.DefaultPreemption, names.DefaultBinder))
	var args []string
	for _, pc := range p.PluginConfig {
		args = append(args, pc.Name)
	}
	g.Expect(args).To(ContainElements(names.NodeResourcesFit, names.DefaultPreemption, names.PodTopologySpread))

	// Each call returns a profile of its own.
	q, err := DefaultProfile("other")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(q.SchedulerName).To(Equal("other"))
	g.Expect(p.SchedulerName).To(Equal("mine"))
}
