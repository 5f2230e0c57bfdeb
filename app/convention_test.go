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
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	configv1 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1"
)

// Args written in upstream's convention, as scheduler-plugins writes them:
// a versioned type with JSON tags and pointers for defaulting, an internal
// type the plugin works with, conversion and defaulting functions, all
// registered by an AddToScheme of the plugin's own.

type windowArgsV1 struct {
	metav1.TypeMeta `json:",inline"`
	// WindowSeconds defaults to 30.
	WindowSeconds *int64  `json:"windowSeconds,omitempty"`
	Label         *string `json:"label,omitempty"`
}

func (a *windowArgsV1) DeepCopyObject() runtime.Object {
	c := *a
	return &c
}

type windowArgs struct {
	metav1.TypeMeta
	Window time.Duration
	Label  string
}

func (a *windowArgs) DeepCopyObject() runtime.Object {
	c := *a
	return &c
}

// windowScheme registers kind <name>Args in upstream's convention.
func windowScheme(name string) func(*runtime.Scheme) error {
	return func(s *runtime.Scheme) error {
		s.AddKnownTypeWithName(configv1.SchemeGroupVersion.WithKind(name+"Args"), &windowArgsV1{})
		s.AddKnownTypeWithName(config.SchemeGroupVersion.WithKind(name+"Args"), &windowArgs{})
		s.AddTypeDefaultingFunc(&windowArgsV1{}, func(o any) {
			a := o.(*windowArgsV1)
			if a.WindowSeconds == nil {
				a.WindowSeconds = new(int64(30))
			}
		})
		if err := s.AddConversionFunc((*windowArgsV1)(nil), (*windowArgs)(nil), func(a, b any, _ conversion.Scope) error {
			in, out := a.(*windowArgsV1), b.(*windowArgs)
			if in.WindowSeconds != nil {
				out.Window = time.Duration(*in.WindowSeconds) * time.Second
			}
			if in.Label != nil {
				out.Label = *in.Label
			}
			return nil
		}); err != nil {
			return err
		}
		return s.AddConversionFunc((*windowArgs)(nil), (*windowArgsV1)(nil), func(a, b any, _ conversion.Scope) error {
			in, out := a.(*windowArgs), b.(*windowArgsV1)
			out.WindowSeconds = new(int64(in.Window / time.Second))
			out.Label = &in.Label
			return nil
		})
	}
}

// unconvertedV1 and unconverted are args types whose scheme registers no
// conversion (conversions are registered per pair of Go types, process-wide:
// these are used by no other test).
type unconvertedV1 struct {
	metav1.TypeMeta `json:",inline"`
	N               *int64 `json:"n,omitempty"`
}

func (a *unconvertedV1) DeepCopyObject() runtime.Object { c := *a; return &c }

type unconverted struct {
	metav1.TypeMeta
	N int64
}

func (a *unconverted) DeepCopyObject() runtime.Object { c := *a; return &c }

func unconvertedScheme(name string) func(*runtime.Scheme) error {
	return func(s *runtime.Scheme) error {
		s.AddKnownTypeWithName(configv1.SchemeGroupVersion.WithKind(name+"Args"), &unconvertedV1{})
		s.AddKnownTypeWithName(config.SchemeGroupVersion.WithKind(name+"Args"), &unconverted{})
		return nil
	}
}

func validateWindow(path *field.Path, a *windowArgs) error {
	if a.Window > time.Hour {
		return field.Invalid(path.Child("windowSeconds"), int64(a.Window/time.Second), "must be at most 3600")
	}
	return nil
}

func validateWindowV1(path *field.Path, a *windowArgsV1) error { return nil }

// registerOnly runs the options as the command does up to the operator's
// start.
func registerOnly(opts ...Option) (*plugins, error) {
	p, err := apply(opts)
	if err != nil {
		return nil, err
	}
	return p, p.register()
}

// decodeArgs decodes a profile's pluginConfig entry as the controllers do
// (upstream's decoder: strict, defaulted, converted to the internal type).
func decodeArgs(t *testing.T, name, args string) (runtime.Object, error) {
	t.Helper()
	doc := fmt.Sprintf(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profiles":[{"schedulerName":"s","pluginConfig":[{"name":%q,"args":%s}]}]}`, name, args)
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode([]byte(doc), nil, nil)
	if err != nil {
		return nil, err
	}
	return obj.(*config.KubeSchedulerConfiguration).Profiles[0].PluginConfig[0].Args, nil
}

func TestArgsInUpstreamConvention(t *testing.T) {
	g := NewWithT(t)
	const name = "WindowPlugin"
	p, err := registerOnly(
		WithPlugin(name, newNothing),
		WithPluginScheme(windowScheme(name)),
		WithPluginArgs[*windowArgsV1](name, nil), // accepted, changes nothing
		WithPluginArgsValidator(name, validateWindow),
	)
	g.Expect(err).NotTo(HaveOccurred())

	// Decoding the YAML the plugin documents, with its defaults, into the internal type.
	args, err := decodeArgs(t, name, `{"label":"x"}`)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(args).To(Equal(&windowArgs{Window: 30 * time.Second, Label: "x"}))

	// Refusing unknown fields, as upstream's decoder does.
	_, err = decodeArgs(t, name, `{"windowSecondz":5}`)
	g.Expect(err).To(MatchError(ContainSubstring(`unknown field "windowSecondz"`)))

	// Validating the internal type.
	args, err = decodeArgs(t, name, `{"windowSeconds":7200}`)
	g.Expect(err).NotTo(HaveOccurred())
	verr := p.argsValidators()[name](field.NewPath("spec", "pluginConfig").Index(0).Child("args"), args)
	g.Expect(verr).To(MatchError(`spec.pluginConfig[0].args.windowSeconds: Invalid value: 7200: must be at most 3600`))
}

func TestArgsInUpstreamConventionRefusedAtStart(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(name string) []Option
		want string
	}{{
		name: "a validator of the versioned type",
		opts: func(n string) []Option {
			return []Option{WithPlugin(n, newNothing), WithPluginScheme(windowScheme(n)), WithPluginArgsValidator(n, validateWindowV1)}
		},
		want: "args validator takes *app.windowArgsV1, but the plugin's args decode into *app.windowArgs",
	}, {
		name: "a validator for no plugin",
		opts: func(n string) []Option {
			return []Option{WithPluginScheme(windowScheme(n)), WithPluginArgsValidator(n, validateWindow)}
		},
		want: "args validator given, but no plugin of that name",
	}, {
		name: "a validator without any args type",
		opts: func(n string) []Option {
			return []Option{WithPlugin(n, newNothing), WithPluginArgsValidator(n, validateWindow)}
		},
		want: "args validator given without an args type",
	}, {
		name: "a versioned type without conversion",
		opts: func(n string) []Option {
			return []Option{WithPlugin(n, newNothing), WithPluginScheme(unconvertedScheme(n)), WithPluginArgs[*unconvertedV1](n, nil)}
		},
		want: "does not convert to its internal type",
	}, {
		name: "defaults for args the scheme defaults",
		opts: func(n string) []Option {
			return []Option{WithPlugin(n, newNothing), WithPluginScheme(windowScheme(n)), WithPluginArgs(n, func(*windowArgsV1) {})}
		},
		want: "registered by the plugin's scheme",
	}, {
		name: "a scheme that registers a kind twice with another type",
		opts: func(n string) []Option {
			return []Option{WithPlugin(n, newNothing), WithPluginScheme(windowScheme(n)), WithPluginScheme(func(s *runtime.Scheme) error {
				s.AddKnownTypeWithName(configv1.SchemeGroupVersion.WithKind(n+"Args"), &testArgs{})
				return nil
			})}
		},
		want: "Double registration",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			// A kind of its own per case: the scheme is process-wide.
			n := "Window" + strings.NewReplacer(" ", "", "-", "").Replace(tc.name)
			_, err := registerOnly(tc.opts(n)...)
			g.Expect(err).To(MatchError(ContainSubstring(tc.want)))
			g.Expect(err.Error()).To(ContainSubstring(n))
		})
	}
}
