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
	"cmp"
	"math"
	"slices"
	"sort"
	"time"
)

// Percentile returns the p-th percentile (0 < p <= 100) of xs by the
// nearest-rank method, the one scheduler_perf uses: the value at index
// ceil(len*p/100)-1 of the sorted samples. It returns the zero value for no
// samples. xs (milliseconds, durations, counts) is not modified.
func Percentile[T cmp.Ordered](xs []T, p float64) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return percentileSorted(s, p)
}

func percentileSorted[T cmp.Ordered](s []T, p float64) T {
	if p <= 0 {
		return s[0]
	}
	i := int(math.Ceil(float64(len(s))*p/100)) - 1
	i = max(0, min(i, len(s)-1))
	return s[i]
}

// Summary describes a set of samples.
type Summary struct {
	N   int     `json:"n"`
	Avg float64 `json:"avg"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Summarize returns the count, mean, p50/p90/p99 and maximum of xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Summary{
		N:   len(s),
		Avg: sum / float64(len(s)),
		P50: percentileSorted(s, 50),
		P90: percentileSorted(s, 90),
		P99: percentileSorted(s, 99),
		Max: s[len(s)-1],
	}
}

// Durations converts durations to milliseconds, the unit reports use.
func Durations(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}

// Throughput is the rate of events (pods bound) over a measurement.
type Throughput struct {
	// Average is all events divided by the time from start to the last event.
	Average float64 `json:"average"`
	// P50, P90 and P99 are percentiles of the per-window rates, sorted
	// ascending as scheduler_perf does: P99 is close to the best window.
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	// Windows are the rates (events per second) of consecutive full windows.
	Windows []float64 `json:"windows"`
}

// WindowThroughput splits [start, last event] into consecutive windows of the
// given length and returns the rate in each full window, their percentiles,
// and the overall average. Events before start are ignored. A trailing
// partial window is left out of the percentiles (it would report a rate over
// a few milliseconds); when there is no full window the only sample is the
// average.
func WindowThroughput(start time.Time, events []time.Time, window time.Duration) Throughput {
	var offs []time.Duration
	for _, e := range events {
		if !e.Before(start) {
			offs = append(offs, e.Sub(start))
		}
	}
	if len(offs) == 0 || window <= 0 {
		return Throughput{}
	}
	slices.Sort(offs)
	span := offs[len(offs)-1]
	var t Throughput
	if span > 0 {
		t.Average = float64(len(offs)) / span.Seconds()
	}
	full := int(span / window)
	counts := make([]int, full)
	for _, o := range offs {
		if i := int(o / window); i < full {
			counts[i]++
		}
	}
	for _, c := range counts {
		t.Windows = append(t.Windows, float64(c)/window.Seconds())
	}
	samples := t.Windows
	if len(samples) == 0 {
		samples = []float64{t.Average}
	}
	t.P50 = Percentile(samples, 50)
	t.P90 = Percentile(samples, 90)
	t.P99 = Percentile(samples, 99)
	return t
}

// LongestGap returns the longest interval inside [from, to] that holds no
// event, and where it starts. Events outside the interval are ignored; the
// interval's ends count as boundaries, so no event at all gives to-from.
func LongestGap(from, to time.Time, events []time.Time) (time.Duration, time.Time) {
	if !to.After(from) {
		return 0, from
	}
	var in []time.Time
	for _, e := range events {
		if !e.Before(from) && !e.After(to) {
			in = append(in, e)
		}
	}
	slices.SortFunc(in, func(a, b time.Time) int { return a.Compare(b) })
	prev, longest, at := from, time.Duration(0), from
	for _, e := range append(in, to) {
		if g := e.Sub(prev); g > longest {
			longest, at = g, prev
		}
		prev = e
	}
	return longest, at
}

// GapsAfter returns, for each of the sorted times changes, the longest
// interval without an event from the last event before that change (or the
// change itself, when none came after the previous change) up to the next
// change, or end for the last one: the pause in events each change caused.
func GapsAfter(changes []time.Time, end time.Time, events []time.Time) []time.Duration {
	sorted := slices.Clone(events)
	slices.SortFunc(sorted, func(a, b time.Time) int { return a.Compare(b) })
	out := make([]time.Duration, len(changes))
	for i, c := range changes {
		to := end
		if i+1 < len(changes) {
			to = changes[i+1]
		}
		from := c
		if j, _ := slices.BinarySearchFunc(sorted, c, func(e, t time.Time) int { return e.Compare(t) }); j > 0 {
			if prev := sorted[j-1]; i == 0 || prev.After(changes[i-1]) {
				from = prev
			}
		}
		out[i], _ = LongestGap(from, to, sorted)
	}
	return out
}

// Agreement compares two placements (pod name to node name). It counts the
// pods placed by both (compared) and, of those, the ones on the same node
// (same). Pods one placement left unplaced are reported as missing.
type Agreement struct {
	Compared int `json:"compared"`
	Same     int `json:"same"`
	Missing  int `json:"missing"`
}

// Share is Same/Compared, or 0 when nothing was compared.
func (a Agreement) Share() float64 {
	if a.Compared == 0 {
		return 0
	}
	return float64(a.Same) / float64(a.Compared)
}

// Compare returns how far got agrees with want, pod by pod. Only pods in
// want are considered; a pod of want with no node in got (or an empty node
// on either side) is missing, not compared.
func Compare(want, got map[string]string) Agreement {
	var a Agreement
	for pod, node := range want {
		other, ok := got[pod]
		if !ok || node == "" || other == "" {
			a.Missing++
			continue
		}
		a.Compared++
		if node == other {
			a.Same++
		}
	}
	return a
}

// Ratio returns a/b, or 0 when b is 0.
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
