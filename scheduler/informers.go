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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/core"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/informers/resource"
	"k8s.io/client-go/informers/scheduling"
	"k8s.io/client-go/informers/storage"
	"k8s.io/client-go/tools/cache"
)

// frameworkInformers is the informer factory one framework sees. Plugins
// register event handlers and indexers on shared informers when they are
// built, and upstream never removes them because upstream builds each
// framework once. Here frameworks are rebuilt on every swap, so this view:
//   - records every handler a plugin adds, and removes them all when the
//     framework is closed (no goroutine or memory left per swap);
//   - makes AddIndexers idempotent per index name (a rebuilt plugin adds the
//     same index again, which the informer would refuse).
//
// Everything else goes to the shared factory.
type frameworkInformers struct {
	informers.SharedInformerFactory

	// mu guards the handlers registered through this view; a leaf lock.
	mu      sync.Mutex
	regs    []trackedRegistration
	removed bool
}

type trackedRegistration struct {
	informer cache.SharedIndexInformer
	reg      cache.ResourceEventHandlerRegistration
}

func newFrameworkInformers(f informers.SharedInformerFactory) *frameworkInformers {
	return &frameworkInformers{SharedInformerFactory: f}
}

// InformerFor wraps the shared informer so handler registrations are tracked.
func (f *frameworkInformers) InformerFor(obj runtime.Object, newFunc internalinterfaces.NewInformerFunc) cache.SharedIndexInformer {
	return &trackedInformer{SharedIndexInformer: f.SharedInformerFactory.InformerFor(obj, newFunc), owner: f}
}

// Core returns the core group through this view.
func (f *frameworkInformers) Core() core.Interface { return core.New(f, "", nil) }

// Storage returns the storage group through this view.
func (f *frameworkInformers) Storage() storage.Interface { return storage.New(f, "", nil) }

// Resource returns the resource group through this view.
func (f *frameworkInformers) Resource() resource.Interface { return resource.New(f, "", nil) }

// Scheduling returns the scheduling group through this view.
func (f *frameworkInformers) Scheduling() scheduling.Interface { return scheduling.New(f, "", nil) }

func (f *frameworkInformers) track(i cache.SharedIndexInformer, reg cache.ResourceEventHandlerRegistration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.removed {
		_ = i.RemoveEventHandler(reg)
		return
	}
	f.regs = append(f.regs, trackedRegistration{informer: i, reg: reg})
}

// removeHandlers removes every handler registered through this view.
func (f *frameworkInformers) removeHandlers() {
	f.mu.Lock()
	regs := f.regs
	f.regs = nil
	f.removed = true
	f.mu.Unlock()
	for _, r := range regs {
		_ = r.informer.RemoveEventHandler(r.reg)
	}
}

type trackedInformer struct {
	cache.SharedIndexInformer
	owner *frameworkInformers
}

func (i *trackedInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	reg, err := i.SharedIndexInformer.AddEventHandler(h)
	if err == nil {
		i.owner.track(i.SharedIndexInformer, reg)
	}
	return reg, err
}

func (i *trackedInformer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, resync time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	reg, err := i.SharedIndexInformer.AddEventHandlerWithResyncPeriod(h, resync)
	if err == nil {
		i.owner.track(i.SharedIndexInformer, reg)
	}
	return reg, err
}

func (i *trackedInformer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, o cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	reg, err := i.SharedIndexInformer.AddEventHandlerWithOptions(h, o)
	if err == nil {
		i.owner.track(i.SharedIndexInformer, reg)
	}
	return reg, err
}

// AddIndexers adds only the indexers whose names are not there yet.
func (i *trackedInformer) AddIndexers(indexers cache.Indexers) error {
	existing := i.GetIndexer().GetIndexers()
	missing := cache.Indexers{}
	for name, fn := range indexers {
		if _, ok := existing[name]; !ok {
			missing[name] = fn
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return i.SharedIndexInformer.AddIndexers(missing)
}
