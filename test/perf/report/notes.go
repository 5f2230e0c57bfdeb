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

package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/profile-scheduler/profile-scheduler/test/perf/harness"
)

// MinStep is how long a measured step should last for its 1 s throughput
// windows to be steady: the bench command's Report.MinStepSeconds.
const MinStep = 10 * time.Second

// shortSteps notes the runs of case c whose measured step (resume or first
// create to last bind) lasted less than MinStepSeconds: too few 1 s windows
// for their percentiles to mean much.
func (r *Report) shortSteps(c string) string {
	if r.MinStepSeconds <= 0 {
		return ""
	}
	n, total, shortest := 0, 0, math.Inf(1)
	for _, run := range r.Runs {
		if run.Case != c || run.Bound == 0 {
			continue
		}
		total++
		if run.MeasureSeconds < r.MinStepSeconds {
			n++
			shortest = min(shortest, run.MeasureSeconds)
		}
	}
	if n == 0 {
		return ""
	}
	add := fmt.Sprintf("-set %s.measuredPods=N", c)
	if _, ok := r.Params[c]["measuredPods"]; !ok && r.Params[c] != nil {
		// The gang case counts groups, not pods.
		add = fmt.Sprintf("-set %s.<count>=N", c)
	}
	return fmt.Sprintf("%s: %d of %d measured steps lasted under %.0f s (shortest %.1f s): add pods (%s) for steadier figures",
		c, n, total, r.MinStepSeconds, shortest, add)
}

// stormSockets is the peak of open sockets above which a run is taken to
// have had a connection storm. A scheduler keeps a few connections to the
// API server (every watch shares them) and a few listeners: 2 to 42
// sockets in the measured steps of runs without one here. Past 100
// requests in flight on one connection (kube-apiserver's default streams
// limit) the client dials a connection for each further request; such
// runs had 100 to 470.
const stormSockets = 64

// connectionStorms notes, for case c, the range of each scheduler's peak
// open sockets when a run of either went over stormSockets: the peak RSS
// of such a run is mostly the storm's (TLS handshakes, buffers and
// goroutines of hundreds of connections and the requests queued behind
// them), so a same-run RSS ratio compares a storm with a quiet run.
func (r *Report) connectionStorms(c string) string {
	type span struct{ lo, hi, n int }
	spans := map[string]*span{}
	storm := false
	for _, run := range r.Runs {
		if run.Case != c || run.PeakSockets == 0 {
			continue
		}
		sp := spans[run.Scheduler]
		if sp == nil {
			sp = &span{lo: run.PeakSockets, hi: run.PeakSockets}
			spans[run.Scheduler] = sp
		}
		sp.lo, sp.hi, sp.n = min(sp.lo, run.PeakSockets), max(sp.hi, run.PeakSockets), sp.n+1
		storm = storm || run.PeakSockets > stormSockets
	}
	if !storm {
		return ""
	}
	var parts []string
	for _, s := range []string{harness.Upstream, harness.Ours} {
		if sp := spans[s]; sp != nil {
			if sp.lo == sp.hi {
				parts = append(parts, fmt.Sprintf("%s %d", s, sp.hi))
			} else {
				parts = append(parts, fmt.Sprintf("%s %d–%d", s, sp.lo, sp.hi))
			}
		}
	}
	return fmt.Sprintf("%s: peak open sockets in the measured steps %s; over %d is a connection storm (more requests in flight than the API server's streams per connection, a new connection for each one over), whose run's peak RSS is mostly the storm's",
		c, strings.Join(parts, ", "), stormSockets)
}

func runNote(r *harness.Run, repeated bool) string {
	var parts []string
	if r.Error != "" {
		parts = append(parts, "error: "+r.Error)
	}
	if r.Bound != r.MeasuredPods {
		parts = append(parts, fmt.Sprintf("%d of %d measured pods bound", r.Bound, r.MeasuredPods))
	}
	if r.DoubleBound > 0 {
		parts = append(parts, fmt.Sprintf("%d pods bound twice", r.DoubleBound))
	}
	if len(r.Overcommitted) > 0 {
		parts = append(parts, fmt.Sprintf("%d nodes overcommitted", len(r.Overcommitted)))
	}
	if r.Preempted > 0 {
		parts = append(parts, fmt.Sprintf("%d pods preempted", r.Preempted))
	}
	if r.StallSeconds > 0 {
		parts = append(parts, fmt.Sprintf("the harness's own watch saw pod creations bunched (%d or more within %s) in %d s of the run: the control plane stalled, and the latency tail reflects it whichever scheduler ran",
			harness.BurstSize, harness.BurstWindow, r.StallSeconds))
	}
	if len(parts) == 0 {
		return ""
	}
	name := fmt.Sprintf("%s/%s/%s", r.Case, r.Mode, r.Scheduler)
	if repeated {
		name += fmt.Sprintf(" run %d", r.Repeat)
	}
	return fmt.Sprintf("%s: %s", name, strings.Join(parts, "; "))
}
