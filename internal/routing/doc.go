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

// Package routing decides which ProfileRoute, if any, rewrites a new pod,
// and writes that decision as the RoutingTable that the routes program
// (a MutatingAdmissionPolicy with a fixed CEL, config/routes) reads inside
// kube-apiserver. It is the one place that knows what a route selects:
// the ProfileRoute controller writes the table from it, and `kubectl sp
// route` answers "which profile would a pod get here?" with the same
// Table.
//
// Layout:
//
//	selector.go  label selectors: validation (the field at fault), Go
//	             matching, CEL, and whether two selectors exclude each other
//	table.go     Build: routes and profiles in, the ordered Table of routes
//	             in force out (refusals named per route); Table.Route
//	params.go    Table.Params: the RoutingTable the program reads, and the
//	             size budget of routes (MaxTableSize)
//	program.go   Program: the routes program and its binding
//	             (config/routes), ProbePod, and the names they share
//	compiled.go  Table.CompiledPolicy: every route compiled into CEL, as
//	             the operator wrote it before the routes became data; kept
//	             for the upgrade test and the admission benchmark
//
// The package never reads or writes the API server.
//
// It is the shape to copy for logic that the operator and the CLI must
// agree on: pure functions with no client, one table that the controller
// (writing it as data) and kubectl sp both use, so the two cannot drift.
package routing
