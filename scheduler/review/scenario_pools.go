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
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
)

// PoolUsage is what the nodes of one label value hold.
type PoolUsage struct {
	// Value of the label; empty for nodes without it.
	Value         string
	Before, After Usage
}

// Usage sums the requests of the pods on some nodes and the nodes'
// allocatable.
type Usage struct {
	Nodes                  int
	MilliCPU, Memory, Pods ResourceUsage
}

// ResourceUsage is a resource requested and allocatable.
type ResourceUsage struct {
	Requested, Allocatable int64
}

// pools sums the usage of nodes by their value of the label key (every
// node in one pool when key is empty).
func pools(nodes []fwk.NodeInfo, key string) map[string]Usage {
	out := map[string]Usage{}
	for _, ni := range nodes {
		node := ni.Node()
		if node == nil {
			continue
		}
		value := ""
		if key != "" {
			value = node.Labels[key]
		}
		u := out[value]
		u.Nodes++
		req, alloc := ni.GetRequested(), ni.GetAllocatable()
		u.MilliCPU.Requested += req.GetMilliCPU()
		u.MilliCPU.Allocatable += alloc.GetMilliCPU()
		u.Memory.Requested += req.GetMemory()
		u.Memory.Allocatable += alloc.GetMemory()
		u.Pods.Requested += int64(len(ni.GetPods()))
		u.Pods.Allocatable += int64(alloc.GetAllowedPodNumber())
		out[value] = u
	}
	return out
}

// mergePools lists the pools of before and after by value.
func mergePools(before, after map[string]Usage) []PoolUsage {
	values := sets.KeySet(before).Union(sets.KeySet(after))
	out := make([]PoolUsage, 0, values.Len())
	for _, v := range sets.List(values) {
		out = append(out, PoolUsage{Value: v, Before: before[v], After: after[v]})
	}
	return out
}
