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

// Package pluginargs registers the args types of out-of-tree scheduler
// plugins in upstream's scheduler configuration scheme
// (kubescheduler.config.k8s.io), so that a profile's pluginConfig entry for
// such a plugin is decoded strictly, defaulted and converted as in-tree
// args are.
//
// Layout:
//
//   - register.go: Register, the simple route (one Go type and a defaults
//     function for kind <name>Args); InTree, the names of upstream's
//     in-tree plugins; Validator, the shape of an args validator.
//   - scheme.go: AddScheme and SchemeType, the route of upstream's
//     convention (a versioned and an internal type, conversions and
//     defaulting registered by the plugin's own AddToScheme, as
//     kubernetes-sigs/scheduler-plugins writes them).
//
// A binary sets this up through package app (WithPluginArgs,
// WithPluginScheme); a plugin's tests call it directly to decode args as
// the binary does (see examples/deadline).
//
// Upstream's scheme is process-wide: register before any profile is
// converted. This package never replaces a kind registered with another
// type, never registers args under an in-tree plugin's name, and never
// writes the scheme again for a type registered before.
package pluginargs
