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
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// A rollout's candidate runs plugins nobody has seen serve yet, so a
// panic of one of them is the candidate's error, wherever it happens, and
// never the end of the process: in its scheduling cycle (PreFilter to
// Permit, and the parallel Filter and Score workers: runSchedulingCycle,
// recoverCandidatePanic), in its binding cycle (WaitOnPermit, PreBind,
// Bind, PostBind: containBindingPanic), and in the shadow's judgement
// (runShadow). A pod the panicking cycle had assumed is forgotten and its
// Reserve undone (forgetAfterPanic), then it goes back to the queue with
// an error, backed off as after any error; the candidate's error count
// grows, which its analysis judges. The serving generation's panics crash
// the process, as upstream kube-scheduler's do: it has served, and a
// crash-looping operator is what a bad serving plugin costs upstream too.

// serves reports whether prof is the generation serving its name, not a
// rollout's candidate.
func (s *Scheduler) serves(prof *liveProfile) bool {
	return (*s.profiles.Load())[prof.applied.SchedulerName] == prof
}

// panicError is the error a contained panic of a candidate's plugin
// becomes.
func panicError(r interface{}) error {
	return fmt.Errorf("a plugin of the rollout's candidate panicked: %v", r)
}

// forgetAfterPanic undoes what a candidate's cycle that panicked did to
// pod in the cache: if pod is assumed there, its Reserve is undone (a
// panic of Unreserve is contained too) and it is forgotten, so that its
// node's room is not lost for every profile.
func (s *Scheduler) forgetAfterPanic(ctx context.Context, state fwk.CycleState, fw framework.Framework, pod *v1.Pod) {
	logger := klog.FromContext(ctx)
	if assumed, err := s.cache.IsAssumedPod(pod); err != nil || !assumed {
		return
	}
	cached, err := s.cache.GetPod(pod)
	if err != nil || cached.Spec.NodeName == "" {
		return
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				logger.Error(panicError(r), "Unreserve of a rollout's candidate panicked while undoing a panicked cycle", "pod", klog.KObj(pod))
			}
		}()
		fw.RunReservePluginsUnreserve(ctx, state, cached, cached.Spec.NodeName)
	}()
	if err := s.cache.ForgetPod(logger, cached); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "ForgetPod failed after a candidate's panic", "pod", klog.KObj(pod))
		return
	}
	// The forgotten pod held room: other pods may fit now.
	s.queue.MoveAllToActiveOrBackoffQueue(ctx, framework.EventAssignedPodDelete, cached, nil, func(p *v1.Pod) bool { return p.UID != pod.UID })
}

// containBindingPanic, deferred around a candidate's binding cycle, turns
// a panic of one of its plugins into a failed binding: the pod is
// forgotten and goes back to the queue with the error, the candidate
// counts an error, and the process goes on.
func (s *Scheduler) containBindingPanic(ctx context.Context, state fwk.CycleState, prof *liveProfile, assumed *framework.QueuedPodInfo, start time.Time) {
	r := recover()
	if r == nil {
		return
	}
	err := panicError(r)
	klog.FromContext(ctx).Error(err, "A plugin of a rollout's candidate panicked in its binding cycle", "pod", klog.KObj(assumed.Pod))
	prof.stats.panicked()
	s.forgetAfterPanic(ctx, state, prof.fw, assumed.Pod)
	s.handleSchedulingFailure(ctx, prof.fw, assumed, fwk.AsStatus(err), clearNominatedNode, start)
}

// runPostBindPlugins runs fw's PostBind plugins. A panic of a candidate's
// is logged and counted against it: the pod is bound, nothing is undone.
func (s *Scheduler) runPostBindPlugins(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, node string) {
	if p := (*s.profiles.Load())[fw.ProfileName()]; p == nil || p.fw != fw {
		defer func() {
			if r := recover(); r != nil {
				klog.FromContext(ctx).Error(panicError(r), "A PostBind plugin of a rollout's candidate panicked; the pod is bound", "pod", klog.KObj(pod))
				if g := s.statsOf(fw); g != nil {
					g.panicked()
				}
			}
		}()
	}
	fw.RunPostBindPlugins(ctx, state, pod, node)
}

// judgeShadow judges p with the candidate. A panic of one of the
// candidate's plugins, in the judgement or in its parallel Filter and
// Score workers (recoverCandidatePanic), is an error of the candidate
// and of that judgement; the review's locks are released as the panic
// unwinds it.
func (s *Scheduler) judgeShadow(ctx context.Context, j ShadowJudge, candidate *liveProfile, p shadowPod) (v ShadowVerdict, err error) {
	ctx = context.WithValue(ctx, candidateKey{}, candidate.stats)
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
			klog.FromContext(ctx).Error(err, "A plugin of a rollout's candidate panicked in the shadow's judgement", "pod", klog.KObj(p.pod))
			candidate.stats.panicked()
		}
	}()
	return j.JudgeShadow(ctx, &Generation{lp: candidate}, p.pod, p.node)
}

// containPodGroupPanic, deferred around a candidate's pod-group cycle,
// turns a panic of one of its plugins into the group's error, all or
// nothing: the members whose binding cycle started (handed) and wait at
// Permit are rejected there (their binding cycles undo them), every other
// member is forgotten if it was assumed and goes back to the queue with
// the error. The loop's snapshot forgets what the cycle assumed in it at
// its next update, as upstream's does.
func (l *profileLoop) containPodGroupPanic(ctx context.Context, prof *liveProfile, pgi *framework.QueuedPodGroupInfo, handed sets.Set[types.UID], start time.Time) {
	r := recover()
	if r == nil {
		return
	}
	err := panicError(r)
	klog.FromContext(ctx).Error(err, "A plugin of a rollout's candidate panicked in a pod-group cycle", "podGroup", klog.KObj(pgi))
	prof.stats.panicked()
	pgi.ForEachPodInfo(func(p *framework.QueuedPodInfo) bool {
		if handed.Has(p.Pod.UID) {
			if wp := prof.fw.GetWaitingPod(p.Pod.UID); wp != nil {
				wp.Reject("", err.Error())
			}
			return true
		}
		l.forgetAfterPanic(ctx, framework.NewCycleState(), prof.fw, p.Pod)
		l.handleSchedulingFailure(ctx, prof.fw, p, fwk.AsStatus(err), clearNominatedNode, start)
		return true
	})
}
