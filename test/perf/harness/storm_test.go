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

package harness

import (
	"errors"
	"testing"
)

// A refusal is wrong when the pod fits its node as the binds left it:
// binds only add pods, so the node had at least that room when it was
// refused.
func TestWrongRefusals(t *testing.T) {
	half := podRequest{cpu: 500, mem: 1 << 20}
	reqs := map[string]podRequest{"p1": half, "p2": half, "p3": half, "p4": half, "p5": half}
	alloc := map[string]podRequest{"full": {cpu: 1000, mem: 1 << 30}, "room": {cpu: 1000, mem: 1 << 30}, "slots": {cpu: 1000, mem: 1 << 30}}
	slots := map[string]int64{"full": 10, "room": 10, "slots": 1}
	bound := map[string]string{"p1": "full", "p2": "full", "p3": "room", "p5": "slots"}
	refused := errors.New(`admission webhook denied the request: node full has no room for ns/p4`)
	sent := []stormBind{
		{pod: "p1", node: "full"}, {pod: "p2", node: "full"}, {pod: "p3", node: "room"}, {pod: "p5", node: "slots"},
		{pod: "p4", node: "full", refused: true, err: refused},  // right: full
		{pod: "p4", node: "room", refused: true, err: refused},  // wrong: 500m of 1000m free
		{pod: "p4", node: "slots", refused: true, err: refused}, // right: no pod slot left
		{pod: "p4", node: "empty", err: errors.New("timeout")},  // not a refusal
	}
	n, examples := wrongRefusals(sent, bound, reqs, alloc, slots)
	if n != 1 || len(examples) != 1 {
		t.Fatalf("%d wrong refusals %v, want 1 (p4 on room)", n, examples)
	}
}
