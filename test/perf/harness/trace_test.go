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
	"strings"
	"testing"
)

// -trace reads a comma-separated list of cpu, heap, gc and mutex, writes it back
// in one order, and refuses a word it does not know, naming it.
func TestParseTrace(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Trace
		str  string
	}{
		{"", Trace{}, ""},
		{"cpu", Trace{CPU: true}, "cpu"},
		{"gc,heap", Trace{Heap: true, GC: true}, "heap,gc"},
		{"cpu, heap ,gc", Trace{CPU: true, Heap: true, GC: true}, "cpu,heap,gc"},
		{"mutex,cpu", Trace{CPU: true, Mutex: true}, "cpu,mutex"},
	} {
		got, err := ParseTrace(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got != tc.want || got.String() != tc.str {
			t.Errorf("%q: got %+v (%q), want %+v (%q)", tc.in, got, got.String(), tc.want, tc.str)
		}
	}
	if _, err := ParseTrace("cpu,heapp"); err == nil || !strings.Contains(err.Error(), `unknown "heapp"`) {
		t.Errorf("unknown word: error %v, want one naming it", err)
	}
}
