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

package scheduler

import (
	"context"

	"k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// Profile is what a caller asks the scheduler to serve.
type Profile struct {
	// Config is the upstream profile, already converted to the internal
	// type, defaulted and validated (Config.SchedulerName is the name served).
	Config config.KubeSchedulerProfile
	// Extenders the profile calls, in order. TLS material is inline
	// (TLSConfig.CAData, CertData, KeyData), never file paths.
	Extenders []config.Extender
	// Generation of the object the profile comes from, carried by the
	// logger of its framework and plugins (0: none, for a draft).
	Generation int64
}

// Applied describes the framework that serves (or would serve) a profile.
type Applied struct {
	// SchedulerName served.
	SchedulerName string
	// Plugins is what the framework really runs per extension point, after
	// defaults and MultiPoint expansion (framework.ListPlugins()).
	Plugins *config.Plugins
	// Extenders are the names (URL prefixes) of the extenders it calls.
	Extenders []string
}

// ProfileSet is how controllers drive the live profiles.
type ProfileSet interface {
	// Apply builds a framework for p and swaps it in atomically. When
	// building fails, the error is returned and the framework that served
	// p.Config.SchedulerName before (if any) keeps serving.
	Apply(ctx context.Context, p Profile) (Applied, error)
	// Validate builds a framework for p and closes it again, swapping
	// nothing (dry-run, for admission).
	Validate(ctx context.Context, p Profile) (Applied, error)
	// Remove stops serving schedulerName: no new cycles start for it, and
	// in-flight bindings complete. It reports whether a profile was removed.
	Remove(ctx context.Context, schedulerName string) bool
	// Serving reports whether a framework serves schedulerName now.
	Serving(schedulerName string) bool
}
