// Package config holds the kustomize bases of the operator and, for local
// mode, the files a binary carries with it (so that local mode works from
// any module built with package app): the CRDs and the sample objects.
package config

import "embed"

// CRDs are the generated CustomResourceDefinitions (crd/bases/*.yaml).
//
//go:embed crd/bases/*.yaml
var CRDs embed.FS

// RoutesPolicy is the inert MutatingAdmissionPolicy and binding of the
// routes (routes/routes_policy.yaml), which local mode installs as the
// chart and config/default do.
//
//go:embed routes/routes_policy.yaml
var RoutesPolicy embed.FS

// Samples are the sample SchedulerProfiles and ExtenderConfigs
// (samples/*.yaml) that local mode applies.
//
//go:embed samples/*.yaml
var Samples embed.FS
