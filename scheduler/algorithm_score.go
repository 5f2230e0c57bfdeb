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
	"math/rand"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// Scoring: the live cycle's and a review's (Algorithm.Prioritize).

// prioritizeNodes runs PreScore and Score (weighted, normalized) and adds
// the interested extenders' priorities times their weight.
func prioritizeNodes(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, error) {
	logger := klog.FromContext(ctx)
	extenders := fw.Extenders()
	if len(extenders) == 0 && !fw.HasScorePlugins() {
		result := make([]fwk.NodePluginScores, 0, len(nodes))
		for i := range nodes {
			result = append(result, fwk.NodePluginScores{Name: nodes[i].Node().Name, TotalScore: 1})
		}
		return result, nil
	}
	if st := fw.RunPreScorePlugins(ctx, state, pod, nodes); !st.IsSuccess() {
		return nil, st.AsError()
	}
	scores, st := fw.RunScorePlugins(ctx, state, pod, nodes)
	if !st.IsSuccess() {
		return nil, st.AsError()
	}
	if len(extenders) == 0 {
		return scores, nil
	}
	byNode := make(map[string]*fwk.NodePluginScores, len(nodes))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range extenders {
		e := extenders[i]
		if !e.IsInterested(pod) {
			continue
		}
		wg.Add(1)
		go func() {
			metrics.Goroutines.WithLabelValues(metrics.PrioritizingExtender).Inc()
			defer func() {
				metrics.Goroutines.WithLabelValues(metrics.PrioritizingExtender).Dec()
				wg.Done()
			}()
			list, weight, err := e.Prioritize(pod, nodes)
			if err != nil {
				logger.V(5).Info("Failed to run extender's priority function. No score given by this extender.", "error", err, "extender", e.Name())
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, hp := range *list {
				score := hp.Score * weight * (fwk.MaxScore / extenderv1.MaxExtenderPriority)
				ns := byNode[hp.Host]
				if ns == nil {
					ns = &fwk.NodePluginScores{Name: hp.Host, Scores: make([]fwk.PluginScore, 0, len(extenders))}
					byNode[hp.Host] = ns
				}
				ns.Scores = append(ns.Scores, fwk.PluginScore{Name: e.Name(), Score: score})
				ns.TotalScore += score
			}
		}()
	}
	wg.Wait()
	for i := range scores {
		if ns, ok := byNode[nodes[i].Node().Name]; ok {
			scores[i].Scores = append(scores[i].Scores, ns.Scores...)
			scores[i].TotalScore += ns.TotalScore
			scores[i].Randomizer = rand.Int()
		}
	}
	return scores, nil
}
