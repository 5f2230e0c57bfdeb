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

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

func TestFailedBuildsAreRemembered(t *testing.T) {
	g := NewWithT(t)
	m := newRefusalMemory()
	unknown := refuse(v1alpha1.ReasonUnknownPlugin, `FilterPlugin "X" does not exist`)
	m.noteBuildRefused("p", "fp1", unknown)
	g.Expect(m.buildRefused("p", "fp1")).To(Equal(unknown))
	g.Expect(m.buildRefused("p", "fp2")).To(BeNil(), "new inputs are built again")

	m.noteBuildRefused("q", "fp1", refuse(v1alpha1.ReasonBuildFailed, "scheduler is stopped"))
	g.Expect(m.buildRefused("q", "fp1")).To(BeNil(), "a failure that may pass is tried again")

	m.live("p")
	g.Expect(m.buildRefused("p", "fp1")).To(BeNil())
}

func TestRefusalsAreCountedOnce(t *testing.T) {
	g := NewWithT(t)
	m := newRefusalMemory()
	steps := []struct {
		object     string
		generation int64
		reason     string
		want       bool
	}{
		{"a", 2, v1alpha1.ReasonInvalidPluginArgs, true},
		{"a", 2, v1alpha1.ReasonInvalidPluginArgs, false}, // reconciled again
		{"a", 2, v1alpha1.ReasonExtenderNotFound, true},   // same generation, new reason
		{"a", 2, v1alpha1.ReasonInvalidPluginArgs, false}, // and back: already counted
		{"b", 2, v1alpha1.ReasonInvalidPluginArgs, true},  // another object
		{"a", 3, v1alpha1.ReasonInvalidPluginArgs, true},  // a new generation
		{"a", 3, v1alpha1.ReasonInvalidPluginArgs, false},
	}
	for i, st := range steps {
		g.Expect(m.count(st.object, st.generation, st.reason)).To(Equal(st.want), "step %d", i)
	}
	m.forget("a")
	g.Expect(m.count("a", 3, v1alpha1.ReasonInvalidPluginArgs)).To(BeTrue(), "a profile deleted and created again counts again")
}

func TestRefusalsAreAnnouncedOnce(t *testing.T) {
	g := NewWithT(t)
	m := newRefusalMemory()
	args := refuse(v1alpha1.ReasonInvalidPluginArgs, "spec.pluginConfig[0].args.foo: unknown field")
	g.Expect(m.announce("a", 2, args)).To(BeTrue())
	g.Expect(m.announce("a", 2, args)).To(BeFalse(), "reconciled again before the cache saw the status")
	g.Expect(m.announce("b", 2, args)).To(BeTrue(), "another object")
	g.Expect(m.announce("a", 3, args)).To(BeTrue(), "a new generation")
	other := refuse(v1alpha1.ReasonInvalidPluginArgs, "spec.pluginConfig[0].args.bar: unknown field")
	g.Expect(m.announce("a", 3, other)).To(BeTrue(), "same reason, another message")
	g.Expect(m.announce("a", 3, args)).To(BeTrue(), "only the last refusal is remembered")

	m.live("a")
	g.Expect(m.announce("a", 3, args)).To(BeTrue(), "refused again after it was live")
	m.forget("a")
	g.Expect(m.announce("a", 3, args)).To(BeTrue(), "a profile deleted and created again is announced again")
}

func TestLiveKeepsCounts(t *testing.T) {
	g := NewWithT(t)
	m := newRefusalMemory()
	unknown := refuse(v1alpha1.ReasonUnknownPlugin, `FilterPlugin "X" does not exist`)
	g.Expect(m.count("a", 2, unknown.Reason)).To(BeTrue())
	m.noteBuildRefused("a", "fp", unknown)

	m.live("a")
	g.Expect(m.buildRefused("a", "fp")).To(BeNil(), "a live generation drops the failed build")
	g.Expect(m.count("a", 2, unknown.Reason)).To(BeFalse(), "the generation stays counted")

	m.forget("a")
	g.Expect(m.buildRefused("a", "fp")).To(BeNil())
	g.Expect(m.count("a", 2, unknown.Reason)).To(BeTrue())
}
