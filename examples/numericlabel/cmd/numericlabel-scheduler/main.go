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
