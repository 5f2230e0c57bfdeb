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

package review

import (
	"context"

	v1 "k8s.io/api/core/v1"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// Host is the scheduler as the reviews reach it: a serving generation or
// a framework built for a draft, a snapshot of the cache, the algorithm
// and the pod-group algorithm's placer (scheduler.RunPodGroupAlgorithm).
// Nothing in it changes the live cache, the queue or any object.
type Host interface {
	// HasSynced reports whether the scheduler's informers have synced.
	HasSynced() bool
	// Serving reports whether a profile serves schedulerName now.
	Serving(schedulerName string) bool
	// AcquireGeneration takes a reference on the generation serving
	// schedulerName, nil when none does; the review framework of a
	// generation is attached to it.
	AcquireGeneration(schedulerName string) *scheduler.Generation
	// BuildFramework builds a framework of p on snapshot that reaches
	// nothing live; SyncInformers waits for the informers its plugins
	// asked for.
	BuildFramework(ctx context.Context, p scheduler.Profile, snapshot *internalcache.Snapshot, parallelism int,
		setUp func(ctx context.Context, prof *config.KubeSchedulerProfile, fw framework.Framework) error) (framework.Framework, func(), error)
	SyncInformers(ctx context.Context) error
	// UpdateSnapshot brings snapshot up to date with the cache.
	UpdateSnapshot(ctx context.Context, snapshot *internalcache.Snapshot) error
	// Algorithm is the live cycle's algorithm on snapshot, its search
	// starting where the live cycle's next one does.
	Algorithm(snapshot *internalcache.Snapshot) *scheduler.Algorithm
	// Pods lists the pods the scheduler's informer knows; IsAssumed says
	// whether the cache holds one assumed, HasPodGroup whether it knows a
	// PodGroup.
	Pods() listersv1.PodLister
	IsAssumed(pod *v1.Pod) bool
	HasPodGroup(namespace, name string) bool
	// NodeOvercommit is, when a node's bound pods request more than it
	// has, which resources and which pods.
	NodeOvercommit(node string) *scheduler.Overcommit
}

var _ Host = &scheduler.ReviewHost{}
