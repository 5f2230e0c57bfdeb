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

// Package numericlabel is an example out-of-tree Score plugin for
// profile-scheduler: NumericLabel prefers nodes by the integer in one of
// their labels (for example a cost, a generation or a rack position),
// highest first, or lowest first with preferLow.
//
// Its args (NumericLabelArgs: labelKey, preferLow) are typed: with
// app.WithPluginArgs they are decoded strictly and defaulted by
// SetDefaults, and app.WithPluginArgsValidator checks them with
// ValidateArgs. cmd/numericlabel-scheduler builds the operator with it; the
// README walks through writing, building and enabling it.
package numericlabel
