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
