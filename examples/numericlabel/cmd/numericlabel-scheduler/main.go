// Command numericlabel-scheduler is profile-scheduler built with one
// out-of-tree plugin, NumericLabel: every flag, mode and behaviour of the
// operator, plus a plugin that SchedulerProfiles can enable by name.
package main

import (
	"github.com/profile-scheduler/profile-scheduler/app"
	_ "github.com/profile-scheduler/profile-scheduler/app/local" // --local, for a developer's machine; an image's binary leaves it out
	"github.com/profile-scheduler/profile-scheduler/examples/numericlabel"
)

func main() {
	app.Main(options()...)
}

// options register the plugin, the type of its args (decoded strictly and
// defaulted) and their validator.
func options() []app.Option {
	return []app.Option{
		app.WithPlugin(numericlabel.Name, numericlabel.New),
		app.WithPluginArgs(numericlabel.Name, numericlabel.SetDefaults),
		app.WithPluginArgsValidator(numericlabel.Name, numericlabel.ValidateArgs),
	}
}
