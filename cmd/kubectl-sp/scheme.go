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

package main

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// scheme knows the project's types: the client reads reviews through it,
// the printers set apiVersion and kind from it, and -f is decoded by it.
var scheme = runtime.NewScheme()

// strictCodecs decode manifests as kubectl apply would validate them: the
// group, version and kind must be registered, and an unknown or duplicated
// field is an error that names it.
var strictCodecs = serializer.NewCodecFactory(scheme, serializer.EnableStrict)

func init() {
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	// The profiles' histories are ControllerRevisions.
	utilruntime.Must(appsv1.AddToScheme(scheme))
}
