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

package chart

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// profileHealthScript is config/argocd/schedulerprofile-health.lua, the
// SchedulerProfile health check the chart README and the argocd-cm snippet
// beside it carry.
func profileHealthScript(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "config", "argocd", "schedulerprofile-health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestArgoCDHealthScriptIsOneScript(t *testing.T) {
	g := NewWithT(t)
	script := profileHealthScript(t)

	data, err := os.ReadFile(filepath.Join(repoRoot(t), "config", "argocd", "argocd-cm.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	var cm corev1.ConfigMap
	g.Expect(yaml.UnmarshalStrict(data, &cm)).To(Succeed())
	g.Expect(cm.Kind).To(Equal("ConfigMap"))
	g.Expect(cm.Name).To(Equal("argocd-cm"))
	g.Expect(cm.Data).To(HaveKeyWithValue(healthKeyPrefix+"SchedulerProfile", script),
		"config/argocd/argocd-cm.yaml carries schedulerprofile-health.lua as is")

	g.Expect(argoHealthScripts(t)).To(HaveKeyWithValue("SchedulerProfile", script),
		"the chart README's argocd-cm carries config/argocd/schedulerprofile-health.lua as is")
}

// rolloutHealthCases are the conditions and status.rollout the controller
// writes through a rollout (api/v1alpha1: reasons RollingOut,
// RolloutPaused, RolledBack, RolloutAborted).
var rolloutHealthCases = []struct {
	name       string
	generation int64
	observed   int64
	conditions []metav1.Condition
	rollout    *v1alpha1.RolloutStatus
	status     string
	message    string
}{
	{
		name: "fresh object, no status", generation: 1,
		status: "Progressing", message: "Waiting for generation 1 to be reconciled",
	},
	{
		name: "rollout in progress, the previous generation ready", generation: 4, observed: 4,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionTrue, 4, v1alpha1.ReasonRollingOut, "generation 3 serves; generation 4 schedules 10% of the pods"),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionTrue, 4, v1alpha1.ReasonRollingOut, "rolling out generation 4: step 2/3 canary 10%"),
			cond(v1alpha1.ConditionStalled, metav1.ConditionFalse, 4, v1alpha1.ReasonRollingOut, ""),
		},
		rollout: &v1alpha1.RolloutStatus{Generation: 4, ServingGeneration: 3, Phase: v1alpha1.RolloutProgressing, Step: 2, Steps: 3,
			StepKind: v1alpha1.StepCanary, Percent: 10, Summary: "canary 10% 3m/10m"},
		status: "Progressing", message: "rolling out generation 4: step 2/3 canary 10%",
	},
	{
		name: "rollout in progress, observedGeneration not moved yet", generation: 4, observed: 3,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionTrue, 3, v1alpha1.ReasonActive, "generation 3 serves pods"),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionTrue, 4, v1alpha1.ReasonRollingOut, "rolling out generation 4: step 1/3 shadow"),
		},
		rollout: &v1alpha1.RolloutStatus{Generation: 4, ServingGeneration: 3, Phase: v1alpha1.RolloutProgressing, Step: 1, Steps: 3,
			StepKind: v1alpha1.StepShadow, Summary: "shadow 1m/5m"},
		status: "Progressing", message: "rolling out generation 4: step 1/3 shadow",
	},
	{
		name: "rollout paused", generation: 4, observed: 4,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionTrue, 4, v1alpha1.ReasonRolloutPaused, "generation 3 serves; generation 4 schedules 10% of the pods"),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionTrue, 4, v1alpha1.ReasonRolloutPaused, "rollout of generation 4 paused at step 2/3 canary 10%"),
		},
		rollout: &v1alpha1.RolloutStatus{Generation: 4, ServingGeneration: 3, Phase: v1alpha1.RolloutPaused, Step: 2, Steps: 3,
			StepKind: v1alpha1.StepCanary, Percent: 10},
		status: "Progressing", message: "rollout of generation 4 paused at step 2/3 canary 10%",
	},
	{
		name: "promoted", generation: 4, observed: 4,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionTrue, 4, v1alpha1.ReasonActive, `generation 4 serves pods with schedulerName "careful"`),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionFalse, 4, v1alpha1.ReasonActive, ""),
			cond(v1alpha1.ConditionStalled, metav1.ConditionFalse, 4, v1alpha1.ReasonActive, ""),
		},
		rollout: &v1alpha1.RolloutStatus{Generation: 4, Phase: v1alpha1.RolloutPromoted, Steps: 3, Summary: "promoted"},
		status:  "Healthy", message: `generation 4 serves pods with schedulerName "careful"`,
	},
	{
		name: "rolled back", generation: 4, observed: 4,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, 4, v1alpha1.ReasonRolledBack, rolledBack),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionFalse, 4, v1alpha1.ReasonRolledBack, ""),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 4, v1alpha1.ReasonRolledBack, rolledBack),
		},
		rollout: &v1alpha1.RolloutStatus{Generation: 4, ServingGeneration: 3, Phase: v1alpha1.RolloutRolledBack, Steps: 3,
			Summary: "rolled back", Message: rolledBack},
		status: "Degraded", message: rolledBack,
	},
	{
		name: "aborted", generation: 4, observed: 4,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, 4, v1alpha1.ReasonRolloutAborted, aborted),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 4, v1alpha1.ReasonRolloutAborted, aborted),
		},
		rollout: &v1alpha1.RolloutStatus{Generation: 4, ServingGeneration: 3, Phase: v1alpha1.RolloutAborted, Steps: 3, Summary: "aborted"},
		status:  "Degraded", message: aborted,
	},
	{
		name: "refused: a rollout cannot split a change of QueueSort", generation: 5, observed: 5,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, 5, v1alpha1.ReasonQueueSortChanged, queueSortRefused),
			cond(v1alpha1.ConditionReconciling, metav1.ConditionFalse, 5, v1alpha1.ReasonQueueSortChanged, ""),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 5, v1alpha1.ReasonQueueSortChanged, queueSortRefused),
		},
		rollout: &v1alpha1.RolloutStatus{Generation: 4, Phase: v1alpha1.RolloutPromoted, Steps: 3, Summary: "promoted"},
		status:  "Degraded", message: queueSortRefused,
	},
	{
		name: "a new spec after a rollback, not yet observed", generation: 5, observed: 4,
		conditions: []metav1.Condition{
			cond(v1alpha1.ConditionReady, metav1.ConditionFalse, 4, v1alpha1.ReasonRolledBack, rolledBack),
			cond(v1alpha1.ConditionStalled, metav1.ConditionTrue, 4, v1alpha1.ReasonRolledBack, rolledBack),
		},
		rollout: &v1alpha1.RolloutStatus{Generation: 4, ServingGeneration: 3, Phase: v1alpha1.RolloutRolledBack, Steps: 3},
		status:  "Progressing", message: "Waiting for generation 5 to be reconciled",
	},
}

const (
	rolledBack       = "rollout of generation 4 rolled back at step 2/3 canary 10%: UnschedulableRatio 2.40 exceeds 1.2 (serving 1.00); generation 3 serves (status.activeGeneration)"
	aborted          = "rollout of generation 4 aborted at step 1/3 shadow; generation 3 serves (status.activeGeneration)"
	queueSortRefused = `generation 5 refused: spec.plugins.queueSort: a rollout cannot split a change of QueueSort; generation 4 keeps serving (status.activeGeneration)`
)

// TestArgoCDHealthOfRollouts runs the SchedulerProfile health check on the
// statuses of a rollout, and on the cases of TestArgoCDHealthCheck (the
// same verdicts as before rollouts existed).
func TestArgoCDHealthOfRollouts(t *testing.T) {
	script := profileHealthScript(t)
	check := func(t *testing.T, sp *v1alpha1.SchedulerProfile, status, message string) {
		g := NewWithT(t)
		sp.TypeMeta = metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "SchedulerProfile"}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(sp)
		g.Expect(err).NotTo(HaveOccurred())
		// Round-trip through JSON, as Argo CD sees the live object.
		data, err := yaml.Marshal(u)
		g.Expect(err).NotTo(HaveOccurred())
		var live map[string]any
		g.Expect(yaml.Unmarshal(data, &live)).To(Succeed())
		gotStatus, gotMessage, err := health(script, live)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(gotStatus).To(Equal(status))
		g.Expect(gotMessage).To(Equal(message))
	}
	for _, c := range rolloutHealthCases {
		t.Run(c.name, func(t *testing.T) {
			check(t, &v1alpha1.SchedulerProfile{
				ObjectMeta: metav1.ObjectMeta{Name: "careful", Generation: c.generation},
				Status:     v1alpha1.SchedulerProfileStatus{ObservedGeneration: c.observed, Conditions: c.conditions, Rollout: c.rollout},
			}, c.status, c.message)
		})
	}
	for _, c := range healthCases {
		t.Run("without rollout/"+c.name, func(t *testing.T) {
			check(t, &v1alpha1.SchedulerProfile{
				ObjectMeta: metav1.ObjectMeta{Name: "bin-packing", Generation: c.generation},
				Status:     v1alpha1.SchedulerProfileStatus{ObservedGeneration: c.observed, Conditions: c.conditions},
			}, c.status, c.message)
		})
	}
}
