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
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// loggingPlugin logs, from its factory, with the logger of the context it
// is built with: what a plugin keeps for the work it does on its own.
type loggingPlugin struct{}

const loggingPluginName = "LoggingPlugin"

func (loggingPlugin) Name() string { return loggingPluginName }

func (loggingPlugin) Filter(context.Context, fwk.CycleState, *v1.Pod, fwk.NodeInfo) *fwk.Status {
	return nil
}

// captureLogs is a logger that keeps every line it is given up to
// verbosity, and a function returning the lines kept so far.
func captureLogs(verbosity int) (logr.Logger, func() []string) {
	var mu sync.Mutex
	var lines []string
	logger := funcr.New(func(_, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{Verbosity: verbosity})
	return logger, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(lines)
	}
}

var _ = Describe("A plugin's logger", func() {
	It("carries its profile, generation and name, and nothing of the call that built it", func() {
		logger, logged := captureLogs(0)

		registry := frameworkruntime.Registry{loggingPluginName: func(ctx context.Context, _ runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
			klog.FromContext(ctx).Info("Plugin built")
			return loggingPlugin{}, nil
		}}
		h := startScheduler(scheduler.WithOutOfTreeRegistry(registry), scheduler.WithLogger(logger))
		name := uniqueName("logging")
		p := defaultProfile(name, func(c *config.KubeSchedulerProfile) {
			c.Plugins.Filter.Enabled = append(c.Plugins.Filter.Enabled, config.Plugin{Name: loggingPluginName})
		})
		p.Generation = 7
		// The caller's logger, as a reconcile's carries its reconcile ID.
		ctx := logr.NewContext(context.Background(), klog.Background().WithValues("reconcileID", "stale"))
		_, err := h.sched.Apply(ctx, p)
		Expect(err).NotTo(HaveOccurred())

		var built []string
		for _, l := range logged() {
			if strings.Contains(l, `"msg"="Plugin built"`) {
				built = append(built, l)
			}
		}
		Expect(built).To(HaveLen(1))
		Expect(built[0]).To(ContainSubstring(`"profile"="` + name + `"`))
		Expect(built[0]).To(ContainSubstring(`"generation"=7`))
		Expect(built[0]).To(ContainSubstring(`"plugin"="` + loggingPluginName + `"`))
		Expect(built[0]).NotTo(ContainSubstring("reconcileID"))
	})
})

var _ = Describe("Building a profile with pod groups on", func() {
	BeforeEach(enableGenericWorkload)

	It("logs no error about GangScheduling when the profile runs it (the bind check's framework included)", func() {
		logger, logged := captureLogs(10)
		h := startScheduler(scheduler.WithLogger(logger))
		name := uniqueName("gang-log")
		applied := h.apply(defaultProfile(name))
		var permit []string
		for _, p := range applied.Plugins.Permit.Enabled {
			permit = append(permit, p.Name)
		}
		Expect(permit).To(ContainElement("GangScheduling"), "the default profile runs GangScheduling with pod groups on")
		_, err := h.sched.Validate(context.Background(), defaultProfile(name))
		Expect(err).NotTo(HaveOccurred())

		lines := logged()
		Expect(lines).NotTo(BeEmpty(), "the scheduler logs through the logger given")
		for _, l := range lines {
			Expect(l).NotTo(ContainSubstring("GangScheduling plugin is not set"))
		}
	})
})
