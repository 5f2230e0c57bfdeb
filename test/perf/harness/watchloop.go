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

package harness

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// newWatchLoop is a loop not yet running (run starts it).
func newWatchLoop() watchLoop { return watchLoop{changed: make(chan struct{})} }

// watchLoop is what the harness's watches (Recorder, reviewWatch) share:
// a goroutine that hands each event of a watch to its owner until the
// watch is stopped or ends, the reason it ended early, and a channel
// closed whenever the owner changed what waiters look at.
type watchLoop struct {
	// mu guards err, changed and the owner's own state.
	mu      sync.Mutex
	changed chan struct{}
	err     error
	cancel  context.CancelFunc
	done    chan struct{}
}

// run hands each event of w, with the time it came, to handle until
// ctx (which cancel ends) is done or w ends; an Error event or an end
// before cancel is kept as err. what names the watch in those errors.
func (l *watchLoop) run(ctx context.Context, cancel context.CancelFunc, w watch.Interface, what string, handle func(watch.Event, time.Time)) {
	l.cancel, l.done = cancel, make(chan struct{})
	go func() {
		defer close(l.done)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				now := time.Now()
				if !ok {
					l.mu.Lock()
					if ctx.Err() == nil && l.err == nil {
						l.err = fmt.Errorf("%s ended", what)
					}
					l.mu.Unlock()
					return
				}
				if ev.Type == watch.Error {
					l.mu.Lock()
					l.err = fmt.Errorf("%s: %v", what, ev.Object)
					l.mu.Unlock()
					return
				}
				handle(ev, now)
			}
		}
	}()
}

// notify wakes every waiter; l.mu is held.
func (l *watchLoop) notify() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// stop ends the watch and waits for its goroutine.
func (l *watchLoop) stop() {
	l.cancel()
	<-l.done
}

// Err is the reason the watch ended early, if it did.
func (l *watchLoop) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
