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
