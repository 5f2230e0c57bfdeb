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

// Package v1 holds the versioned args of the Deadline plugin, as a
// SchedulerProfile's pluginConfig gives them (kind DeadlineArgs of
// kubescheduler.config.k8s.io/v1), their defaults and their conversion to
// the internal type, written as upstream writes its in-tree plugins' args
// (k8s.io/kubernetes/pkg/scheduler/apis/config/v1).
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeadlineArgs are the Deadline plugin's args:
//
//	pluginConfig:
//	- name: Deadline
//	  args:
//	    deadlineAnnotation: example.com/deadline
//	    defaultDeadlineSeconds: 3600
//	    urgentWithinSeconds: 300
//	    fastNodeLabel: example.com/fast
//
// Unset fields get the defaults above.
type DeadlineArgs struct {
	metav1.TypeMeta `json:",inline"`

	// DeadlineAnnotation is the pod annotation holding the pod's deadline
	// (RFC 3339).
	DeadlineAnnotation *string `json:"deadlineAnnotation,omitempty"`
	// DefaultDeadlineSeconds is the deadline of a pod without the
	// annotation, in seconds from its creation.
	DefaultDeadlineSeconds *int64 `json:"defaultDeadlineSeconds,omitempty"`
	// UrgentWithinSeconds: a pod whose deadline is this close is urgent.
	UrgentWithinSeconds *int64 `json:"urgentWithinSeconds,omitempty"`
	// FastNodeLabel is the label key of the nodes kept for urgent pods.
	FastNodeLabel *string `json:"fastNodeLabel,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (a *DeadlineArgs) DeepCopyObject() runtime.Object {
	c := &DeadlineArgs{TypeMeta: a.TypeMeta}
	c.DeadlineAnnotation = copyPtr(a.DeadlineAnnotation)
	c.DefaultDeadlineSeconds = copyPtr(a.DefaultDeadlineSeconds)
	c.UrgentWithinSeconds = copyPtr(a.UrgentWithinSeconds)
	c.FastNodeLabel = copyPtr(a.FastNodeLabel)
	return c
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
