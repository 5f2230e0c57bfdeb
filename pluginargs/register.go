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
	"errors"
	"fmt"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	configv1 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
)

// inTreeNames are the names of upstream's in-tree registry.
var inTreeNames = sync.OnceValue(func() sets.Set[string] {
	return sets.KeySet(frameworkplugins.NewInTreeRegistry())
})

// InTree reports whether name is one of upstream's in-tree plugins.
func InTree(name string) bool { return inTreeNames().Has(name) }

// InTreeNames are the names of upstream's in-tree plugins, sorted.
func InTreeNames() []string { return sets.List(inTreeNames()) }

// Validator checks the args of one plugin, as decoded (strictly, into the
// type registered with Register, or the internal type of its scheme) and
// defaulted. path is spec.pluginConfig[i].args: an error names fields below
// it, as upstream's validators do (field.ErrorList.ToAggregate()), or is
// any error.
type Validator func(path *field.Path, args runtime.Object) error

// argsMu serialises the changes of this package to upstream's schemes.
var argsMu sync.Mutex

// Register makes the args of the out-of-tree plugin name typed: obj, a
// pointer to a struct embedding metav1.TypeMeta, is registered as kind
// <name>Args of kubescheduler.config.k8s.io/v1 (and of the internal
// version, with the same Go type) in upstream's scheduler configuration
// scheme. A pluginConfig entry for the plugin is then decoded strictly into
// that type (an unknown field is refused, naming it), defaulted by defaulter
// (when not nil; also when the plugin runs without a pluginConfig entry)
// and handed to the plugin's factory as that type.
//
// It changes process-wide state (upstream's scheme is global): call it
// before any profile is converted. Registering the same type again changes
// nothing (the first defaulter stays); another type under the same name, or
// a name of an in-tree plugin, is an error.
func Register(name string, obj runtime.Object, defaulter func(runtime.Object)) error {
	if name == "" {
		return errors.New("plugin args: empty plugin name")
	}
	if InTree(name) {
		return fmt.Errorf("plugin args for %q: an in-tree plugin has that name", name)
	}
	if obj == nil {
		return fmt.Errorf("plugin args for %q: nil args type", name)
	}
	t := reflect.TypeOf(obj)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("plugin args for %q: %T is not a pointer to a struct", name, obj)
	}
	argsMu.Lock()
	defer argsMu.Unlock()
	if versioned, internal, ok := schemeArgs(name); ok && (versioned == t || internal == t) {
		// The plugin's own scheme registers the kind, in upstream's
		// convention (a versioned and an internal type): decoding,
		// defaulting and conversion are the scheme's.
		if defaulter != nil {
			return fmt.Errorf("plugin args for %q: kind %sArgs is registered by the plugin's scheme (versioned %v, internal %v), whose defaults run: give no defaults", name, name, versioned, internal)
		}
		return checkSchemeArgs(name)
	}
	kinds := []schema.GroupVersionKind{
		configv1.SchemeGroupVersion.WithKind(name + "Args"), // what a pluginConfig entry decodes from
		config.SchemeGroupVersion.WithKind(name + "Args"),   // what the framework hands the plugin
	}
	// The decoder uses upstream's scheme; defaulting and the conversion to
	// the internal version use upstream's plugin args scheme.
	schemes := []*runtime.Scheme{scheme.Scheme, configv1.GetPluginArgConversionScheme()}
	registered := 0
	for _, s := range schemes {
		for _, gvk := range kinds {
			existing, err := s.New(gvk)
			if err != nil {
				continue
			}
			if reflect.TypeOf(existing) != t {
				return fmt.Errorf("plugin args for %q: kind %s is already registered as %T, not %T", name, gvk.Kind, existing, obj)
			}
			registered++
		}
	}
	if registered == len(schemes)*len(kinds) {
		// Registered before: the schemes, which other goroutines may read
		// by now, are not written again.
		return nil
	}
	for _, s := range schemes {
		for _, gvk := range kinds {
			s.AddKnownTypeWithName(gvk, obj)
		}
	}
	if defaulter != nil {
		configv1.GetPluginArgConversionScheme().AddTypeDefaultingFunc(obj, func(o any) { defaulter(o.(runtime.Object)) })
	}
	return nil
}
