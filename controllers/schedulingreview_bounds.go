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

package controllers

import (
	"unicode/utf8"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// The schema's maxima of a review's status (api/v1alpha1, the markers of
// SchedulingReviewStatus): an answer is cut to them before it is written,
// so kube-apiserver never refuses one. The answers list at most
// maxNodes, maxRejectionGroups and maxWhatIfPods entries already; these
// bound what nothing else does.
const (
	// maxStatusMessage bounds a review's and a result's message.
	maxStatusMessage = 32768
	// maxPodMessage bounds the message of one pod of a list.
	maxPodMessage = 4096
	// maxStatusItems bounds a list of nodes or pods.
	maxStatusItems = 500
	// maxScoreRows bounds result.scores: score plugins and extenders.
	maxScoreRows = 128
	// maxPools bounds scenario.utilization.
	maxPools = 100
	// maxMinimizeTrials bounds scenario.minimize.tried.
	maxMinimizeTrials = 32
)

// boundReviewStatus cuts st to the schema's maxima.
func boundReviewStatus(st *v1alpha1.SchedulingReviewStatus) {
	if r := st.Result; r != nil {
		r.Message = cut(r.Message, maxStatusMessage)
		r.Overcommitted = cut(r.Overcommitted, maxStatusMessage)
		r.Nodes = first(r.Nodes, maxStatusItems)
		r.Scores = first(r.Scores, maxScoreRows)
		for i := range r.Scores {
			s := &r.Scores[i]
			s.Raw, s.Normalized, s.Weighted = first(s.Raw, maxStatusItems), first(s.Normalized, maxStatusItems), first(s.Weighted, maxStatusItems)
		}
		for i := range r.Rejected {
			r.Rejected[i].Nodes = first(r.Rejected[i].Nodes, maxStatusItems)
		}
		boundPreemption(r.Preemption)
	}
	if w := st.WhatIf; w != nil {
		w.Pods = first(w.Pods, maxStatusItems)
		for i := range w.Pods {
			w.Pods[i].Message = cut(w.Pods[i].Message, maxPodMessage)
		}
	}
	if g := st.Group; g != nil {
		g.Message = cut(g.Message, maxStatusMessage)
		g.Members = first(g.Members, maxStatusItems)
		for i := range g.Members {
			g.Members[i].Message = cut(g.Members[i].Message, maxPodMessage)
		}
		g.Nodes = first(g.Nodes, maxStatusItems)
		for i := range g.Nodes {
			g.Nodes[i].Pods = first(g.Nodes[i].Pods, maxStatusItems)
		}
		boundPreemption(g.Preemption)
	}
	if sc := st.Scenario; sc != nil {
		sc.Unplaced, sc.PlacedPods = first(sc.Unplaced, maxStatusItems), first(sc.PlacedPods, maxStatusItems)
		for _, pods := range [][]v1alpha1.ScenarioPod{sc.Unplaced, sc.PlacedPods} {
			for i := range pods {
				pods[i].Message = cut(pods[i].Message, maxPodMessage)
			}
		}
		for i := range sc.Groups {
			sc.Groups[i].Message = cut(sc.Groups[i].Message, maxPodMessage)
		}
		sc.Utilization = first(sc.Utilization, maxPools)
		if sc.Minimize != nil {
			sc.Minimize.Tried = first(sc.Minimize.Tried, maxMinimizeTrials)
		}
	}
}

func boundPreemption(p *v1alpha1.PreemptionResult) {
	if p == nil {
		return
	}
	p.Victims = first(p.Victims, maxStatusItems)
	p.Message = cut(p.Message, maxStatusMessage)
}

// first is the first n items of s.
func first[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// cut cuts s to at most n bytes, on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = " …"
	i := n - len(mark)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + mark
}
