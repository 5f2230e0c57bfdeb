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
	"context"
	"errors"
	"sync"

	"k8s.io/client-go/rest"
)

// LocalOptions are local mode's flags.
type LocalOptions struct {
	// Dir is where the admin kubeconfig is written (--local-dir), relative
	// to the root of the module run from (the directory holding go.mod),
	// or to the working directory outside a module.
	Dir string
	// Assets holds etcd, kube-apiserver and kubectl (--local-assets);
	// empty: $KUBEBUILDER_ASSETS, else bin/k8s under the module's root.
	Assets string
	// Webhook, when set (--enable-webhook), is the operator's webhook
	// server, which local mode points kube-apiserver at.
	Webhook *LocalWebhook
}

// LocalWebhook is the operator's webhook server as local mode registers
// it with kube-apiserver: the ValidatingWebhookConfiguration it creates
// (whose caBundle the operator fills), the server's port on localhost,
// and whether the bind arbiter's webhook is in it (--bind-arbiter).
type LocalWebhook struct {
	ConfigurationName string
	Port              int
	BindArbiter       bool
}

// LocalControlPlane is a control plane local mode started: the operator
// runs against Config, and Stop stops it and everything it started.
type LocalControlPlane struct {
	Config *rest.Config
	Stop   func() error
}

// localMode starts local mode's control plane; nil in a binary that does
// not import package app/local.
var localMode struct {
	sync.Mutex
	start func(context.Context, LocalOptions) (*LocalControlPlane, error)
}

// RegisterLocalMode makes --local start a control plane with start.
// Package app/local calls it when imported: the operator's image does not
// import it, so it links no test framework; a binary for a developer's
// machine (make run's, a custom build's) imports it.
func RegisterLocalMode(start func(context.Context, LocalOptions) (*LocalControlPlane, error)) {
	localMode.Lock()
	defer localMode.Unlock()
	localMode.start = start
}

// errNoLocalMode is --local's error in a binary built without local mode.
var errNoLocalMode = errors.New("--local: this binary was built without local mode; its main package must import github.com/profile-scheduler/profile-scheduler/app/local (`make run` builds one that does; the operator's image does not)")

// localModeRegistered reports whether this binary has local mode.
func localModeRegistered() bool {
	localMode.Lock()
	defer localMode.Unlock()
	return localMode.start != nil
}

// startLocal starts local mode's control plane.
func startLocal(ctx context.Context, o LocalOptions) (*LocalControlPlane, error) {
	localMode.Lock()
	start := localMode.start
	localMode.Unlock()
	if start == nil {
		return nil, errNoLocalMode
	}
	return start(ctx, o)
}
