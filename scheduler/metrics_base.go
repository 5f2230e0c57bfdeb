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

import "sync"

// What every file that declares metrics shares. Each file declares its own
// metrics beside the code that updates them and lists them in a
// ...Collectors function; registerMetrics (metrics.go) registers them all.

// metricsPrefix selects the upstream scheduler metrics in the legacy
// registry (which also holds client-go and process metrics that
// controller-runtime already exports).
const metricsPrefix = "scheduler_"

// operatorMetricsNamespace prefixes the metrics of this project.
const operatorMetricsNamespace = "profile_scheduler"

// liveSet is a set of the live parts of this process's schedulers that a
// metric read at scrape time sums over (one scheduler in the operator;
// tests run several).
type liveSet[T comparable] struct {
	// mu guards m; a leaf lock, held while a scrape sums over m.
	mu sync.Mutex
	m  map[T]struct{}
}

func newLiveSet[T comparable]() *liveSet[T] { return &liveSet[T]{m: map[T]struct{}{}} }

func (l *liveSet[T]) add(t T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[t] = struct{}{}
}

func (l *liveSet[T]) remove(t T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, t)
}

// each calls f on every member, under the set's lock.
func (l *liveSet[T]) each(f func(T)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for t := range l.m {
		f(t)
	}
}
