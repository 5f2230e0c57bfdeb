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
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// The shadow of a shadow step: on one goroutine of its own, off the
// scheduling loop, the candidate judges the pods the serving generation
// placed or found unschedulable, as a review would (ShadowJudge), and
// counts where it agrees. It never waits: a pod offered while its queue
// is full is skipped, and the counts are a sample.

// ShadowJudge judges a pod with a candidate generation, as a review does:
// Filter and Score on a snapshot of its own, never Reserve, Permit or
// Bind. servingNode is where the serving generation placed the pod, empty
// when it found none; the pod is judged as if it were not there.
type ShadowJudge interface {
	JudgeShadow(ctx context.Context, gen *Generation, pod *v1.Pod, servingNode string) (ShadowVerdict, error)
	// JudgeShadowGroup judges the members of the pod group
	// namespace/name that the serving generation's pod-group cycle placed
	// (each on its ServingNode) or found unschedulable (none placed), all
	// or nothing, as the pod-group cycle does: as if none were placed.
	JudgeShadowGroup(ctx context.Context, gen *Generation, namespace, name string, members []ShadowMember) (ShadowGroupVerdict, error)
}

// ShadowMember is a member of a pod group the serving generation's cycle
// decided: the node it placed it on, empty when it placed none.
type ShadowMember struct {
	Pod         *v1.Pod
	ServingNode string
}

// ShadowGroupVerdict is a candidate's judgement of a pod group.
type ShadowGroupVerdict struct {
	// Placed: the candidate's pod-group cycle places every member.
	Placed bool
	// SameNodes counts the members it places where the serving
	// generation did.
	SameNodes int
	// Message says why it places none, when it does not.
	Message string
}

// ShadowVerdict is a candidate's judgement of one pod.
type ShadowVerdict struct {
	// Node the candidate would pick; empty when none fits.
	Node string
	// FeasibleOnServingNode: the serving generation's node passes the
	// candidate's filters.
	FeasibleOnServingNode bool
	// RefusedBy is the plugin (or extender) of the candidate that refused
	// the serving generation's node.
	RefusedBy string
}

// maxDisagreements is how many disagreeing pods a shadow window names.
const maxDisagreements = 5

// shadowQueueLength bounds the pods waiting for the shadow's judgement;
// when it is full, pods are skipped and the counts are a sample.
const shadowQueueLength = 256

// shadow judges, on one goroutine, the pods the serving generation placed
// or found unschedulable, with candidate, by what judge holds.
type shadow struct {
	candidate *liveProfile
	judge     *atomic.Pointer[ShadowJudge]

	pods chan shadowPod
	stop chan struct{}
	done chan struct{}

	// mu guards counts; a leaf lock.
	mu     sync.Mutex
	counts ShadowCounts
}

// shadowPod is what the shadow judges: a pod, or the members of a pod
// group (group set, pod nil).
type shadowPod struct {
	pod   *v1.Pod
	node  string
	group *shadowGroup
}

// shadowGroup is a pod group whose members the serving generation's
// pod-group cycle decided.
type shadowGroup struct {
	namespace, name string
	members         []ShadowMember
}

// servingPlaced reports whether the serving generation placed the group.
func (g *shadowGroup) servingPlaced() bool {
	return len(g.members) > 0 && !slices.ContainsFunc(g.members, func(m ShadowMember) bool { return m.ServingNode == "" })
}

// offer hands a pod to the shadow without waiting: when its queue is
// full, the pod is skipped.
func (sh *shadow) offer(pod *v1.Pod, node string) { sh.put(shadowPod{pod: pod, node: node}) }

// offerGroup hands a pod group's members to the shadow, to be judged
// together, without waiting.
func (sh *shadow) offerGroup(namespace, name string, members []ShadowMember) {
	sh.put(shadowPod{group: &shadowGroup{namespace: namespace, name: name, members: members}})
}

func (sh *shadow) put(p shadowPod) {
	select {
	case sh.pods <- p:
	default:
		sh.mu.Lock()
		sh.counts.Skipped++
		sh.mu.Unlock()
	}
}

func (sh *shadow) window(reset bool) ShadowCounts {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	c := sh.counts
	c.Disagreements = slices.Clone(c.Disagreements)
	if reset {
		sh.counts = ShadowCounts{}
	}
	return c
}

// noteGroup counts the judgement v of the group g, apart from pods.
func (sh *shadow) noteGroup(g *shadowGroup, v ShadowGroupVerdict) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	c := &sh.counts.Groups
	c.Judged++
	switch {
	case g.servingPlaced() && v.Placed:
		c.ServingPlaced++
		c.PlacedWhereServingPlaced++
	case g.servingPlaced():
		c.ServingPlaced++
		c.WouldNotPlace++
	case v.Placed:
		c.WouldPlace++
	}
	if g.servingPlaced() != v.Placed && len(sh.counts.Disagreements) < maxDisagreements {
		d := ShadowDisagreement{Pod: "podgroup " + g.namespace + "/" + g.name, Plugin: v.Message}
		if g.servingPlaced() {
			d.ServingNode = "all members placed"
		} else {
			d.NewNode = "all members placed"
		}
		sh.counts.Disagreements = append(sh.counts.Disagreements, d)
	}
}

func (sh *shadow) note(p shadowPod, v ShadowVerdict) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	c := &sh.counts
	c.Judged++
	agree := true
	if p.node != "" {
		c.ServingPlaced++
		if v.Node == p.node {
			c.SameNode++
		}
		if v.FeasibleOnServingNode {
			c.FeasibleWhereServingPlaced++
		} else {
			agree = false
		}
		if v.Node == "" {
			c.WouldNotPlace++
		}
	} else if v.Node != "" {
		c.WouldPlace++
		agree = false
	}
	if !agree && len(c.Disagreements) < maxDisagreements {
		c.Disagreements = append(c.Disagreements, ShadowDisagreement{
			Pod: p.pod.Namespace + "/" + p.pod.Name, ServingNode: p.node, NewNode: v.Node, Plugin: v.RefusedBy,
		})
	}
}

// newShadow returns the shadow of candidate, not started.
func newShadow(candidate *liveProfile, judge *atomic.Pointer[ShadowJudge]) *shadow {
	return &shadow{
		candidate: candidate, judge: judge,
		pods: make(chan shadowPod, shadowQueueLength), stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// run judges the pods offered until stopped. Each judgement holds a
// reference on the candidate, as a review does.
func (sh *shadow) run(ctx context.Context) {
	defer close(sh.done)
	logger := klog.FromContext(ctx)
	for {
		select {
		case <-sh.stop:
			return
		case <-ctx.Done():
			return
		case p := <-sh.pods:
			j := sh.judge.Load()
			if j == nil || !sh.candidate.acquire() {
				continue
			}
			if p.group != nil {
				v, err := sh.judgeGroup(ctx, *j, p.group)
				sh.candidate.release(logger)
				if err != nil {
					logger.V(3).Info("Shadow judgement failed", "podGroup", p.group.namespace+"/"+p.group.name, "err", err)
					continue
				}
				sh.noteGroup(p.group, v)
				continue
			}
			v, err := sh.judgeOne(ctx, *j, p)
			sh.candidate.release(logger)
			if err != nil {
				logger.V(3).Info("Shadow judgement failed", "pod", klog.KObj(p.pod), "err", err)
				continue
			}
			sh.note(p, v)
		}
	}
}

func (sh *shadow) close() {
	close(sh.stop)
	<-sh.done
}

// judgeOne judges p with the shadow's candidate. A panic of one of the
// candidate's plugins, in the judgement or in its parallel Filter and
// Score workers (recoverCandidatePanic), is an error of the candidate
// and of that judgement; the review's locks are released as the panic
// unwinds it.
func (sh *shadow) judgeOne(ctx context.Context, j ShadowJudge, p shadowPod) (v ShadowVerdict, err error) {
	candidate := sh.candidate
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

// judgeGroup judges the group g with the shadow's candidate, its panics
// contained as judgeOne's are.
func (sh *shadow) judgeGroup(ctx context.Context, j ShadowJudge, g *shadowGroup) (v ShadowGroupVerdict, err error) {
	candidate := sh.candidate
	ctx = context.WithValue(ctx, candidateKey{}, candidate.stats)
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
			klog.FromContext(ctx).Error(err, "A plugin of a rollout's candidate panicked in the shadow's judgement of a pod group", "podGroup", g.namespace+"/"+g.name)
			candidate.stats.panicked()
		}
	}()
	return j.JudgeShadowGroup(ctx, &Generation{lp: candidate}, g.namespace, g.name, g.members)
}
