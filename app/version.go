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

package app

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with
// -ldflags "-X github.com/profile-scheduler/profile-scheduler/app.version=...".
var version = ""

// versionString names the operator version and the upstream scheduler it embeds.
func versionString() string {
	v, upstream := version, "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/kubernetes" {
				upstream = dep.Version
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	return fmt.Sprintf("profile-scheduler %s (kube-scheduler %s)", v, upstream)
}
