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

// Table tests for the pod-group cycle ported from upstream
// pkg/scheduler/schedule_one_podgroup.go, with upstream's cases
// (schedule_one_podgroup_test.go: TestValidatePodGroup, its leaf-group
// cases, TestSkipPodGroupPodSchedule and TestUpdatePodGroupCondition;
// composite pod groups are not supported here).

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2/ktesting"
	schedulingapi "k8s.io/kubernetes/pkg/apis/scheduling"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// profileNames are the schedulerNames a test scheduler serves.
type profileNames map[string]struct{}

func TestValidatePodGroup(t *testing.T) {
	tests := []struct {
		name          string
		podGroup      *schedulingv1beta1.PodGroup
		scheduledPods []*v1.Pod
		pods          []*v1.Pod
		profiles      profileNames
		// wantErr is the error's message; empty: none.
		wantErr                        string
		enablePodGroupPreemptionPolicy bool
	}{
		{
			name:     "failure when no pods to evaluate",
			podGroup: st.MakePodGroup().Name("pg").Obj(),
			pods:     []*v1.Pod{},
			profiles: profileNames{
				"sched1": {},
			},
			wantErr: "profile not found for scheduler name \"\"",
		},
		{
			name:     "success for same scheduler name",
			podGroup: st.MakePodGroup().Name("pg").Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").SchedulerName("sched1").Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").SchedulerName("sched1").Obj(),
			},
			profiles: profileNames{
				"sched1": {},
			},
		},
		{
			name:     "failure for different scheduler names",
			podGroup: st.MakePodGroup().Name("pg").Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").SchedulerName("sched1").Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").SchedulerName("sched2").Obj(),
			},
			profiles: profileNames{
				"sched1": {},
				"sched2": {},
			},
			wantErr: "all pods in a single pod group should have the same .spec.schedulerName set, got: \"sched2\" and \"sched1\"",
		},
		{
			name:     "failure when profile not found",
			podGroup: st.MakePodGroup().Name("pg").Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").SchedulerName("sched1").Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").SchedulerName("sched1").Obj(),
			},
			profiles: profileNames{
				"other": {},
			},
			wantErr: "profile not found for scheduler name \"sched1\"",
		},
		{
			name:     "success when priorities match",
			podGroup: st.MakePodGroup().Name("pg").Priority(10).Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").Priority(10).Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").Priority(10).Obj(),
			},
		},
		{
			name:     "failure when different priorities across pods",
			podGroup: st.MakePodGroup().Name("pg").Priority(10).Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").Priority(9).Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").Priority(10).Obj(),
			},
			wantErr: "all pods in a single pod group should have the same priority as the pod group's priority, got 9 and 10",
		},
		{
			name:     "failure when different priorities across pods and pod group",
			podGroup: st.MakePodGroup().Name("pg").Priority(9).Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").Priority(10).Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").Priority(10).Obj(),
			},
			wantErr: "all pods in a single pod group should have the same priority as the pod group's priority, got 10 and 9",
		},
		{
			name:     "success when new pods match scheduled pods scheduler name and priority",
			podGroup: st.MakePodGroup().Name("pg").Priority(10).Obj(),
			scheduledPods: []*v1.Pod{
				st.MakePod().Name("p2").UID("p2").PodGroupName("pg").Priority(10).SchedulerName("sched1").Node("node1").Obj(),
			},
			pods: []*v1.Pod{
				st.MakePod().Name("p1").UID("p1").PodGroupName("pg").Priority(10).SchedulerName("sched1").Obj(),
			},
			profiles: profileNames{
				"sched1": {},
			},
		},
		{
			name:     "failure when new pod has different scheduler name than scheduled pod",
			podGroup: st.MakePodGroup().Name("pg").Priority(10).Obj(),
			scheduledPods: []*v1.Pod{
				st.MakePod().Name("p2").UID("p2").PodGroupName("pg").Priority(10).SchedulerName("sched2").Node("node1").Obj(),
			},
			pods: []*v1.Pod{
				st.MakePod().Name("p1").UID("p1").PodGroupName("pg").Priority(10).SchedulerName("sched1").Obj(),
			},
			profiles: profileNames{
				"sched1": {},
			},
			wantErr: "all pods in a single pod group should have the same .spec.schedulerName set, got: \"sched2\" and \"sched1\"",
		},
		{
			name:     "failure when new pod has different priority than scheduled pod",
			podGroup: st.MakePodGroup().Name("pg").Priority(10).Obj(),
			scheduledPods: []*v1.Pod{
				st.MakePod().Name("p2").UID("p2").PodGroupName("pg").Priority(9).SchedulerName("sched1").Node("node1").Obj(),
			},
			pods: []*v1.Pod{
				st.MakePod().Name("p1").UID("p1").PodGroupName("pg").Priority(10).SchedulerName("sched1").Obj(),
			},
			profiles: profileNames{
				"sched1": {},
			},
			wantErr: "all pods in a single pod group should have the same priority as the pod group's priority, got 9 and 10",
		},
		{
			name:     "success when preemption policies match",
			podGroup: st.MakePodGroup().Name("pg").PreemptionPolicy(schedulingv1beta1.PreemptNever).Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").PreemptionPolicy(v1.PreemptNever).Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").PreemptionPolicy(v1.PreemptNever).Obj(),
			},
			enablePodGroupPreemptionPolicy: true,
		},
		{
			name:     "failure when different preemption policies across pods",
			podGroup: st.MakePodGroup().Name("pg").PreemptionPolicy(schedulingv1beta1.PreemptNever).Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").PreemptionPolicy(v1.PreemptNever).Obj(),
			},
			enablePodGroupPreemptionPolicy: true,
			wantErr:                        "all pods in a single pod group should have the same preemption policy as the pod group's preemption policy, got PreemptLowerPriority and Never",
		},
		{
			name:     "failure when different preemption policies across pods and pod group",
			podGroup: st.MakePodGroup().Name("pg").PreemptionPolicy(schedulingv1beta1.PreemptNever).Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
			},
			enablePodGroupPreemptionPolicy: true,
			wantErr:                        "all pods in a single pod group should have the same preemption policy as the pod group's preemption policy, got PreemptLowerPriority and Never",
		},
		{
			name:     "success when preemption policies between pods and podgroup do not match but PodGroupPreemptionPolicy is disabled",
			podGroup: st.MakePodGroup().Name("pg").PreemptionPolicy(schedulingv1beta1.PreemptNever).Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
			},
			enablePodGroupPreemptionPolicy: false,
		},
		{
			name:     "failure when preemption policies do not match across pods and PodGroupPreemptionPolicy is disabled",
			podGroup: st.MakePodGroup().Name("pg").PreemptionPolicy(schedulingv1beta1.PreemptNever).Obj(),
			pods: []*v1.Pod{
				st.MakePod().Name("p1").PodGroupName("pg").PreemptionPolicy(v1.PreemptLowerPriority).Obj(),
				st.MakePod().Name("p2").PodGroupName("pg").PreemptionPolicy(v1.PreemptNever).Obj(),
			},
			enablePodGroupPreemptionPolicy: false,
			wantErr:                        "all pods in a single pod group should have the same preemption policy, got Never and PreemptLowerPriority",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
				features.GenericWorkload:          true,
				features.PodGroupPreemptionPolicy: tt.enablePodGroupPreemptionPolicy,
			})
			snapshot := internalcache.NewTestSnapshotWithPodGroups(tt.scheduledPods, nil, []*schedulingv1beta1.PodGroup{tt.podGroup})
			podGroupInfo := &framework.QueuedPodGroupInfo{
				PodGroupInfo: &framework.PodGroupInfo{
					Name:      tt.podGroup.Name,
					Namespace: tt.podGroup.Namespace,
					Type:      fwk.PodGroupKeyType,
					PodGroup:  tt.podGroup,
				},
				QueuedPodInfos: make(map[fwk.EntityKey][]*framework.QueuedPodInfo),
			}
			for _, pod := range tt.pods {
				podGroupInfo.UnscheduledPods = append(podGroupInfo.UnscheduledPods, pod)
				key := fwk.PodGroupKey(tt.podGroup.Namespace, tt.podGroup.Name)
				podGroupInfo.QueuedPodInfos[key] = append(podGroupInfo.QueuedPodInfos[key],
					&framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: pod}})
			}
			profiles := tt.profiles
			if profiles == nil {
				profiles = profileNames{"": {}}
			}
			live := profileMap{}
			for name := range profiles {
				live[name] = &liveProfile{}
			}
			sched := &profileLoop{gens: newGenerations(), snapshot: snapshot}
			sched.gens.profiles.Store(&live)
			_, err := sched.validatePodGroup(podGroupInfo)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Expected no error, but got: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("Expected error %q, but got: %v", tt.wantErr, err)
			}
		})
	}
}

func TestUpdatePodGroupCondition(t *testing.T) {
	tests := []struct {
		name             string
		existingPodGroup *schedulingv1beta1.PodGroup
		namespace        string
		podGroupName     string
		condition        *metav1.Condition
		expectCondition  *metav1.Condition
		// expectLastTransitionTimeUnchanged, when true, verifies that LastTransitionTime
		// is preserved from the existing condition.
		expectLastTransitionTimeUnchanged bool
	}{
		{
			name: "set Scheduled condition to True on empty status",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg1", Namespace: "ns1"},
			},
			namespace:    "ns1",
			podGroupName: "pg1",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "SomeReason",
				Message: "All required pods have been successfully scheduled",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "SomeReason",
				Message: "All required pods have been successfully scheduled",
			},
		},
		{
			name: "set Scheduled condition to False with Unschedulable reason",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg2", Namespace: "ns1"},
			},
			namespace:    "ns1",
			podGroupName: "pg2",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonUnschedulable,
				Message: "0/3 nodes are available: insufficient cpu",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonUnschedulable,
				Message: "0/3 nodes are available: insufficient cpu",
			},
		},
		{
			name: "set Scheduled condition to False with SchedulerError reason",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg3", Namespace: "ns1"},
			},
			namespace:    "ns1",
			podGroupName: "pg3",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonSchedulerError,
				Message: "Internal scheduling error",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonSchedulerError,
				Message: "Internal scheduling error",
			},
		},
		{
			name: "transition from Unschedulable to Scheduled",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg4", Namespace: "ns1"},
				Status: schedulingv1beta1.PodGroupStatus{
					Conditions: []metav1.Condition{
						{
							Type:               schedulingapi.PodGroupInitiallyScheduled,
							Status:             metav1.ConditionFalse,
							Reason:             schedulingapi.PodGroupReasonUnschedulable,
							Message:            "previously unschedulable",
							LastTransitionTime: metav1.Now(),
						},
					},
				},
			},
			namespace:    "ns1",
			podGroupName: "pg4",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "Scheduled",
				Message: "All required pods have been successfully scheduled",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "Scheduled",
				Message: "All required pods have been successfully scheduled",
			},
		},
		{
			name: "transition from SchedulerError to Scheduled",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg-se-to-true", Namespace: "ns1"},
				Status: schedulingv1beta1.PodGroupStatus{
					Conditions: []metav1.Condition{
						{
							Type:               schedulingapi.PodGroupInitiallyScheduled,
							Status:             metav1.ConditionFalse,
							Reason:             schedulingapi.PodGroupReasonSchedulerError,
							Message:            "internal error",
							LastTransitionTime: metav1.Now(),
						},
					},
				},
			},
			namespace:    "ns1",
			podGroupName: "pg-se-to-true",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "Scheduled",
				Message: "All required pods have been successfully scheduled",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "Scheduled",
				Message: "All required pods have been successfully scheduled",
			},
		},
		{
			name: "do not regress Scheduled to Unschedulable",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg-true-to-unsched", Namespace: "ns1"},
				Status: schedulingv1beta1.PodGroupStatus{
					Conditions: []metav1.Condition{
						{
							Type:               schedulingapi.PodGroupInitiallyScheduled,
							Status:             metav1.ConditionTrue,
							Reason:             "Scheduled",
							Message:            "All pods scheduled",
							LastTransitionTime: metav1.Now(),
						},
					},
				},
			},
			namespace:    "ns1",
			podGroupName: "pg-true-to-unsched",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonUnschedulable,
				Message: "extra pods could not be placed",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "Scheduled",
				Message: "All pods scheduled",
			},
			expectLastTransitionTimeUnchanged: true,
		},
		{
			name: "do not regress Scheduled to SchedulerError",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg-true-to-se", Namespace: "ns1"},
				Status: schedulingv1beta1.PodGroupStatus{
					Conditions: []metav1.Condition{
						{
							Type:               schedulingapi.PodGroupInitiallyScheduled,
							Status:             metav1.ConditionTrue,
							Reason:             "Scheduled",
							Message:            "All pods scheduled",
							LastTransitionTime: metav1.Now(),
						},
					},
				},
			},
			namespace:    "ns1",
			podGroupName: "pg-true-to-se",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonSchedulerError,
				Message: "internal error",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "Scheduled",
				Message: "All pods scheduled",
			},
			expectLastTransitionTimeUnchanged: true,
		},
		{
			name: "transition from Unschedulable to SchedulerError preserves LastTransitionTime",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg-unsched-to-se", Namespace: "ns1"},
				Status: schedulingv1beta1.PodGroupStatus{
					Conditions: []metav1.Condition{
						{
							Type:               schedulingapi.PodGroupInitiallyScheduled,
							Status:             metav1.ConditionFalse,
							Reason:             schedulingapi.PodGroupReasonUnschedulable,
							Message:            "not enough resources",
							LastTransitionTime: metav1.Now(),
						},
					},
				},
			},
			namespace:    "ns1",
			podGroupName: "pg-unsched-to-se",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonSchedulerError,
				Message: "internal error",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonSchedulerError,
				Message: "internal error",
			},
			expectLastTransitionTimeUnchanged: true,
		},
		{
			name: "transition from SchedulerError to Unschedulable preserves LastTransitionTime",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg-se-to-unsched", Namespace: "ns1"},
				Status: schedulingv1beta1.PodGroupStatus{
					Conditions: []metav1.Condition{
						{
							Type:               schedulingapi.PodGroupInitiallyScheduled,
							Status:             metav1.ConditionFalse,
							Reason:             schedulingapi.PodGroupReasonSchedulerError,
							Message:            "internal error",
							LastTransitionTime: metav1.Now(),
						},
					},
				},
			},
			namespace:    "ns1",
			podGroupName: "pg-se-to-unsched",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonUnschedulable,
				Message: "not enough resources",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionFalse,
				Reason:  schedulingapi.PodGroupReasonUnschedulable,
				Message: "not enough resources",
			},
			expectLastTransitionTimeUnchanged: true,
		},
		{
			name: "Scheduled to Scheduled preserves LastTransitionTime",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg-true-to-true", Namespace: "ns1"},
				Status: schedulingv1beta1.PodGroupStatus{
					Conditions: []metav1.Condition{
						{
							Type:               schedulingapi.PodGroupInitiallyScheduled,
							Status:             metav1.ConditionTrue,
							Reason:             "Scheduled",
							Message:            "All pods scheduled",
							LastTransitionTime: metav1.Now(),
						},
					},
				},
			},
			namespace:    "ns1",
			podGroupName: "pg-true-to-true",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "Scheduled",
				Message: "New condition message",
			},
			expectCondition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "Scheduled",
				Message: "New condition message",
			},
			expectLastTransitionTimeUnchanged: true,
		},
		{
			name: "ObservedGeneration is set from PodGroup generation",
			existingPodGroup: &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: "pg-gen", Namespace: "ns1", Generation: 7},
			},
			namespace:    "ns1",
			podGroupName: "pg-gen",
			condition: &metav1.Condition{
				Type:    schedulingapi.PodGroupInitiallyScheduled,
				Status:  metav1.ConditionTrue,
				Reason:  "Scheduled",
				Message: "All pods scheduled",
			},
			expectCondition: &metav1.Condition{
				Type:               schedulingapi.PodGroupInitiallyScheduled,
				Status:             metav1.ConditionTrue,
				Reason:             "Scheduled",
				Message:            "All pods scheduled",
				ObservedGeneration: 7,
			},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)

			var objects []runtime.Object
			if tt.existingPodGroup != nil {
				objects = append(objects, tt.existingPodGroup)
			}
			client := clientsetfake.NewClientset(objects...)
			informerFactory := informers.NewSharedInformerFactory(client, 0)
			informerFactory.Start(ctx.Done())
			informerFactory.WaitForCacheSync(ctx.Done())
			sched := &profileLoop{binder: &binder{client: client}}

			var existingLTT metav1.Time
			if existing := apimeta.FindStatusCondition(tt.existingPodGroup.Status.Conditions, schedulingapi.PodGroupInitiallyScheduled); existing != nil {
				existingLTT = existing.LastTransitionTime
			}

			podGroupInfo := &framework.QueuedPodGroupInfo{
				PodGroupInfo: &framework.PodGroupInfo{
					Namespace: tt.namespace,
					Name:      tt.podGroupName,
					PodGroup:  tt.existingPodGroup,
					Type:      fwk.PodGroupKeyType,
				},
			}
			sched.updatePodGroupCondition(ctx, podGroupInfo.PodGroupInfo, tt.condition)

			updatedPodGroup, err := client.SchedulingV1beta1().PodGroups(tt.namespace).Get(ctx, tt.podGroupName, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("Failed to get PodGroup: %v", err)
			}

			cond := apimeta.FindStatusCondition(updatedPodGroup.Status.Conditions, tt.expectCondition.Type)
			if diff := cmp.Diff(tt.expectCondition, cond, cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime")); diff != "" {
				t.Errorf("Unexpected PodGroupInitiallyScheduled condition (-want +got):\n%s", diff)
			}

			if tt.expectLastTransitionTimeUnchanged {
				if !cond.LastTransitionTime.Time.Truncate(time.Second).Equal(existingLTT.Time.Truncate(time.Second)) {
					t.Errorf("Expected LastTransitionTime to be preserved as %v, got %v", existingLTT, cond.LastTransitionTime)
				}
			}
		})
	}
}

func TestSkipPodGroupPodSchedule(t *testing.T) {
	p1 := st.MakePod().Name("p1").UID("p1").PodGroupName("pg").Obj()
	p2 := st.MakePod().Name("p2").UID("p2").PodGroupName("pg").Terminating().Obj()
	p3 := st.MakePod().Name("p3").UID("p3").PodGroupName("pg").Obj()

	qInfo1 := &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: p1}}
	qInfo2 := &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: p2}}
	qInfo3 := &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: p3}}

	testPodGroup := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "pg", Namespace: "default"},
	}

	podGroupInfo := &framework.QueuedPodGroupInfo{
		QueuedPodInfos: map[fwk.EntityKey][]*framework.QueuedPodInfo{fwk.MustParseEntityKey("podgroup/default/pg"): {qInfo1, qInfo2, qInfo3}},
		PodGroupInfo: &framework.PodGroupInfo{
			Name:            "pg",
			Namespace:       "default",
			Type:            fwk.PodGroupKeyType,
			UnscheduledPods: []*v1.Pod{p1, p2, p3},
			PodGroup:        testPodGroup,
		},
	}

	logger, ctx := ktesting.NewTestContext(t)

	cache := internalcache.New(ctx, nil, true, false)
	registry := frameworkruntime.Registry{
		queuesort.Name:     queuesort.New,
		defaultbinder.Name: defaultbinder.New,
	}
	profileCfg := config.KubeSchedulerProfile{
		SchedulerName: "default-scheduler",
		Plugins: &config.Plugins{
			QueueSort: config.PluginSet{
				Enabled: []config.Plugin{{Name: queuesort.Name}},
			},
			Bind: config.PluginSet{
				Enabled: []config.Plugin{{Name: defaultbinder.Name}},
			},
		},
	}
	schedFwk, err := frameworkruntime.NewFramework(ctx, registry, &profileCfg,
		frameworkruntime.WithEventRecorder(events.NewFakeRecorder(100)),
	)
	if err != nil {
		t.Fatalf("Failed to create new framework: %v", err)
	}
	sched := &profileLoop{
		queue: queue.New(),
		cache: cache,
	}

	// Assume pod p3
	err = cache.AssumePod(logger, p3)
	if err != nil {
		t.Fatalf("Failed to assume pod p3: %v", err)
	}

	sched.skipPodGroupPodSchedule(ctx, schedFwk, podGroupInfo)

	if podGroupInfo.Size() != 1 {
		t.Errorf("Expected 1 queued pod left, got %d", podGroupInfo.Size())
	}
	if podGroupInfo.QueuedPodInfos[fwk.MustParseEntityKey("podgroup/default/pg")][0].Pod.Name != "p1" {
		t.Errorf("Expected p1 to be left in queued pods, got %s", podGroupInfo.QueuedPodInfos[fwk.MustParseEntityKey("podgroup/default/pg")][0].Pod.Name)
	}
	if len(podGroupInfo.UnscheduledPods) != 1 {
		t.Errorf("Expected 1 unscheduled pod left, got %d", len(podGroupInfo.UnscheduledPods))
	}
	if podGroupInfo.UnscheduledPods[0].Name != "p1" {
		t.Errorf("Expected p1 to be left in unscheduled pods, got %s", podGroupInfo.UnscheduledPods[0].Name)
	}
}

func TestAlphaPodGroupGatesAreRefusedAtStart(t *testing.T) {
	if err := checkFeatureGates(); err != nil {
		t.Fatalf("default gates: %v", err)
	}
	for _, gate := range unsupportedGates {
		t.Run(string(gate), func(t *testing.T) {
			featuregatetesting.SetFeatureGatesDuringTest(t, utilfeature.DefaultFeatureGate, featuregatetesting.FeatureOverrides{
				features.GenericWorkload:                 true,
				features.TopologyAwareWorkloadScheduling: true,
				gate:                                     true,
			})
			_, err := New(clientsetfake.NewClientset(), informers.NewSharedInformerFactory(clientsetfake.NewClientset(), 0))
			if err == nil || !strings.Contains(err.Error(), "feature gate "+string(gate)+" is not supported") {
				t.Fatalf("New with %s on: got %v, want an error naming the gate", gate, err)
			}
		})
	}
}
