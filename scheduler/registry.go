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
	"fmt"
	"runtime/debug"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// newRegistry merges the out-of-tree plugins into upstream's in-tree
// registry. A name that is already in-tree is an error. Every factory is
// guarded: one that panics while a framework is built fails that build
// with an error naming the plugin, instead of taking the process down.
func newRegistry(outOfTree frameworkruntime.Registry) (frameworkruntime.Registry, error) {
	registry := frameworkplugins.NewInTreeRegistry()
	names := make([]string, 0, len(outOfTree))
	for name := range outOfTree {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := registry[name]; ok {
			return nil, fmt.Errorf("out-of-tree plugin %q: an in-tree plugin has that name", name)
		}
		if outOfTree[name] == nil {
			return nil, fmt.Errorf("out-of-tree plugin %q: nil factory", name)
		}
		registry[name] = outOfTree[name]
	}
	for name, factory := range registry {
		registry[name] = guardFactory(name, factory)
	}
	return registry, nil
}

// guardFactory turns a panic of factory into an error naming the plugin.
func guardFactory(name string, factory frameworkruntime.PluginFactory) frameworkruntime.PluginFactory {
	return func(ctx context.Context, args runtime.Object, h fwk.Handle) (p fwk.Plugin, err error) {
		defer func() {
			if r := recover(); r != nil {
				klog.FromContext(ctx).Error(nil, "Plugin factory panicked", "plugin", name, "panic", r, "stack", string(debug.Stack()))
				p, err = nil, fmt.Errorf("plugin %s panicked while being built: %v", name, r)
			}
		}()
		return factory(ctx, args, h)
	}
}
