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
