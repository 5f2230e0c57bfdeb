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
	"hash/fnv"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// A rollout as it is published (generations.rollouts), and who its
// canary step covers.

// RolloutStep is what the candidate does: Percent 0 is a shadow step.
type RolloutStep struct {
	// Percent of the profile's pods the candidate schedules (0 to 99).
	Percent int32
}

// rollout is the candidate of one schedulerName. A published rollout is
// never modified; a step change publishes a new one.
type rollout struct {
	candidate *liveProfile
	step      RolloutStep
	// shadow judges the serving generation's pods in a shadow step; nil
	// in a canary step.
	shadow *shadow
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

// covers reports whether the candidate of r schedules the pod or pod
// group whose rollout key is key: a canary step whose percent covers the
// key's bucket. A shadow step covers nothing.
func (r *rollout) covers(key func() string) bool {
	return r.step.Percent > 0 && bucket(key()) < r.step.Percent
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
