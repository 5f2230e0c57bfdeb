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

// Package config holds the internal type of the Deadline plugin's args:
// what the plugin's factory receives, after the versioned args a profile
// gives (package v1) are decoded, defaulted and converted. It has no JSON
// form of its own, as upstream's internal scheduler config types have none.
package config

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// DeadlineArgs configure the Deadline plugin.
type DeadlineArgs struct {
	metav1.TypeMeta

	// DeadlineAnnotation is the pod annotation holding the pod's deadline
	// (RFC 3339).
	DeadlineAnnotation string
	// DefaultDeadline is the deadline of a pod without the annotation,
	// counted from its creation.
	DefaultDeadline time.Duration
	// UrgentWithin: a pod whose deadline is this close is urgent.
	UrgentWithin time.Duration
	// FastNodeLabel is the label key of the nodes kept for urgent pods.
	FastNodeLabel string
}

// DeepCopyObject implements runtime.Object.
func (a *DeadlineArgs) DeepCopyObject() runtime.Object {
	c := *a
	return &c
}

// AddToScheme registers the internal type as kind DeadlineArgs of
// upstream's internal scheduler configuration version.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(schedconfig.SchemeGroupVersion, &DeadlineArgs{})
	return nil
}
