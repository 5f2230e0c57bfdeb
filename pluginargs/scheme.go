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

package pluginargs

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	configv1 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1"
)

// schemeArgs returns the Go types the kind <name>Args is registered with in
// upstream's scheduler configuration scheme, versioned (v1) and internal,
// when both are registered as different types: the args of a plugin
// written in upstream's convention, whose packages add them to upstream's
// scheme builders (configv1.SchemeBuilder, config.SchemeBuilder) or to the
// scheme itself, as scheduler-plugins' do.
func schemeArgs(name string) (versioned, internal reflect.Type, ok bool) {
	v, err := scheme.Scheme.New(configv1.SchemeGroupVersion.WithKind(name + "Args"))
	if err != nil {
		return nil, nil, false
	}
	i, err := scheme.Scheme.New(config.SchemeGroupVersion.WithKind(name + "Args"))
	if err != nil {
		return nil, nil, false
	}
	if reflect.TypeOf(v) == reflect.TypeOf(i) {
		return nil, nil, false
	}
	return reflect.TypeOf(v), reflect.TypeOf(i), true
}

// SchemeType is the type the factory of plugin name receives its args
// as when a scheme registers them in upstream's convention (the internal
// type); nil when none does.
func SchemeType(name string) reflect.Type {
	argsMu.Lock()
	defer argsMu.Unlock()
	_, internal, ok := schemeArgs(name)
	if !ok {
		return nil
	}
	return internal
}

// checkSchemeArgs checks that the versioned args of plugin name, registered
// by its scheme, convert to the internal type the plugin receives: upstream
// converts pluginConfig args with a scheme of its own
// (configv1.GetPluginArgConversionScheme), which holds what was added to
// upstream's scheme builders before its first use.
func checkSchemeArgs(name string) error {
	conv := configv1.GetPluginArgConversionScheme()
	v, err := conv.New(configv1.SchemeGroupVersion.WithKind(name + "Args"))
	if err != nil {
		return fmt.Errorf("plugin args for %q: kind %sArgs is in upstream's scheme but not in its plugin-args conversion scheme: register the versioned and internal types with configv1.SchemeBuilder and config.SchemeBuilder (as upstream's and scheduler-plugins' args packages do), or give their AddToScheme with WithPluginScheme", name, name)
	}
	if _, err := conv.ConvertToVersion(v, config.SchemeGroupVersion); err != nil {
		return fmt.Errorf("plugin args for %q: kind %sArgs does not convert to its internal type (%v): register the conversion functions with the scheme", name, name, err)
	}
	return nil
}

// AddScheme runs addToScheme, a plugin's registration of its args
// types, conversion and defaulting, on upstream's scheduler configuration
// scheme and on its plugin-args conversion scheme. A panic of addToScheme
// (a kind registered twice with different types) is returned as an error.
func AddScheme(addToScheme func(*runtime.Scheme) error) (err error) {
	argsMu.Lock()
	defer argsMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("registering plugin args with the scheduler configuration scheme: %v", r)
		}
	}()
	for _, s := range []*runtime.Scheme{scheme.Scheme, configv1.GetPluginArgConversionScheme()} {
		if err := addToScheme(s); err != nil {
			return fmt.Errorf("registering plugin args with the scheduler configuration scheme: %w", err)
		}
	}
	return nil
}
