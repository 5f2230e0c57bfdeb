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

package stats

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	xs := []float64{9, 1, 8, 2, 7, 3, 6, 4, 5, 10}
	for _, tc := range []struct {
		p    float64
		want float64
	}{
		{p: 0, want: 1},
		{p: 10, want: 1},
		{p: 11, want: 2},
		{p: 50, want: 5},
		{p: 90, want: 9},
		{p: 99, want: 10},
		{p: 100, want: 10},
	} {
		if got := Percentile(xs, tc.p); got != tc.want {
			t.Errorf("Percentile(p=%v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if xs[0] != 9 {
		t.Errorf("Percentile sorted its input in place")
	}
	if got := Percentile([]float64(nil), 50); got != 0 {
		t.Errorf("Percentile(nil) = %v, want 0", got)
	}
	if got := Percentile([]float64{42}, 99); got != 42 {
		t.Errorf("Percentile(single) = %v, want 42", got)
	}
	ds := []time.Duration{30 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}
	if got := Percentile(ds, 50); got != 20*time.Millisecond {
		t.Errorf("Percentile(durations, 50) = %v, want 20ms", got)
	}
	if got := Percentile(ds, 99); got != 30*time.Millisecond {
		t.Errorf("Percentile(durations, 99) = %v, want 30ms", got)
	}
	if got := Percentile([]time.Duration(nil), 50); got != 0 {
		t.Errorf("Percentile(no durations) = %v, want 0", got)
	}
}

func TestSummarize(t *testing.T) {
	xs := make([]float64, 0, 100)
	for i := 100; i >= 1; i-- {
		xs = append(xs, float64(i))
	}
	s := Summarize(xs)
	want := Summary{N: 100, Avg: 50.5, P50: 50, P90: 90, P99: 99, Max: 100}
	if s != want {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
	if (Summarize(nil) != Summary{}) {
		t.Errorf("Summarize(nil) is not zero")
	}
}

func TestWindowThroughput(t *testing.T) {
	start := time.Unix(1000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	var events []time.Time
	// 10 events in [0,1s), 20 in [1s,2s), 5 in [2s,3s), then one at 3.5s
	// that ends the measurement inside a partial window.
	for i := range 10 {
		events = append(events, at(i*100))
	}
	for i := range 20 {
		events = append(events, at(1000+i*50))
	}
	for i := range 5 {
		events = append(events, at(2000+i*200))
	}
	events = append(events, at(3500))
	// An event before start is ignored.
	events = append(events, start.Add(-time.Second))

	tp := WindowThroughput(start, events, time.Second)
	if want := []float64{10, 20, 5}; !slices.Equal(tp.Windows, want) {
		t.Fatalf("windows = %v, want %v", tp.Windows, want)
	}
	if want := 36 / 3.5; math.Abs(tp.Average-want) > 1e-9 {
		t.Errorf("average = %v, want %v", tp.Average, want)
	}
	if tp.P50 != 10 || tp.P90 != 20 || tp.P99 != 20 {
		t.Errorf("percentiles = %v/%v/%v, want 10/20/20", tp.P50, tp.P90, tp.P99)
	}

	short := WindowThroughput(start, []time.Time{at(100), at(500)}, time.Second)
	if len(short.Windows) != 0 || short.Average != 4 || short.P50 != 4 {
		t.Errorf("sub-window measurement = %+v, want average 4 as the only sample", short)
	}
	if (WindowThroughput(start, nil, time.Second).Average) != 0 {
		t.Errorf("no events should give zero throughput")
	}
}

func TestLongestGap(t *testing.T) {
	from := time.Unix(0, 0)
	at := func(ms int) time.Time { return from.Add(time.Duration(ms) * time.Millisecond) }
	events := []time.Time{at(900), at(100), at(300), at(2500), at(-50), at(5000)}
	gap, where := LongestGap(from, at(3000), events)
	if gap != 1600*time.Millisecond || !where.Equal(at(900)) {
		t.Errorf("LongestGap = %v at %v, want 1.6s at 900ms", gap, where.Sub(from))
	}
	gap, _ = LongestGap(from, at(400), nil)
	if gap != 400*time.Millisecond {
		t.Errorf("LongestGap without events = %v, want the whole interval", gap)
	}
	// The tail after the last event counts.
	gap, where = LongestGap(from, at(2000), []time.Time{at(100)})
	if gap != 1900*time.Millisecond || !where.Equal(at(100)) {
		t.Errorf("tail gap = %v at %v, want 1.9s at 100ms", gap, where.Sub(from))
	}
}

func TestCompare(t *testing.T) {
	want := map[string]string{"a": "n1", "b": "n2", "c": "n3", "d": "n4", "e": ""}
	got := map[string]string{"a": "n1", "b": "n9", "c": "n3", "x": "n1"}
	a := Compare(want, got)
	if a != (Agreement{Compared: 3, Same: 2, Missing: 2}) {
		t.Errorf("Compare = %+v", a)
	}
	if s := a.Share(); math.Abs(s-2.0/3) > 1e-9 {
		t.Errorf("Share = %v", s)
	}
	if (Agreement{}).Share() != 0 {
		t.Errorf("empty Share should be 0")
	}
	full := Compare(want, map[string]string{"a": "n1", "b": "n2", "c": "n3", "d": "n4"})
	if full.Share() != 1 || full.Missing != 1 {
		t.Errorf("identical placements = %+v", full)
	}
}

func TestRatio(t *testing.T) {
	if Ratio(3, 2) != 1.5 || Ratio(1, 0) != 0 {
		t.Errorf("Ratio wrong")
	}
}

func TestGapsAfter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms ...int) []time.Time {
		var out []time.Time
		for _, m := range ms {
			out = append(out, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return out
	}
	// Binds every 100 ms, except 950→1600 (after the change at 1000) and
	// none between the change at 3000 and the end at 4000.
	var binds []int
	for m := 0; m <= 2900; m += 100 {
		if m < 1000 || m >= 1600 {
			binds = append(binds, m)
		}
	}
	binds = append(binds, 950)
	changes := at(1000, 2000, 3000)
	got := GapsAfter(changes, t0.Add(4*time.Second), at(binds...))
	want := []time.Duration{650 * time.Millisecond, 100 * time.Millisecond, 1100 * time.Millisecond}
	if len(got) != len(want) {
		t.Fatalf("GapsAfter = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("gap after change %d = %v, want %v", i, got[i], want[i])
		}
	}
	// No event at all: each change's whole interval.
	got = GapsAfter(at(0, 500), t0.Add(time.Second), nil)
	if got[0] != 500*time.Millisecond || got[1] != 500*time.Millisecond {
		t.Errorf("GapsAfter without events = %v", got)
	}
	// The last event before a change counts only when it came after the
	// previous change.
	got = GapsAfter(at(100, 500), t0.Add(600*time.Millisecond), at(0, 550))
	if got[0] != 500*time.Millisecond || got[1] != 50*time.Millisecond {
		t.Errorf("GapsAfter = %v, want [500ms 50ms]", got)
	}
}
