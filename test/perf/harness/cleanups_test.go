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
	"slices"
	"testing"
)

func TestCleanupsRunInReverse(t *testing.T) {
	var undo cleanups
	stop := undo.run
	var got []int
	for i := range 3 {
		undo.add(func() { got = append(got, i) })
	}
	// Steps added after stop was taken are run too.
	stop()
	if !slices.Equal(got, []int{2, 1, 0}) {
		t.Errorf("ran %v, want 2, 1, 0", got)
	}
}
