// Command profile-scheduler runs the operator: the SchedulerProfile and
// ExtenderConfig controllers and the in-process scheduler they drive, with
// the upstream in-tree plugins. A binary with plugins of its own is the same
// call with app.WithPlugin options (see examples/).
package main

import "github.com/profile-scheduler/profile-scheduler/app"

func main() {
	app.Main()
}
