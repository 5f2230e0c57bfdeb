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
	"sync"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"

	"github.com/profile-scheduler/profile-scheduler/scheduler/queue"
)

// watcher keeps, for each resource a profile's plugins react to, one
// informer handler that offers its changes to the queue (the queueing
// hints decide what moves). Handlers, once added, stay: the set of
// resource kinds is small and fixed.
type watcher struct {
	// ctx is the scheduler's lifetime, the context of the queue's moves.
	ctx             context.Context
	informerFactory informers.SharedInformerFactory
	queue           *queue.Queue
	// dra holds DRA's claim cache and slice tracker when DRA is on.
	dra *draHandles

	// mu guards watched and handlers. It is never held with the
	// builder's lock.
	mu       sync.Mutex
	watched  map[fwk.EventResource]bool
	handlers []cache.ResourceEventHandlerRegistration
}

// draHandles are DRA's informer-side pieces the watcher adds handlers to.
type draHandles struct {
	manager      *dynamicresources.DefaultDRAManager
	claimCache   *assumecache.AssumeCache
	sliceTracker *resourceslicetracker.Tracker
}

// synced returns the HasSynced of every handler added so far.
func (w *watcher) synced() []cache.InformerSynced {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]cache.InformerSynced, 0, len(w.handlers))
	for _, h := range w.handlers {
		out = append(out, h.HasSynced)
	}
	return out
}

// hasSynced reports whether every handler added so far has synced.
func (w *watcher) hasSynced() bool {
	for _, synced := range w.synced() {
		if !synced() {
			return false
		}
	}
	return true
}

// watch makes sure the informers for the resources named by events have a
// handler that offers their changes to the queue. Handlers, once added,
// stay: the set of resource kinds is small and fixed.
func (w *watcher) watch(ctx context.Context, events []fwk.ClusterEvent) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	logger := klog.FromContext(ctx)
	for _, e := range events {
		r := e.Resource
		switch r {
		case fwk.AssignedPod, fwk.UnscheduledPod, fwk.TargetPod:
			r = fwk.Pod
		}
		if w.watched[r] {
			continue
		}
		reg, err := w.addResourceHandler(r)
		if err != nil {
			return fmt.Errorf("watching %s: %w", r, err)
		}
		w.watched[r] = true
		if reg != nil {
			w.handlers = append(w.handlers, reg)
		} else {
			logger.V(2).Info("Events of this resource are not watched", "resource", r)
		}
	}
	return nil
}

func (w *watcher) resourceHandler(r fwk.EventResource) cache.ResourceEventHandlerFuncs {
	ctx := w.ctx
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			w.queue.MoveAllToActiveOrBackoffQueue(ctx, fwk.ClusterEvent{Resource: r, ActionType: fwk.Add}, nil, obj, nil)
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			w.queue.MoveAllToActiveOrBackoffQueue(ctx, fwk.ClusterEvent{Resource: r, ActionType: fwk.Update}, oldObj, newObj, nil)
		},
		DeleteFunc: func(obj interface{}) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			w.queue.MoveAllToActiveOrBackoffQueue(ctx, fwk.ClusterEvent{Resource: r, ActionType: fwk.Delete}, obj, nil, nil)
		},
	}
}

// addResourceHandler registers the queue handler for r; it returns a nil
// registration for resources the scheduler does not watch.
func (w *watcher) addResourceHandler(r fwk.EventResource) (cache.ResourceEventHandlerRegistration, error) {
	f := w.informerFactory
	h := w.resourceHandler(r)
	dra := utilfeature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) && w.dra != nil
	switch r {
	case fwk.CSINode:
		return f.Storage().V1().CSINodes().Informer().AddEventHandler(h)
	case fwk.CSIDriver:
		return f.Storage().V1().CSIDrivers().Informer().AddEventHandler(h)
	case fwk.CSIStorageCapacity:
		return f.Storage().V1().CSIStorageCapacities().Informer().AddEventHandler(h)
	case fwk.PersistentVolume:
		return f.Core().V1().PersistentVolumes().Informer().AddEventHandler(h)
	case fwk.PersistentVolumeClaim:
		return f.Core().V1().PersistentVolumeClaims().Informer().AddEventHandler(h)
	case fwk.StorageClass:
		return f.Storage().V1().StorageClasses().Informer().AddEventHandler(h)
	case fwk.VolumeAttachment:
		return f.Storage().V1().VolumeAttachments().Informer().AddEventHandler(h)
	case fwk.ResourceClaim:
		if dra {
			return w.dra.claimCache.AddEventHandler(h), nil
		}
	case fwk.ResourceSlice:
		if dra {
			return w.dra.sliceTracker.AddEventHandler(h)
		}
	case fwk.DeviceClass:
		if dra {
			var handler cache.ResourceEventHandler = h
			if utilfeature.DefaultFeatureGate.Enabled(features.DRAExtendedResource) {
				// The extended resource cache must see a device class
				// before the queue reacts to it.
				if erCache, ok := w.dra.manager.DeviceClassResolver().(*extendedresourcecache.ExtendedResourceCache); ok {
					erCache.AddEventHandler(handler)
					handler = erCache
				}
			}
			return f.Resource().V1().DeviceClasses().Informer().AddEventHandler(handler)
		}
	}
	return nil, nil
}
