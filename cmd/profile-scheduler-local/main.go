// Command profile-scheduler-local is the operator with local mode: the
// binary `make run` builds and runs with --local, on a throw-away control
// plane of its own. The operator's image is built from the repository's
// main package, which does not import local mode and links no test
// framework.
package main

import (
	"github.com/profile-scheduler/profile-scheduler/app"
	_ "github.com/profile-scheduler/profile-scheduler/app/local" // --local
)

func main() {
	app.Main()
}
