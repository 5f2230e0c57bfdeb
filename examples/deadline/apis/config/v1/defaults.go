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

package v1

import "k8s.io/utils/ptr"

// The defaults of DeadlineArgs.
const (
	DefaultDeadlineAnnotation     = "example.com/deadline"
	DefaultDefaultDeadlineSeconds = int64(3600)
	DefaultUrgentWithinSeconds    = int64(300)
	DefaultFastNodeLabel          = "example.com/fast"
)

// SetDefaults_DeadlineArgs fills in what args leave unset. The scheme runs
// it when args are decoded, and for a profile that enables the plugin
// without a pluginConfig entry.
func SetDefaults_DeadlineArgs(args *DeadlineArgs) { //nolint:revive // upstream's name for a defaulting function
	if args.DeadlineAnnotation == nil {
		args.DeadlineAnnotation = ptr.To(DefaultDeadlineAnnotation)
	}
	if args.DefaultDeadlineSeconds == nil {
		args.DefaultDeadlineSeconds = ptr.To(DefaultDefaultDeadlineSeconds)
	}
	if args.UrgentWithinSeconds == nil {
		args.UrgentWithinSeconds = ptr.To(DefaultUrgentWithinSeconds)
	}
	if args.FastNodeLabel == nil {
		args.FastNodeLabel = ptr.To(DefaultFastNodeLabel)
	}
}
