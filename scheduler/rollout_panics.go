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
	"runtime"
	"sync"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// A rollout's candidate runs plugins nobody has seen serve yet, so a
// panic of one of them is the candidate's error, wherever it happens, and
// never the end of the process: in its scheduling cycle (PreFilter to
// Permit, and the parallel Filter and Score workers: runSchedulingCycle,
// recoverCandidatePanic), in its binding cycle (WaitOnPermit, PreBind,
// Bind, PostBind: binder.containBindingPanic), in its pod-group cycle
// (containPodGroupPanic) and in the shadow's judgement (shadow.judgeOne).
// This file holds what they share: the panic's error, the context key of
// a candidate's cycle and the process's panic handler; each containment
// stands beside the cycle it guards. A pod the panicking cycle had assumed
// is forgotten and its Reserve undone (binder.forgetAfterPanic), then it
// goes back to the queue with an error, backed off as after any error; the candidate's error count
// grows, which its analysis judges. The serving generation's panics crash
// the process, as upstream kube-scheduler's do: it has served, and a
// crash-looping operator is what a bad serving plugin costs upstream too.

// panicError is the error a contained panic of a candidate's plugin
// becomes.
func panicError(r interface{}) error {
	return fmt.Errorf("a plugin of the rollout's candidate panicked: %v", r)
}

// candidateKey marks the context of a candidate's scheduling cycle: a
// panic in one of its plugins is an error of the candidate, not the end
// of the process.
type candidateKey struct{}

// recoverCandidatePanic, in a panic handler of the parallel Filter and
// Score workers, ends the worker of a candidate's cycle whose plugin
// panicked (the panic is already recovered there) instead of letting the
// handler crash the process, and counts an error of that generation. The
// pieces the worker had left are not evaluated: their nodes are neither
// feasible nor rejected.
func recoverCandidatePanic(ctx context.Context, r interface{}) {
	if ctx == nil {
		return
	}
	g, ok := ctx.Value(candidateKey{}).(*generationStats)
	if !ok {
		return
	}
	g.panicked()
	klog.FromContext(ctx).Error(fmt.Errorf("%v", r), "A plugin of a rollout's candidate panicked; the candidate's cycle goes on without it")
	runtime.Goexit()
}

var registerPanicHandler sync.Once

// containCandidatePanics puts recoverCandidatePanic first among the
// process's panic handlers, once, for the first scheduler made (New).
func containCandidatePanics() {
	registerPanicHandler.Do(func() {
		utilruntime.PanicHandlers = append([]func(context.Context, interface{}){recoverCandidatePanic}, utilruntime.PanicHandlers...)
	})
}
