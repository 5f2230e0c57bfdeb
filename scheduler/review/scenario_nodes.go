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
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
)

// nodeNamer names the nodes a scenario adds: the shape's name, -1, -2,
// ..., skipping names the cluster or the scenario already has.
type nodeNamer struct {
	taken sets.Set[string]
	next  map[string]int
}

func newNodeNamer(base []fwk.NodeInfo) *nodeNamer {
	n := &nodeNamer{taken: sets.New[string](), next: map[string]int{}}
	for _, ni := range base {
		n.taken.Insert(ni.Node().Name)
	}
	return n
}

func (n *nodeNamer) clone() *nodeNamer {
	c := &nodeNamer{taken: n.taken.Clone(), next: make(map[string]int, len(n.next))}
	for k, v := range n.next {
		c.next[k] = v
	}
	return c
}

// copyOf is a new node like shape, with a name of its own (its hostname
// label too, so that spreading and affinity see a node of its own).
func (n *nodeNamer) copyOf(shape *v1.Node) *v1.Node {
	var name string
	for {
		n.next[shape.Name]++
		name = shape.Name + "-" + strconv.Itoa(n.next[shape.Name])
		if !n.taken.Has(name) {
			break
		}
	}
	n.taken.Insert(name)
	node := shape.DeepCopy()
	node.Name = name
	node.UID = types.UID("scenario-" + name)
	node.ResourceVersion = ""
	node.Spec.ProviderID = ""
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	node.Labels[v1.LabelHostname] = name
	return node
}
