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

// Minimize searches for the smallest count, from 0 to Max, of nodes of
// Shape (its Count unused) that places every pod of the scenario.
type Minimize struct {
	Shape NodeShape
	Max   int
}

// MinimizeAnswer is Minimize's answer.
type MinimizeAnswer struct {
	// Count is the smallest count tried that places every pod; -1 when
	// even Max is not enough (ScenarioAnswer.Pods then says which pods do
	// not fit with Max, and why).
	Count int
	Max   int
	// Tried are the counts run, in order, and how many pods each left
	// unplaced.
	Tried []MinimizeTrial
}

// MinimizeTrial is one count tried.
type MinimizeTrial struct {
	Count, Unplaced int
}

// minimize finds the smallest count in [0, max] whose run places every
// pod, by bisection. It assumes placement is monotone in the count (one
// more node never leaves a pod unplaced that fits with one fewer), which
// holds for resources and node-level filters; scoring that spreads pods
// differently on more nodes could break it in theory. The answer never
// rests on the assumption alone: the count answered was run and placed
// every pod, and count-1 was run and did not. It returns the run the
// answer describes: the count found, or max when no count is enough (0
// when max is 0).
func minimize(limit int, out *MinimizeAnswer, run func(int) (*scenarioRun, error)) (*scenarioRun, error) {
	try := func(n int) (*scenarioRun, error) {
		r, err := run(n)
		if err != nil {
			return nil, err
		}
		out.Tried = append(out.Tried, MinimizeTrial{Count: n, Unplaced: r.unplaced})
		return r, nil
	}
	r, err := try(0)
	if err != nil || r.unplaced == 0 {
		if err == nil {
			out.Count = 0
		}
		return r, err
	}
	if limit == 0 {
		return r, nil
	}
	best, err := try(limit)
	if err != nil || best.unplaced > 0 {
		return best, err
	}
	// lo was run and left pods unplaced; hi was run and placed them all.
	lo, hi := 0, limit
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		r, err := try(mid)
		if err != nil {
			return nil, err
		}
		if r.unplaced == 0 {
			hi, best = mid, r
		} else {
			lo = mid
		}
	}
	out.Count = hi
	return best, nil
}
