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
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// bindHolds are the binds the arbiter admitted that the cache has not seen
// yet, by node. The scheduler's pod handlers release a hold when the cache
// has the pod bound, or when the pod is deleted; a hold also ends at its
// deadline (a bind that never committed). Safe for concurrent use.
type bindHolds struct {
	// mu guards the holds below; a leaf lock.
	mu    sync.Mutex
	nodes map[string]map[types.UID]bindHold
	// node of each pod held, to release by UID.
	node map[types.UID]string
}

type bindHold struct {
	pod   *v1.Pod
	until time.Time
}

func newBindHolds() *bindHolds {
	return &bindHolds{nodes: map[string]map[types.UID]bindHold{}, node: map[types.UID]string{}}
}

// hold records an admitted bind of pod to nodeName until the deadline.
func (h *bindHolds) hold(pod *v1.Pod, nodeName string, until time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.releaseLocked(pod.UID)
	bound := pod.DeepCopy()
	bound.Spec.NodeName = nodeName
	if h.nodes[nodeName] == nil {
		h.nodes[nodeName] = map[types.UID]bindHold{}
	}
	h.nodes[nodeName][pod.UID] = bindHold{pod: bound, until: until}
	h.node[pod.UID] = nodeName
	arbiterHolds.Set(float64(len(h.node)))
}

// release ends the hold of a pod, if any: the cache has it bound now, or
// it is gone.
func (h *bindHolds) release(uid types.UID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.releaseLocked(uid)
	arbiterHolds.Set(float64(len(h.node)))
}

func (h *bindHolds) releaseLocked(uid types.UID) {
	node, ok := h.node[uid]
	if !ok {
		return
	}
	delete(h.node, uid)
	delete(h.nodes[node], uid)
	if len(h.nodes[node]) == 0 {
		delete(h.nodes, node)
	}
}

// onNode lists the pods held on nodeName at now, but except (the pod
// being judged: a bind retried after a refusal in etcd is judged anew),
// in a stable order; holds past their deadline end.
func (h *bindHolds) onNode(nodeName string, except types.UID, now time.Time) []v1.Pod {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []v1.Pod
	for uid, b := range h.nodes[nodeName] {
		if !now.Before(b.until) {
			h.releaseLocked(uid)
			arbiterHoldsExpired.Inc()
			continue
		}
		if uid != except {
			out = append(out, *b.pod)
		}
	}
	arbiterHolds.Set(float64(len(h.node)))
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	return out
}
