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
