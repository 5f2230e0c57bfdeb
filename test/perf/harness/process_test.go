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
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// openSockets counts this process's sockets: one more listener is one
// more; watchSockets reports the peak while it ran.
func TestOpenSockets(t *testing.T) {
	// The count is the process's: a socket another test left closing
	// (a keep-alive connection) may go between two counts. Such an
	// attempt is made again; a wrong count every time fails.
	var err error
	for range 5 {
		if err = countThreeListeners(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Error(err)
}

// countThreeListeners opens 3 listeners and checks that openSockets and
// watchSockets count them.
func countThreeListeners() error {
	before, err := openSockets(os.Getpid())
	if err != nil {
		return err
	}
	stop := watchSockets(os.Getpid(), time.Hour)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range 3 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			stop()
			return err
		}
		ls = append(ls, l)
	}
	now, err := openSockets(os.Getpid())
	if err != nil {
		stop()
		return err
	}
	// stop samples once more, with the listeners still open.
	peak := stop()
	if now != before+3 {
		return fmt.Errorf("with 3 more listeners, %d sockets, want %d", now, before+3)
	}
	if peak < before+3 {
		return fmt.Errorf("peak %d sockets, want at least %d", peak, before+3)
	}
	return nil
}

func TestWriteLatenciesInBindOrder(t *testing.T) {
	t0 := time.Unix(100, 0)
	st := StepStats{
		BindTimes: []time.Time{t0.Add(2 * time.Second), t0.Add(500 * time.Millisecond)},
		BoundPods: []string{"p-1", "p-0"},
		Latencies: []time.Duration{40 * time.Millisecond, 2500 * time.Microsecond},
	}
	path := filepath.Join(t.TempDir(), "l.csv")
	if err := writeLatencies(path, t0, st); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "pod,bound_at,bound_s,latency_ms\np-0,00:01:40.500000,0.500,2.5\np-1,00:01:42.000000,2.000,40.0\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestStallSecondsCountsBurstsOfCreations(t *testing.T) {
	t0 := time.Unix(100, 0)
	var seen []time.Time
	// 80 pods/s for 5 s, steady: no stall.
	for i := range 400 {
		seen = append(seen, t0.Add(time.Duration(i)*12500*time.Microsecond))
	}
	if got := stallSeconds(seen, t0); got != 0 {
		t.Fatalf("steady creations: %d stall seconds, want 0", got)
	}
	// Two bunches in second 2 and one in second 4, each of BurstSize
	// within a millisecond; three at once is no burst.
	for _, at := range []time.Duration{2100 * time.Millisecond, 2700 * time.Millisecond, 4300 * time.Millisecond} {
		for i := range BurstSize {
			seen = append(seen, t0.Add(at+time.Duration(i)*200*time.Microsecond))
		}
	}
	for i := range BurstSize - 2 {
		seen = append(seen, t0.Add(3500*time.Millisecond+time.Duration(i)*100*time.Microsecond))
	}
	if got := stallSeconds(seen, t0); got != 2 {
		t.Errorf("got %d stall seconds, want 2 (seconds 2 and 4)", got)
	}
}
