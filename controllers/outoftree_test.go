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

package controllers_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/rest"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/pluginargs"
)

// Out-of-tree plugins of the suite's scheduler, beside SecondSort:
// PinNode scores one node (typed args, a validator), Boom panics when it is
// built, Broken returns an error when it is built.
const (
	pinNodeName = "PinNode"
	boomName    = "Boom"
	brokenName  = "Broken"
	// panicFilterName is a Filter plugin that panics on every node.
	panicFilterName = "PanicFilter"
)

type panicFilter struct{}

func (panicFilter) Name() string { return panicFilterName }
func (panicFilter) Filter(context.Context, fwk.CycleState, *corev1.Pod, fwk.NodeInfo) *fwk.Status {
	panic("filter panicked")
}
func newPanicFilter(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return panicFilter{}, nil
}

// Plugins that panic at one extension point each, past the assume:
// Reserve, Permit, PreBind, Bind and PostBind.
const (
	panicReserveName  = "PanicReserve"
	panicPermitName   = "PanicPermit"
	panicPreBindName  = "PanicPreBind"
	panicBindName     = "PanicBind"
	panicPostBindName = "PanicPostBind"
)

// Plugins that panic before the assume, in the cycle (PreFilter) and in
// its parallel Score workers.
const (
	panicPreFilterName = "PanicPreFilter"
	panicScoreName     = "PanicScore"
)

type panicPreFilter struct{}

func (panicPreFilter) Name() string { return panicPreFilterName }
func (panicPreFilter) PreFilter(context.Context, fwk.CycleState, *corev1.Pod, []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	panic("prefilter panicked")
}
func (panicPreFilter) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

type panicScore struct{}

func (panicScore) Name() string { return panicScoreName }
func (panicScore) Score(context.Context, fwk.CycleState, *corev1.Pod, fwk.NodeInfo) (int64, *fwk.Status) {
	panic("score panicked")
}
func (panicScore) ScoreExtensions() fwk.ScoreExtensions { return nil }

type panicReserve struct{}

func (panicReserve) Name() string { return panicReserveName }
func (panicReserve) Reserve(context.Context, fwk.CycleState, *corev1.Pod, string) *fwk.Status {
	panic("reserve panicked")
}
func (panicReserve) Unreserve(context.Context, fwk.CycleState, *corev1.Pod, string) {}

type panicPermit struct{}

func (panicPermit) Name() string { return panicPermitName }
func (panicPermit) Permit(context.Context, fwk.CycleState, *corev1.Pod, string) (*fwk.Status, time.Duration) {
	panic("permit panicked")
}

type panicPreBind struct{}

func (panicPreBind) Name() string { return panicPreBindName }
func (panicPreBind) PreBindPreFlight(context.Context, fwk.CycleState, *corev1.Pod, string) (*fwk.PreBindPreFlightResult, *fwk.Status) {
	return nil, nil
}
func (panicPreBind) PreBind(context.Context, fwk.CycleState, *corev1.Pod, string) *fwk.Status {
	panic("prebind panicked")
}

type panicBind struct{}

func (panicBind) Name() string { return panicBindName }
func (panicBind) Bind(context.Context, fwk.CycleState, *corev1.Pod, string) *fwk.Status {
	panic("bind panicked")
}

type panicPostBind struct{}

func (panicPostBind) Name() string { return panicPostBindName }
func (panicPostBind) PostBind(context.Context, fwk.CycleState, *corev1.Pod, string) {
	panic("postbind panicked")
}

func pluginFactory(p fwk.Plugin) frameworkruntime.PluginFactory {
	return func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return p, nil }
}

// pinNodeArgs are the typed args of PinNode.
type pinNodeArgs struct {
	metav1.TypeMeta `json:",inline"`
	// Node is the node PinNode gives the highest score.
	Node string `json:"node"`
}

func (a *pinNodeArgs) DeepCopyObject() runtime.Object { c := *a; return &c }

func validatePinNode(path *field.Path, o runtime.Object) error {
	a, ok := o.(*pinNodeArgs)
	if !ok {
		return field.Invalid(path, fmt.Sprintf("%T", o), "want PinNodeArgs")
	}
	if a.Node == "" {
		return field.Required(path.Child("node"), "names the node to prefer")
	}
	return nil
}

type pinNode struct{ node string }

func (p *pinNode) Name() string { return pinNodeName }
func (p *pinNode) Score(_ context.Context, _ fwk.CycleState, _ *corev1.Pod, n fwk.NodeInfo) (int64, *fwk.Status) {
	if n.Node().Name == p.node {
		return fwk.MaxScore, nil
	}
	return 0, nil
}
func (p *pinNode) ScoreExtensions() fwk.ScoreExtensions { return nil }

func newPinNode(_ context.Context, obj runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	a, ok := obj.(*pinNodeArgs)
	if !ok {
		return nil, fmt.Errorf("want args of type PinNodeArgs, got %T", obj)
	}
	return &pinNode{node: a.Node}, nil
}

func newBoom(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	panic("boom at build")
}

func newBroken(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return nil, errors.New("cannot reach its backend")
}

// outOfTree is the suite scheduler's out-of-tree registry and the
// validators of their args; operator.New tells the controllers about both.
func outOfTree() (frameworkruntime.Registry, map[string]pluginargs.Validator) {
	Expect(pluginargs.Register(pinNodeName, &pinNodeArgs{}, nil)).To(Succeed())
	r := frameworkruntime.Registry{secondSortName: newSecondSort, slowSyncName: newSlowSync, pinNodeName: newPinNode, boomName: newBoom, brokenName: newBroken, panicFilterName: newPanicFilter,
		panicReserveName: pluginFactory(panicReserve{}), panicPermitName: pluginFactory(panicPermit{}), panicPreBindName: pluginFactory(panicPreBind{}),
		panicBindName: pluginFactory(panicBind{}), panicPostBindName: pluginFactory(panicPostBind{}),
		panicPreFilterName: pluginFactory(panicPreFilter{}), panicScoreName: pluginFactory(panicScore{})}
	return r, map[string]pluginargs.Validator{pinNodeName: validatePinNode}
}

func scoreOnly(name string) *v1alpha1.Plugins {
	return &v1alpha1.Plugins{Score: v1alpha1.PluginSet{
		Disabled: []v1alpha1.Plugin{{Name: "*"}},
		Enabled:  []v1alpha1.Plugin{{Name: name, Weight: ptr.To[int32](1)}},
	}}
}

// warningRecorder keeps the warnings the API server returns.
type warningRecorder struct {
	mu       sync.Mutex
	messages []string
}

func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, message string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.messages = append(w.messages, message)
}

// warningClient returns a client of the suite's control plane and the
// recorder of the warnings the API server returns to it.
func warningClient() (client.Client, *warningRecorder) {
	GinkgoHelper()
	warnings := &warningRecorder{}
	wcfg := rest.CopyConfig(cfg)
	wcfg.WarningHandlerWithContext = warnings
	wk8s, err := client.New(wcfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	return wk8s, warnings
}

func (w *warningRecorder) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.messages...)
}

// deletePods deletes the pods of ns at once, so that what they asked for is
// free again for the specs that follow (no kubelet stops them).
func deletePods(ns string) {
	Expect(k8s.DeleteAllOf(suiteCtx, &corev1.Pod{}, client.InNamespace(ns), client.GracePeriodSeconds(0))).To(Succeed())
	Eventually(func() ([]corev1.Pod, error) {
		var pods corev1.PodList
		err := k8s.List(suiteCtx, &pods, client.InNamespace(ns))
		return pods.Items, err
	}).WithTimeout(timeout).Should(BeEmpty())
}

// createRejected creates sp through the webhook and returns its refusal.
func createRejected(sp *v1alpha1.SchedulerProfile) error {
	var err error
	Eventually(func() error {
		err = k8s.Create(suiteCtx, admitted(sp.DeepCopy()))
		if err == nil || apierrors.IsInvalid(err) {
			return nil
		}
		return err // the webhook server may still be starting
	}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
	Expect(err).To(HaveOccurred(), "%s was admitted", sp.Name)
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), err.Error())
	return err
}

var _ = Describe("Out-of-tree plugins and pluginConfig", func() {
	DescribeTable("refuses a profile in status, and at admission, naming what is at fault",
		func(spec v1alpha1.SchedulerProfileSpec, reason string, mentions ...string) {
			name := "oot-" + fmt.Sprint(GinkgoParallelProcess()) + "-" + fmt.Sprint(time.Now().UnixNano())

			By("at admission")
			err := createRejected(newProfile(name+"-wh", spec))
			Expect(err.Error()).To(ContainSubstring(reason))
			for _, m := range mentions {
				Expect(err.Error()).To(ContainSubstring(m))
			}

			By("in status, without the webhook")
			Expect(k8s.Create(suiteCtx, newProfile(name, spec))).To(Succeed())
			sp := expectRefused(name, reason, timeout)
			for _, m := range mentions {
				Expect(readyMessage(sp)).To(ContainSubstring(m))
			}
			Expect(sp.Status.ActiveGeneration).To(BeZero())
			deleteProfile(name)
		},
		Entry("pluginConfig for a plugin that does not exist", v1alpha1.SchedulerProfileSpec{
			PluginConfig: append(fitArgs("MostAllocated"), v1alpha1.PluginConfig{Name: "NodeResourceFit", Args: raw(`{"scoringStrategy":{"type":"MostAllocated"}}`)}),
		}, v1alpha1.ReasonUnknownPlugin, "spec.pluginConfig[1].name", `"NodeResourceFit"`),
		Entry("an unknown field in out-of-tree args", v1alpha1.SchedulerProfileSpec{
			Plugins:      scoreOnly(pinNodeName),
			PluginConfig: []v1alpha1.PluginConfig{{Name: pinNodeName, Args: raw(`{"node":"node-1","nodee":"node-2"}`)}},
		}, v1alpha1.ReasonInvalidPluginArgs, "plugin PinNode", "unknown field spec.pluginConfig[0].args.nodee"),
		Entry("out-of-tree args the validator rejects", v1alpha1.SchedulerProfileSpec{
			Plugins:      scoreOnly(pinNodeName),
			PluginConfig: []v1alpha1.PluginConfig{{Name: pinNodeName, Args: raw(`{"node":""}`)}},
		}, v1alpha1.ReasonInvalidPluginArgs, "plugin PinNode", "spec.pluginConfig[0].args.node", "Required value"),
		Entry("a plugin whose factory panics", v1alpha1.SchedulerProfileSpec{Plugins: scoreOnly(boomName)},
			v1alpha1.ReasonBuildFailed, "plugin Boom panicked while being built", "boom at build"),
		Entry("a plugin whose factory fails", v1alpha1.SchedulerProfileSpec{Plugins: scoreOnly(brokenName)},
			v1alpha1.ReasonInvalidPluginArgs, `initializing plugin "Broken"`, "cannot reach its backend"),
	)

	It("runs an out-of-tree plugin as an in-tree one: typed args, status.plugins, placement", func() {
		ns := createNamespace("oot")
		Expect(k8s.Create(suiteCtx, newProfile("oot-pin", v1alpha1.SchedulerProfileSpec{
			Plugins:      scoreOnly(pinNodeName),
			PluginConfig: []v1alpha1.PluginConfig{{Name: pinNodeName, Args: raw(`{"node":"node-3"}`)}},
		}))).To(Succeed())
		sp := expectLive("oot-pin", timeout)
		Expect(sp.Status.Plugins).To(ContainElement(v1alpha1.ExtensionPointPlugins{
			ExtensionPoint: "Score", Plugins: []v1alpha1.EffectivePlugin{{Name: pinNodeName, Weight: 1}},
		}))
		// The pods request nothing: pods other specs left bound may fill
		// node-3's CPU, and then it would not be feasible, whatever its score.
		for i := range 2 {
			Expect(boundNode(createPod(ns, fmt.Sprintf("pinned-%d", i), "oot-pin", requestingNothing), timeout)).To(Equal("node-3"))
		}
		deletePods(ns)
		deleteProfile("oot-pin")
	})

	It("keeps the operator and its other profiles serving when a plugin panics at build", func() {
		ns := createNamespace("boom")
		Expect(k8s.Create(suiteCtx, newProfile("oot-good", v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
		expectLive("oot-good", timeout)

		By("a new generation of a live profile enabling the panicking plugin is refused; the last good one serves")
		Expect(k8s.Create(suiteCtx, newProfile("oot-boom", v1alpha1.SchedulerProfileSpec{}))).To(Succeed())
		expectLive("oot-boom", timeout)
		sp := getProfile("oot-boom")
		sp.Spec.Plugins = scoreOnly(boomName)
		Expect(k8s.Update(suiteCtx, sp)).To(Succeed())
		sp = expectRefused("oot-boom", v1alpha1.ReasonBuildFailed, timeout)
		Expect(readyMessage(sp)).To(ContainSubstring("plugin Boom panicked while being built"))
		Expect(readyMessage(sp)).To(ContainSubstring("generation 1 keeps serving"))
		Expect(sp.Status.ActiveGeneration).To(BeEquivalentTo(1))

		By("both schedulerNames still get pods bound")
		Expect(boundNode(createPod(ns, "after-boom-good", "oot-good"), timeout)).NotTo(BeEmpty())
		Expect(boundNode(createPod(ns, "after-boom-last-good", "oot-boom"), timeout)).NotTo(BeEmpty())
		deletePods(ns)
		deleteProfile("oot-boom")
		deleteProfile("oot-good")
	})

	It("accepts args for a plugin the profile does not run, and says so", func() {
		spec := v1alpha1.SchedulerProfileSpec{
			Plugins: &v1alpha1.Plugins{MultiPoint: v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "PodTopologySpread"}}}},
			PluginConfig: []v1alpha1.PluginConfig{
				{Name: "PodTopologySpread", Args: raw(`{"defaultingType":"List"}`)},
				{Name: pinNodeName, Args: raw(`{"node":"node-1"}`)},
			},
		}
		By("the webhook admits it with warnings")
		wk8s, warnings := warningClient()
		Eventually(func() error {
			return wk8s.Create(suiteCtx, admitted(newProfile("oot-unused", spec)))
		}).WithTimeout(timeout).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(warnings.get()).To(ContainElements(
			`spec.pluginConfig[0] configures plugin "PodTopologySpread", which this profile does not run`,
			`spec.pluginConfig[1] configures plugin "PinNode", which this profile does not run`,
		))

		By("status and a Warning event say so")
		sp := expectLive("oot-unused", timeout)
		ready := meta.FindStatusCondition(sp.Status.Conditions, v1alpha1.ConditionReady)
		Expect(ready.Message).To(ContainSubstring(`spec.pluginConfig[0] configures plugin "PodTopologySpread", which this profile does not run`))
		Expect(ready.Message).To(ContainSubstring(`spec.pluginConfig[1] configures plugin "PinNode", which this profile does not run`))
		Eventually(func() []string { return eventReasons("oot-unused") }).WithTimeout(timeout).
			Should(ContainElements(v1alpha1.EventActivated, v1alpha1.EventUnusedPluginConfig))
		deleteProfile("oot-unused")
	})
})
