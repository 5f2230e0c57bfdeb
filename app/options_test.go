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
	"bytes"
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	fwk "k8s.io/kube-scheduler/framework"
)

type testArgs struct {
	metav1.TypeMeta `json:",inline"`
	Level           int `json:"level"`
}

func (a *testArgs) DeepCopyObject() runtime.Object { c := *a; return &c }

type otherArgs struct {
	metav1.TypeMeta `json:",inline"`
}

func (a *otherArgs) DeepCopyObject() runtime.Object { c := *a; return &c }

func newNothing(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return nil, nil }

func validateTestArgs(path *field.Path, a *testArgs) error {
	if a.Level < 0 {
		return field.Invalid(path.Child("level"), a.Level, "must not be negative")
	}
	return nil
}

// TestCommandRefusesBadOptions runs the command: options that do not fit
// together stop it before it reads a kubeconfig or starts anything, with a
// message naming the plugin.
func TestCommandRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want []string
	}{{
		name: "two plugins under one name",
		opts: []Option{WithPlugin("Mine", newNothing), WithPlugin("Mine", newNothing)},
		want: []string{`plugin "Mine" is registered twice`},
	}, {
		name: "the name of an in-tree plugin",
		opts: []Option{WithPlugin("NodeResourcesFit", newNothing)},
		want: []string{`plugin "NodeResourcesFit"`, "in-tree"},
	}, {
		name: "empty name",
		opts: []Option{WithPlugin("", newNothing)},
		want: []string{"empty plugin name"},
	}, {
		name: "nil factory",
		opts: []Option{WithPlugin("Mine", nil)},
		want: []string{`plugin "Mine": nil factory`},
	}, {
		name: "args for no plugin",
		opts: []Option{WithPluginArgs[*testArgs]("Ghost", nil)},
		want: []string{`plugin "Ghost": args type given, but no plugin of that name`},
	}, {
		name: "validator without args type",
		opts: []Option{WithPlugin("Mine", newNothing), WithPluginArgsValidator("Mine", validateTestArgs)},
		want: []string{`plugin "Mine": args validator given without an args type`},
	}, {
		name: "two args types for one plugin",
		opts: []Option{WithPlugin("Mine", newNothing), WithPluginArgs[*testArgs]("Mine", nil), WithPluginArgs[*otherArgs]("Mine", nil)},
		want: []string{`plugin "Mine": args type is registered twice`},
	}, {
		name: "every error at once",
		opts: []Option{WithPlugin("A", newNothing), WithPlugin("A", newNothing), WithPlugin("InterPodAffinity", newNothing)},
		want: []string{`plugin "A" is registered twice`, `plugin "InterPodAffinity"`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			cmd := NewCommand(tc.opts...)
			// A kubeconfig that does not exist: the run would fail on it if
			// it got that far.
			cmd.SetArgs([]string{"--kubeconfig=/nonexistent/kubeconfig"})
			err := cmd.Execute()
			g.Expect(err).To(HaveOccurred())
			for _, w := range tc.want {
				g.Expect(err.Error()).To(ContainSubstring(w))
			}
			g.Expect(err.Error()).NotTo(ContainSubstring("nonexistent"))
		})
	}
}

func TestCommandVersion(t *testing.T) {
	g := NewWithT(t)
	cmd := NewCommand(WithPlugin("Mine", newNothing))
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--version"})
	g.Expect(cmd.Execute()).To(Succeed())
	g.Expect(out.String()).To(HavePrefix("profile-scheduler "))
	g.Expect(strings.TrimSpace(out.String())).To(MatchRegexp(`\(kube-scheduler [^)]+\)$`))
}

func TestCommandRefusesArguments(t *testing.T) {
	g := NewWithT(t)
	cmd := NewCommand()
	cmd.SetArgs([]string{"stray"})
	g.Expect(cmd.Execute()).To(MatchError(ContainSubstring("unknown command")))
}
