// Command deadline-scheduler is profile-scheduler built with one
// out-of-tree plugin whose args follow upstream's convention: Deadline
// (QueueSort and Score).
package main

import (
	"github.com/profile-scheduler/profile-scheduler/app"
	_ "github.com/profile-scheduler/profile-scheduler/app/local" // --local, for a developer's machine; an image's binary leaves it out
	"github.com/profile-scheduler/profile-scheduler/examples/deadline"
	"github.com/profile-scheduler/profile-scheduler/examples/deadline/apis/config/validation"
)

func main() {
	app.Main(options()...)
}

// options register the plugin, the scheme of its args (versioned and
// internal types, defaults, conversions) and the validator of the internal
// type.
func options() []app.Option {
	return []app.Option{
		app.WithPlugin(deadline.Name, deadline.New),
		app.WithPluginScheme(deadline.AddToScheme),
		app.WithPluginArgsValidator(deadline.Name, validation.ValidateDeadlineArgs),
	}
}
