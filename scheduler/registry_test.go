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
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

type namedPlugin string

func (p namedPlugin) Name() string { return string(p) }

func TestNewRegistry(t *testing.T) {
	ok := func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return namedPlugin("Mine"), nil }
	boom := func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { panic("boom") }
	fails := func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
		return nil, errors.New("no luck")
	}

	t.Run("out-of-tree plugins join the in-tree ones", func(t *testing.T) {
		g := NewWithT(t)
		r, err := newRegistry(frameworkruntime.Registry{"Mine": ok})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(r).To(HaveKey("Mine"))
		g.Expect(r).To(HaveKey("NodeResourcesFit"))
		p, err := r["Mine"](context.Background(), nil, nil)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(p.Name()).To(Equal("Mine"))
	})
	t.Run("a name of an in-tree plugin is refused", func(t *testing.T) {
		g := NewWithT(t)
		_, err := newRegistry(frameworkruntime.Registry{"Mine": ok, "NodeAffinity": ok})
		g.Expect(err).To(MatchError(`out-of-tree plugin "NodeAffinity": an in-tree plugin has that name`))
	})
	t.Run("a nil factory is refused", func(t *testing.T) {
		g := NewWithT(t)
		_, err := newRegistry(frameworkruntime.Registry{"Mine": nil})
		g.Expect(err).To(MatchError(`out-of-tree plugin "Mine": nil factory`))
	})
	t.Run("a factory that panics returns an error naming its plugin", func(t *testing.T) {
		g := NewWithT(t)
		r, err := newRegistry(frameworkruntime.Registry{"Boom": boom})
		g.Expect(err).NotTo(HaveOccurred())
		var p fwk.Plugin
		g.Expect(func() { p, err = r["Boom"](context.Background(), nil, nil) }).NotTo(Panic())
		g.Expect(p).To(BeNil())
		g.Expect(err).To(MatchError("plugin Boom panicked while being built: boom"))
	})
	t.Run("a factory's error is returned as is", func(t *testing.T) {
		g := NewWithT(t)
		r, err := newRegistry(frameworkruntime.Registry{"Fails": fails})
		g.Expect(err).NotTo(HaveOccurred())
		_, err = r["Fails"](context.Background(), nil, nil)
		g.Expect(err).To(MatchError("no luck"))
	})
}
