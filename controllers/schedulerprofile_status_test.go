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
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func cond(st []metav1.Condition, typ string) metav1.Condition {
	c := meta.FindStatusCondition(st, typ)
	if c == nil {
		return metav1.Condition{}
	}
	return *c
}

func TestProfileStatus(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	plugins := &config.Plugins{
		QueueSort: config.PluginSet{Enabled: []config.Plugin{{Name: "PrioritySort"}}},
		Score:     config.PluginSet{Enabled: []config.Plugin{{Name: "NodeResourcesFit", Weight: 1}, {Name: "ImageLocality", Weight: 3}}},
		Bind:      config.PluginSet{Enabled: []config.Plugin{{Name: "DefaultBinder"}}},
	}
	spec1 := &v1alpha1.SchedulerProfileSpec{SchedulerName: ptr.To("bin-packing"), Extenders: []string{"e"}}
	live := profileStatus(v1alpha1.SchedulerProfileStatus{}, profileOutcome{
		Generation: 1, SchedulerName: "bin-packing", ActiveGeneration: 1, Plugins: plugins,
		Extenders:  []v1alpha1.ResolvedExtender{{Name: "e", URLPrefix: "http://e", Generation: 2}},
		ActiveSpec: spec1,
	}, t0)

	tests := []struct {
		name  string
		prev  v1alpha1.SchedulerProfileStatus
		o     profileOutcome
		check func(g Gomega, st v1alpha1.SchedulerProfileStatus)
	}{{
		name: "live generation: Ready Active, not stalled, plugins per extension point",
		prev: v1alpha1.SchedulerProfileStatus{},
		o:    profileOutcome{Generation: 1, SchedulerName: "bin-packing", ActiveGeneration: 1, Plugins: plugins, ActiveSpec: spec1},
		check: func(g Gomega, st v1alpha1.SchedulerProfileStatus) {
			g.Expect(st.ObservedGeneration).To(BeEquivalentTo(1))
			g.Expect(st.ActiveSpec).To(Equal(spec1), "the spec that serves is kept for a restart")
			g.Expect(st.ActiveGeneration).To(BeEquivalentTo(1))
			g.Expect(st.SchedulerName).To(Equal("bin-packing"))
			g.Expect(cond(st.Conditions, v1alpha1.ConditionReady).Status).To(Equal(metav1.ConditionTrue))
			g.Expect(cond(st.Conditions, v1alpha1.ConditionReady).Reason).To(Equal(v1alpha1.ReasonActive))
			g.Expect(cond(st.Conditions, v1alpha1.ConditionStalled).Status).To(Equal(metav1.ConditionFalse))
			g.Expect(cond(st.Conditions, v1alpha1.ConditionReconciling).Status).To(Equal(metav1.ConditionFalse))
			g.Expect(st.Plugins).To(Equal([]v1alpha1.ExtensionPointPlugins{
				{ExtensionPoint: "QueueSort", Plugins: []v1alpha1.EffectivePlugin{{Name: "PrioritySort"}}},
				{ExtensionPoint: "Score", Plugins: []v1alpha1.EffectivePlugin{{Name: "NodeResourcesFit", Weight: 1}, {Name: "ImageLocality", Weight: 3}}},
				{ExtensionPoint: "Bind", Plugins: []v1alpha1.EffectivePlugin{{Name: "DefaultBinder"}}},
			}))
		},
	}, {
		name: "refused generation while an older one serves: Stalled, Ready False, message names both",
		prev: live,
		o: profileOutcome{Generation: 2, SchedulerName: "bin-packing", ActiveGeneration: 1, Plugins: plugins,
			Extenders: live.Extenders, ActiveSpec: spec1,
			Refusal: refuse(v1alpha1.ReasonUnknownPlugin, `FilterPlugin "Nope" does not exist`)},
		check: func(g Gomega, st v1alpha1.SchedulerProfileStatus) {
			g.Expect(st.ObservedGeneration).To(BeEquivalentTo(2))
			g.Expect(st.ActiveGeneration).To(BeEquivalentTo(1))
			ready := cond(st.Conditions, v1alpha1.ConditionReady)
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(v1alpha1.ReasonUnknownPlugin))
			g.Expect(ready.Message).To(ContainSubstring(`"Nope"`))
			g.Expect(ready.Message).To(ContainSubstring("generation 1 keeps serving"))
			g.Expect(ready.ObservedGeneration).To(BeEquivalentTo(2))
			g.Expect(ready.LastTransitionTime).To(Equal(t1))
			stalled := cond(st.Conditions, v1alpha1.ConditionStalled)
			g.Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(stalled.Reason).To(Equal(v1alpha1.ReasonUnknownPlugin))
			g.Expect(st.Plugins).To(Equal(live.Plugins), "status keeps describing the serving framework")
			g.Expect(st.Extenders).To(Equal(live.Extenders))
			g.Expect(st.ActiveSpec).To(Equal(spec1), "the last known good spec is kept, not the refused one")
		},
	}, {
		name: "refused with nothing serving",
		o:    profileOutcome{Generation: 3, SchedulerName: "x", Refusal: nameConflictRefusal("x", "older")},
		prev: live,
		check: func(g Gomega, st v1alpha1.SchedulerProfileStatus) {
			g.Expect(st.ActiveGeneration).To(BeZero())
			g.Expect(st.Plugins).To(BeNil())
			g.Expect(st.Extenders).To(BeNil())
			g.Expect(st.ActiveSpec).To(BeNil(), "no spec serves")
			ready := cond(st.Conditions, v1alpha1.ConditionReady)
			g.Expect(ready.Reason).To(Equal(v1alpha1.ReasonSchedulerNameConflict))
			g.Expect(ready.Message).To(ContainSubstring(`"older"`))
			g.Expect(ready.Message).To(ContainSubstring("no generation of this profile serves pods"))
		},
	}, {
		name: "same outcome again keeps transition times",
		prev: live,
		o:    profileOutcome{Generation: 1, SchedulerName: "bin-packing", ActiveGeneration: 1, Plugins: plugins, Extenders: live.Extenders, ActiveSpec: spec1},
		check: func(g Gomega, st v1alpha1.SchedulerProfileStatus) {
			g.Expect(st).To(Equal(live))
		},
	}, {
		name: "reconciling mark is cleared by the outcome",
		prev: markReconciling(live, 2, t1),
		o:    profileOutcome{Generation: 2, SchedulerName: "bin-packing", ActiveGeneration: 2, Plugins: plugins},
		check: func(g Gomega, st v1alpha1.SchedulerProfileStatus) {
			g.Expect(cond(st.Conditions, v1alpha1.ConditionReconciling).Status).To(Equal(metav1.ConditionFalse))
			g.Expect(st.Extenders).To(BeNil())
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			prev := tt.prev.DeepCopy()
			st := profileStatus(tt.prev, tt.o, t1)
			g.Expect(tt.prev).To(Equal(*prev), "the input is not modified")
			tt.check(g, st)
		})
	}
}

func TestMarkReconciling(t *testing.T) {
	g := NewWithT(t)
	now := metav1.Now()
	st := markReconciling(v1alpha1.SchedulerProfileStatus{ObservedGeneration: 1}, 2, now)
	c := cond(st.Conditions, v1alpha1.ConditionReconciling)
	g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(c.Reason).To(Equal(v1alpha1.ReasonApplying))
	g.Expect(c.ObservedGeneration).To(BeEquivalentTo(2))
	g.Expect(st.ObservedGeneration).To(BeEquivalentTo(1), "observedGeneration moves only when the outcome is decided")
}

func TestRefusalChanged(t *testing.T) {
	now := metav1.Now()
	refused := profileStatus(v1alpha1.SchedulerProfileStatus{}, profileOutcome{Generation: 1, SchedulerName: "a", Refusal: refuse(v1alpha1.ReasonInvalidSpec, "x")}, now)
	live := profileStatus(v1alpha1.SchedulerProfileStatus{}, profileOutcome{Generation: 1, SchedulerName: "a", ActiveGeneration: 1}, now)
	refusedAgain := profileStatus(refused, profileOutcome{Generation: 2, SchedulerName: "a", Refusal: refuse(v1alpha1.ReasonInvalidSpec, "x")}, now)
	tests := []struct {
		name          string
		before, after v1alpha1.SchedulerProfileStatus
		want          bool
	}{
		{"first refusal", v1alpha1.SchedulerProfileStatus{}, refused, true},
		{"live to refused", live, refused, true},
		{"same refusal again", refused, refused, false},
		{"refusal of a new generation", refused, refusedAgain, true},
		{"refused to live", refused, live, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(refusalChanged(tt.before, tt.after)).To(Equal(tt.want))
		})
	}
}

func TestExtenderStatus(t *testing.T) {
	now := metav1.Now()
	tests := []struct {
		name     string
		refusal  *Refusal
		profiles []string
		ready    metav1.ConditionStatus
		stalled  metav1.ConditionStatus
		reason   string
	}{
		{"builds", nil, []string{"b", "a"}, metav1.ConditionTrue, metav1.ConditionFalse, v1alpha1.ReasonActive},
		{"secret missing", refuse(v1alpha1.ReasonSecretNotFound, "Secret ns/s not found"), nil, metav1.ConditionFalse, metav1.ConditionTrue, v1alpha1.ReasonSecretNotFound},
		{"bad TLS", refuse(v1alpha1.ReasonInvalidTLS, "bad PEM"), []string{"a"}, metav1.ConditionFalse, metav1.ConditionTrue, v1alpha1.ReasonInvalidTLS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			st := extenderStatus(v1alpha1.ExtenderConfigStatus{}, 4, "http://e", tt.refusal, tt.profiles, now)
			g.Expect(st.ObservedGeneration).To(BeEquivalentTo(4))
			g.Expect(cond(st.Conditions, v1alpha1.ConditionReady).Status).To(Equal(tt.ready))
			g.Expect(cond(st.Conditions, v1alpha1.ConditionReady).Reason).To(Equal(tt.reason))
			g.Expect(cond(st.Conditions, v1alpha1.ConditionStalled).Status).To(Equal(tt.stalled))
			if len(tt.profiles) > 0 {
				g.Expect(st.Profiles).To(Equal([]string{"a", "b"}[:len(tt.profiles)]))
			} else {
				g.Expect(st.Profiles).To(BeNil())
			}
		})
	}
}

func TestRefusalReported(t *testing.T) {
	now := metav1.Now()
	refused := profileStatus(v1alpha1.SchedulerProfileStatus{}, profileOutcome{Generation: 2, SchedulerName: "a", ActiveGeneration: 1,
		Refusal: refuse(v1alpha1.ReasonInvalidSpec, "x")}, now)
	live := profileStatus(v1alpha1.SchedulerProfileStatus{}, profileOutcome{Generation: 2, SchedulerName: "a", ActiveGeneration: 2}, now)
	tests := []struct {
		name       string
		st         v1alpha1.SchedulerProfileStatus
		generation int64
		reason     string
		want       bool
	}{
		{"stored status says it: counted before a restart", refused, 2, v1alpha1.ReasonInvalidSpec, true},
		{"another reason", refused, 2, v1alpha1.ReasonUnknownPlugin, false},
		{"a newer generation", refused, 3, v1alpha1.ReasonInvalidSpec, false},
		{"live", live, 2, v1alpha1.ReasonInvalidSpec, false},
		{"no status yet", v1alpha1.SchedulerProfileStatus{}, 1, v1alpha1.ReasonInvalidSpec, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(refusalReported(tt.st, tt.generation, tt.reason)).To(Equal(tt.want))
		})
	}
}
