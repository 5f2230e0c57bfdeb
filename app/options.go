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
	"errors"
	"fmt"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/profile-scheduler/profile-scheduler/pluginargs"
)

// Option adds out-of-tree plugins, and what the operator needs to know
// about their args, to the command NewCommand builds.
type Option func(*plugins) error

// plugins collects what the options register. It is checked, and the args
// types registered with the scheduler configuration scheme, when the
// command runs, before the operator starts.
type plugins struct {
	registry   frameworkruntime.Registry
	args       map[string]argsType
	validators map[string]argsValidator
	// schemes are the plugins' own registrations of their args types
	// (WithPluginScheme), run on upstream's scheme before args types are
	// registered.
	schemes []func(*runtime.Scheme) error
}

type argsValidator struct {
	validate pluginargs.Validator
	// typ is the args type the validator takes.
	typ reflect.Type
}

type argsType struct {
	obj      runtime.Object
	defaults func(runtime.Object)
}

func newPlugins() *plugins {
	return &plugins{
		registry:   frameworkruntime.Registry{},
		args:       map[string]argsType{},
		validators: map[string]argsValidator{},
	}
}

// WithPlugin adds an out-of-tree plugin: profiles enable it by name, as an
// in-tree one, and factory builds it for each framework (each generation of
// each profile that runs it). Its pluginConfig args reach factory as
// *runtime.Unknown, or, with WithPluginArgs, decoded into their type.
//
// Two plugins under one name, or a name of an in-tree plugin, make the
// command fail before the operator starts. A factory that returns an error
// or panics refuses the profile that enables the plugin (status names the
// plugin); the operator and its other profiles keep running.
func WithPlugin(name string, factory frameworkruntime.PluginFactory) Option {
	return func(p *plugins) error {
		if name == "" {
			return errors.New("WithPlugin: empty plugin name")
		}
		if factory == nil {
			return fmt.Errorf("plugin %q: nil factory", name)
		}
		if pluginargs.InTree(name) {
			return fmt.Errorf("plugin %q: an in-tree plugin is already registered under that name", name)
		}
		if _, ok := p.registry[name]; ok {
			return fmt.Errorf("plugin %q is registered twice", name)
		}
		p.registry[name] = factory
		return nil
	}
}

// WithPluginArgs gives the args of the plugin name a type: the simple route
// for a plugin of one args type. T is a pointer to a struct that embeds
// metav1.TypeMeta (`json:",inline"`) and implements runtime.Object
// (DeepCopyObject); it is registered as kind <name>Args of
// kubescheduler.config.k8s.io/v1 in upstream's scheduler configuration
// scheme, as in-tree args are. Then a pluginConfig entry for the plugin is
// decoded strictly (an unknown field or a value of the wrong type refuses
// the profile, naming the field), defaults (when not nil) fills in what is
// unset, also for a profile that runs the plugin without a pluginConfig
// entry, and the factory receives a T.
//
// A plugin written in upstream's convention (a versioned args type with
// JSON tags and SetDefaults_ functions, an internal type, and conversions,
// registered in upstream's scheme when its packages are imported, as
// kubernetes-sigs/scheduler-plugins' are) needs no WithPluginArgs: import
// its scheme package (or give its AddToScheme with WithPluginScheme) and
// its args decode, default and convert as in kube-scheduler; its factory
// receives the internal type. WithPluginArgs with either of its types is
// accepted and changes nothing (defaults must then be nil).
func WithPluginArgs[T runtime.Object](name string, defaults func(T)) Option {
	return func(p *plugins) error {
		t := reflect.TypeFor[T]()
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			return fmt.Errorf("plugin %q: args type %v is not a pointer to a struct", name, t)
		}
		if _, ok := p.args[name]; ok {
			return fmt.Errorf("plugin %q: args type is registered twice", name)
		}
		a := argsType{obj: reflect.New(t.Elem()).Interface().(T)}
		if defaults != nil {
			a.defaults = func(o runtime.Object) { defaults(o.(T)) }
		}
		p.args[name] = a
		return nil
	}
}

// WithPluginScheme registers a plugin's args types, conversions and
// defaults, written in upstream's convention, with addToScheme (the
// AddToScheme of its config packages): for a plugin whose packages do not
// add themselves to upstream's scheme when imported. A registration that
// panics (a kind registered twice with different types) stops the command
// with an error.
func WithPluginScheme(addToScheme func(*runtime.Scheme) error) Option {
	return func(p *plugins) error {
		if addToScheme == nil {
			return errors.New("WithPluginScheme: nil AddToScheme")
		}
		p.schemes = append(p.schemes, addToScheme)
		return nil
	}
}

// WithPluginArgsValidator checks the args of the plugin name after decoding
// and defaulting: a profile whose args it rejects is refused
// (InvalidPluginArgs) in status and, when the webhook runs, at admission.
// T is the type the plugin's factory receives: the type given with
// WithPluginArgs, or, for args in upstream's convention, the internal type.
// path is spec.pluginConfig[i].args; return field errors below it
// (field.ErrorList.ToAggregate()) so the message names the field, as
// upstream's validators do.
func WithPluginArgsValidator[T runtime.Object](name string, validate func(path *field.Path, args T) error) Option {
	return func(p *plugins) error {
		if validate == nil {
			return fmt.Errorf("plugin %q: nil args validator", name)
		}
		if _, ok := p.validators[name]; ok {
			return fmt.Errorf("plugin %q: args validator is registered twice", name)
		}
		p.validators[name] = argsValidator{
			typ: reflect.TypeFor[T](),
			validate: func(path *field.Path, args runtime.Object) error {
				typed, ok := args.(T)
				if !ok {
					return field.Invalid(path, fmt.Sprintf("%T", args), fmt.Sprintf("want args of type %v", reflect.TypeFor[T]()))
				}
				return validate(path, typed)
			},
		}
		return nil
	}
}

// apply runs the options and checks that they fit together.
func apply(opts []Option) (*plugins, error) {
	p := newPlugins()
	var errs []error
	for _, o := range opts {
		if err := o(p); err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range sortedKeys(p.args) {
		if _, ok := p.registry[name]; !ok {
			errs = append(errs, fmt.Errorf("plugin %q: args type given, but no plugin of that name (WithPlugin)", name))
		}
	}
	for _, name := range sortedKeys(p.validators) {
		if _, ok := p.registry[name]; !ok {
			errs = append(errs, fmt.Errorf("plugin %q: args validator given, but no plugin of that name (WithPlugin)", name))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("out-of-tree plugins: %w", errors.Join(errs...))
	}
	return p, nil
}

// register registers the plugins' schemes and args types with the
// scheduler configuration scheme, and checks that each validator takes the
// type its plugin's args decode into. It changes process-wide state, once
// per run of the command.
func (p *plugins) register() error {
	for _, add := range p.schemes {
		if err := pluginargs.AddScheme(add); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(p.args) {
		a := p.args[name]
		if err := pluginargs.Register(name, a.obj, a.defaults); err != nil {
			return err
		}
	}
	var errs []error
	for _, name := range sortedKeys(p.validators) {
		want := pluginargs.SchemeType(name)
		if want == nil {
			a, ok := p.args[name]
			if !ok {
				errs = append(errs, fmt.Errorf("plugin %q: args validator given without an args type: give one with WithPluginArgs, or import (or give with WithPluginScheme) the scheme that registers kind %sArgs", name, name))
				continue
			}
			want = reflect.TypeOf(a.obj)
		}
		if got := p.validators[name].typ; got != want {
			errs = append(errs, fmt.Errorf("plugin %q: args validator takes %v, but the plugin's args decode into %v", name, got, want))
		}
	}
	return errors.Join(errs...)
}

// validators are the args validators by plugin name, as the controllers
// take them.
func (p *plugins) argsValidators() map[string]pluginargs.Validator {
	out := make(map[string]pluginargs.Validator, len(p.validators))
	for name, v := range p.validators {
		out[name] = v.validate
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
