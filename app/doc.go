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

// Package app builds the profile-scheduler operator as a command, the way
// upstream's cmd/kube-scheduler/app builds kube-scheduler: NewCommand
// returns the cobra command with every flag (grouped by concern with
// component-base's NamedFlagSets, logging through component-base's logsapi:
// --logging-format=text|json, -v, --vmodule), and its run assembles the
// whole operator (the in-process scheduler, the controllers, the
// admission webhooks, the bind arbiter, metrics, probes and local mode).
//
// Layout:
//   - command.go: NewCommand and Main; the run that builds the operator
//     (package app/operator) from the flags and starts it.
//   - flags.go: the flags, in named flag sets, and the operator.Options
//     they fill.
//   - options.go: the Options of a custom binary (WithPlugin,
//     WithPluginArgs, WithPluginScheme, WithPluginArgsValidator) and their
//     checks.
//   - lint.go: the lint subcommand.
//   - localmode.go: what --local needs from package app/local, which
//     registers itself (RegisterLocalMode) when a binary imports it.
//   - version.go: the version the binary reports.
//
// flags.go is the shape a new flag copies: flags in a named flag set of
// their concern (cliflag.NamedFlagSets, as kube-scheduler's
// cmd/kube-scheduler/app/options), logging configured through logsapi and
// feature gates through --feature-gates, never klog's legacy flags.
//
// The repository's main.go is app.Main() with no option. A binary with
// plugins of its own passes options:
//
//	func main() {
//		app.Main(
//			app.WithPlugin(myplugin.Name, myplugin.New),
//			app.WithPluginArgs(myplugin.Name, myplugin.SetDefaults),
//			app.WithPluginArgsValidator(myplugin.Name, myplugin.ValidateArgs),
//		)
//	}
//
// An out-of-tree plugin is then used as an in-tree one: profiles enable it
// by name, status.plugins lists it, upstream's scheduler metrics carry its
// name, and, with WithPluginArgs, its pluginConfig args are decoded strictly
// into their type and defaulted, and checked by the WithPluginArgsValidator
// validator, in status and at admission alike. A pluginConfig entry naming
// no registered plugin refuses the profile (UnknownPlugin).
//
// Args written in upstream's convention (a versioned type, an internal
// type, conversion and defaulting registered in upstream's scheduler
// configuration scheme, as kubernetes-sigs/scheduler-plugins writes them)
// need no WithPluginArgs: import the plugin's config packages (or give
// their AddToScheme with WithPluginScheme); the factory receives the
// internal type, and WithPluginArgsValidator takes that type. WithPluginArgs
// is the simple route for a plugin with one args type.
//
// The command's lint subcommand (lint.go) is kubectl sp lint with the
// binary's own plugins: `<binary> lint -f DIR` runs package lint with its
// registry and args validators, so a GitOps repository's CI checks profiles
// that enable them without a cluster.
//
// Bad options (two plugins under one name, a name of an in-tree plugin, an
// args type or validator for no plugin) make the command fail before
// anything starts. A factory that returns an error or panics refuses only
// the profiles that enable its plugin.
//
// Nothing under internal/ is needed to build a custom binary: this package
// and the upstream plugin API (k8s.io/kube-scheduler/framework,
// k8s.io/kubernetes/pkg/scheduler/framework/runtime) are. See
// examples/numericlabel for a complete plugin with its binary.
//
// This package never imports app/local nor a test framework: the image's
// binary (main.go) links production code only
// (TestImageBinaryLinksNoTestFramework), and --local without app/local
// says which package to import.
package app
