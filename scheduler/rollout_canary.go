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

import (
	"fmt"
	"hash/fnv"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	listersv1 "k8s.io/client-go/listers/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// A rollout as it is published (generations.rollouts), and who its
// canary step covers.

// RolloutStep is what the candidate does: Percent 0 is a shadow step.
type RolloutStep struct {
	// Percent of the profile's pods the candidate schedules: 0 to 99, or
	// to 100 with a selector (of the pods it matches).
	Percent int32
	// NamespaceSelector and PodSelector, when either is set, limit a
	// canary to the pods they match: a pod whose namespace's labels match
	// NamespaceSelector and whose own labels match PodSelector (nil
	// matches everything).
	NamespaceSelector, PodSelector labels.Selector
}

// selects reports whether the step limits its canary with a selector.
func (s RolloutStep) selects() bool { return s.NamespaceSelector != nil || s.PodSelector != nil }

// valid returns why the step cannot be served, nil if it can.
func (s RolloutStep) valid() error {
	limit := int32(99)
	if s.selects() {
		limit = 100
	}
	if s.Percent < 0 || s.Percent > limit {
		return fmt.Errorf("a rollout step's percent must be 0 to %d, not %d", limit, s.Percent)
	}
	return nil
}

// rollout is the candidate of one schedulerName. A published rollout is
// never modified; a step change publishes a new one.
type rollout struct {
	candidate *liveProfile
	step      RolloutStep
	// shadow judges the serving generation's pods in a shadow step; nil
	// in a canary step.
	shadow *shadow
	// namespaces are read by the step's namespace selector; matched
	// counts the attempts its selector matched since the window began
	// (shared by the rollouts a step change publishes).
	namespaces listersv1.NamespaceLister
	matched    *atomic.Int64
}

type rolloutMap map[string]*rollout

// stop stops what the rollout runs beside its candidate (its shadow) and
// takes the candidate out of the per-generation metrics. The candidate
// itself is retired, or promoted, by the caller.
func (r *rollout) stop() {
	if r.shadow != nil {
		r.shadow.close()
	}
	r.candidate.stats.setRole("", "")
}

// Who a canary step covers: the pods (and pod groups) whose stable hash
// falls under the step's percent. The hash is of the pod's PodGroup's UID
// when it belongs to one, so a gang never straddles generations, else of
// the pod's own UID.

// covers reports whether the candidate of r schedules pod (the member
// that starts a pod group's cycle, for a group), whose rollout key is
// key: a canary step whose selector, if any, matches the pod and whose
// percent covers the key's bucket. A shadow step covers nothing.
func (r *rollout) covers(pod *v1.Pod, key func() string) bool {
	if r.step.Percent == 0 {
		return false
	}
	if r.step.selects() {
		if pod == nil || !r.selected(pod) {
			return false
		}
		r.matched.Add(1)
	}
	return bucket(key()) < r.step.Percent
}

// selected reports whether the step's selector matches pod. A pod whose
// namespace is not known (yet) is not selected.
func (r *rollout) selected(pod *v1.Pod) bool {
	if r.step.PodSelector != nil && !r.step.PodSelector.Matches(labels.Set(pod.Labels)) {
		return false
	}
	if r.step.NamespaceSelector == nil {
		return true
	}
	ns, err := r.namespaces.Get(pod.Namespace)
	return err == nil && r.step.NamespaceSelector.Matches(labels.Set(ns.Labels))
}

// bucket is where key falls in 0..99.
func bucket(key string) int32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return int32(h.Sum32() % 100)
}

// rolloutKey is what a pod's generation is chosen by: its PodGroup's UID
// (or namespace/name when the group is not known yet), else its own UID.
func rolloutKey(groups fwk.PodGroupLister, pod *v1.Pod) string {
	if pod.Spec.SchedulingGroup != nil && pod.Spec.SchedulingGroup.PodGroupName != nil {
		name := *pod.Spec.SchedulingGroup.PodGroupName
		if pg, err := groups.Get(pod.Namespace, name); err == nil && pg.UID != "" {
			return string(pg.UID)
		}
		return pod.Namespace + "/" + name
	}
	return string(pod.UID)
}

// groupRolloutKey is rolloutKey for a popped pod group.
func groupRolloutKey(pgi *framework.QueuedPodGroupInfo) string {
	if pgi.PodGroup != nil && pgi.PodGroup.UID != "" {
		return string(pgi.PodGroup.UID)
	}
	return pgi.Namespace + "/" + pgi.Name
}
