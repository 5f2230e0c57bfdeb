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
	"io"
	"sync"

	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// profileMap is the live set, keyed by schedulerName. A published map is
// never modified; Apply and Remove publish a new one.
type profileMap map[string]*liveProfile

// liveProfile is one built framework and its lifetime.
//
// State machine: serving (in the map) → retired (out of the map, refs may
// be > 0: cycles and bindings still running on it) → closed (refs reached 0:
// plugins closed, context cancelled, informer handlers removed). mu is a
// leaf lock: nothing else is taken while it is held (close runs after it is
// released).
type liveProfile struct {
	fw framework.Framework
	// check runs the fit-judging Filter plugins just before a bind
	// (bindcheck.go); nil when the profile enables none.
	check   *bindCheck
	applied Applied
	// profile it was built from (reviews build their own framework from
	// it, once per generation, and attach it).
	profile   Profile
	events    []fwk.ClusterEvent
	cancel    context.CancelFunc
	informers *frameworkInformers
	// stats count the generation's outcomes for a rollout's analysis.
	stats *generationStats

	// mu guards refs, retired and closed; a leaf lock.
	mu      sync.Mutex
	refs    int
	retired bool
	closed  bool

	// attachedMu guards attached, what work beside the cycle attached to
	// this generation (Generation.Attach: the framework the reviews of the
	// generation share), closed with the profile. It is a leaf lock;
	// nothing is built or closed while it is held.
	attachedMu     sync.Mutex
	attached       io.Closer
	attachedClosed bool
}

// attachment returns what is attached to this generation, nil if nothing.
func (p *liveProfile) attachment() io.Closer {
	p.attachedMu.Lock()
	defer p.attachedMu.Unlock()
	return p.attached
}

// attach attaches c to this generation and closes what it replaces. It
// returns false, keeping nothing, once the profile is closed.
func (p *liveProfile) attach(c io.Closer) bool {
	p.attachedMu.Lock()
	if p.attachedClosed {
		p.attachedMu.Unlock()
		return false
	}
	old := p.attached
	p.attached = c
	p.attachedMu.Unlock()
	if old != nil {
		closeAttached(klog.Background(), old)
	}
	return true
}

// closeAttached closes what was attached to a generation.
func closeAttached(logger klog.Logger, c io.Closer) {
	if err := c.Close(); err != nil {
		logger.Error(err, "Closing what was attached to a profile failed")
	}
}

// acquire takes a reference for a cycle; it fails once the profile retired.
func (p *liveProfile) acquire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.retired {
		return false
	}
	p.refs++
	return true
}

// addRef takes one more reference for a caller that holds one already
// (a pod group's cycle, for each member's binding cycle).
func (p *liveProfile) addRef() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refs++
}

func (p *liveProfile) release(logger klog.Logger) {
	p.mu.Lock()
	p.refs--
	closeNow := p.retired && p.refs == 0 && !p.closed
	if closeNow {
		p.closed = true
	}
	p.mu.Unlock()
	if closeNow {
		p.close(logger)
	}
}

// retire takes the profile out of service; it is closed when the last
// reference is released (now, if there is none).
func (p *liveProfile) retire(logger klog.Logger) {
	p.mu.Lock()
	p.retired = true
	closeNow := p.refs == 0 && !p.closed
	if closeNow {
		p.closed = true
	}
	p.mu.Unlock()
	if closeNow {
		p.close(logger)
	}
}

func (p *liveProfile) close(logger klog.Logger) {
	if err := p.fw.Close(); err != nil {
		logger.Error(err, "Closing plugins failed", "profile", p.applied.SchedulerName)
	}
	if err := p.check.close(); err != nil {
		logger.Error(err, "Closing the bind check's plugins failed", "profile", p.applied.SchedulerName)
	}
	p.cancel()
	p.informers.removeHandlers()
	p.attachedMu.Lock()
	attached := p.attached
	p.attached, p.attachedClosed = nil, true
	p.attachedMu.Unlock()
	if attached != nil {
		closeAttached(logger, attached)
	}
	logger.V(2).Info("Framework closed", "profile", p.applied.SchedulerName)
}

// Generation is a reference on the generation of a profile serving now,
// taken as a scheduling cycle takes one: a swap or removal retires the
// generation, and it is closed, with what was attached to it, once its
// last reference is released.
type Generation struct{ lp *liveProfile }

// Release gives the reference back.
func (g *Generation) Release(ctx context.Context) { g.lp.release(klog.FromContext(ctx)) }

// Profile is the profile the generation was built from.
func (g *Generation) Profile() Profile { return g.lp.profile }

// SchedulerName is the schedulerName the generation serves.
func (g *Generation) SchedulerName() string { return g.lp.applied.SchedulerName }

// Attached is what Attach attached to the generation, nil if nothing.
func (g *Generation) Attached() io.Closer { return g.lp.attachment() }

// Attach attaches c to the generation, to be closed with it, and closes
// what c replaces. It returns false, attaching nothing, once the
// generation is closed.
func (g *Generation) Attach(c io.Closer) bool { return g.lp.attach(c) }
