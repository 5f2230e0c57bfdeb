package harness

// cleanups are the undo steps of what a start made, run in the reverse
// order of their adding: `var undo cleanups; stop = undo.run` returns a
// stop that undoes whatever was added by the time it is called.
type cleanups []func()

func (c *cleanups) add(f func()) { *c = append(*c, f) }

func (c *cleanups) run() {
	for i := len(*c) - 1; i >= 0; i-- {
		(*c)[i]()
	}
}
